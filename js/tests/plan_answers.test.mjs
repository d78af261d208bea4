import { test } from "node:test";
import assert from "node:assert/strict";
import { ANSWERS_TO_KERNEL } from "../protocol.js";
import { answersRequest, commentsByStep, sendControls } from "../plan_answers.js";

const steps = [{ index: 0, step: "Read", status: "completed" }, { index: 1, step: "Plot as bars", status: "pending" }];
const comment = (extra) => ({ id: "c", step_index: 0, step: "Read", text: "t", state: "sent", label: "", renamed_to: null, ...extra });

test("requests are the protocol's kinds only", () => {
  assert.deepEqual(Object.keys(ANSWERS_TO_KERNEL), ["comment", "suggest", "approve", "revise", "reject"]);
  assert.equal(answersRequest("comment", { step: 1, text: "x" }).kind, "comment");
  assert.throws(() => answersRequest("edit"), /unknown plan answers message kind "edit"/);
});

test("a comment is drawn beside its step, the step it was renamed to, or apart when gone", () => {
  const { by, orphans } = commentsByStep(steps, [
    comment({ id: "same" }),
    comment({ id: "moved", step_index: 5 }),
    comment({ id: "renamed", step_index: 1, step: "Plot", state: "step_renamed", renamed_to: "Plot as bars" }),
    comment({ id: "gone", step_index: 1, step: "Publish", state: "step_removed" }),
  ]);
  assert.deepEqual(by.get(0)?.map((c) => c.id), ["same", "moved"]);
  assert.deepEqual(by.get(1)?.map((c) => c.id), ["renamed"]);
  assert.deepEqual(orphans.map((c) => c.id), ["gone"]);
});

test("a source that takes no answers (its capabilities say so) gets no send controls", () => {
  const state = { steps: 2, suggesting: false, proposal: true };
  assert.deepEqual(sendControls({ ...state, can_send: true }), { comment: true, suggest: true, decide: true });
  assert.deepEqual(sendControls({ ...state, can_send: false }), { comment: false, suggest: false, decide: false });
  assert.deepEqual(sendControls({ ...state, steps: 0, proposal: false }), { comment: true, suggest: false, decide: false });
});
