import { test } from "node:test";
import assert from "node:assert/strict";
import { transcriptRow, transcriptView } from "../transcript_view.js";

test("tool rows show the tool and its status; streaming rows are live", () => {
  const view = transcriptView({
    status: "running",
    error: "",
    entries: [
      { kind: "assistant", id: "a1", text: "Hel", status: "streaming", title: "", detail: "" },
      { kind: "tool", id: "c1", text: "", status: "running", title: "update_plan", detail: "{}" },
      { kind: "tool", id: "c2", text: "aborted by user after 0.1s", status: "aborted", title: "hang", detail: "{}" },
    ],
  });
  assert.equal(view.header, "Transcript: running");
  assert.deepEqual(view.rows.map((r) => [r.key, r.label, r.live]), [
    ["a1", "Assistant", true],
    ["c1", "update_plan · running", true],
    ["c2", "hang · aborted", false],
  ]);
});

test("an empty transcript and unknown kinds still render", () => {
  assert.equal(transcriptView({ entries: [], status: "idle", error: "" }).empty, true);
  assert.equal(transcriptRow({ kind: "other", id: "x", text: "t", status: "", title: "", detail: "" }).label, "other");
});

test("entries before the window are counted in one folded line", () => {
  const entry = { kind: "tool", id: "c9", text: "", status: "completed", title: "t", detail: "" };
  assert.equal(transcriptView({ entries: [entry], status: "running", error: "", earlier: 800 }).folded,
    "800 earlier entries of this turn not shown");
  assert.equal(transcriptView({ entries: [entry], status: "running", error: "", earlier: 1 }).folded,
    "1 earlier entry of this turn not shown");
  for (const earlier of [0, undefined, -3, 2.5, "7"]) {
    assert.equal(transcriptView({ entries: [entry], status: "running", error: "", earlier: /** @type {any} */ (earlier) }).folded, "");
  }
});

test("a resumed thread's saved conversation: the person's prompts and the saved notes are labelled", () => {
  const row = (kind) => transcriptRow({ kind, id: kind, text: "x", status: "done", title: "", detail: "" });
  assert.equal(row("user").label, "You");
  assert.equal(row("saved").label, "Saved");
});

test("an ACP agent's notice, compaction and subagent are labelled rows; its session title is in the header", () => {
  const view = transcriptView({
    status: "completed",
    error: "",
    title: "Fix the parser",
    entries: [
      { kind: "agent_notice", id: "n1", text: "x", status: "done", title: "Configuration warning (warning)", detail: "" },
      { kind: "compaction", id: "compaction-c1", text: "Kept: the plan", status: "running", title: "Context compaction", detail: "" },
      { kind: "subagent", id: "subagent-s1", text: "Found the bug", status: "idle", title: "Explorer",
        detail: "1 tool call(s); 1 message(s)" },
      { kind: "subagent", id: "subagent-s2", text: "", status: "", title: "subagent s2", detail: "" },
    ],
  });
  assert.equal(view.header, "Transcript: completed · Fix the parser");
  assert.deepEqual(view.rows.map((r) => [r.key, r.label, r.live]), [
    ["n1", "Notice · Configuration warning (warning)", false],
    ["compaction-c1", "Context compaction · running", true],
    ["subagent-s1", "Subagent Explorer · idle", false],
    ["subagent-s2", "Subagent subagent s2", false],
  ]);
  assert.equal(transcriptView({ entries: [], status: "idle", error: "", title: "" }).header, "Transcript: no turn yet");
});
