import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import {
  CHECKLIST_TO_KERNEL, CHECKLIST_TO_VIEW, PROTOCOL_VERSION, STEP_STATUSES, TURN_STATUSES, checklistRequest,
} from "../protocol.js";

const json = JSON.parse(await readFile(new URL("../protocol.json", import.meta.url), "utf8"));

test("protocol.js exposes exactly the kinds of protocol.json", () => {
  assert.equal(PROTOCOL_VERSION, json.version);
  assert.deepEqual(Object.keys(CHECKLIST_TO_KERNEL), Object.keys(json.widgets.plan_checklist.to_kernel));
  assert.deepEqual(Object.keys(CHECKLIST_TO_VIEW), Object.keys(json.widgets.plan_checklist.to_view));
  assert.deepEqual([...STEP_STATUSES], json.step_statuses);
  assert.deepEqual([...TURN_STATUSES], json.turn_statuses);
});

test("requests carry a fresh id and a known kind", () => {
  const a = checklistRequest(CHECKLIST_TO_KERNEL.rendered, { revision: 3 });
  const b = checklistRequest(CHECKLIST_TO_KERNEL.rendered, { revision: 4 });
  assert.equal(a.kind, "rendered");
  assert.equal(a.revision, 3);
  assert.equal(typeof a.id, "string");
  assert.notEqual(a.id, b.id);
  assert.throws(() => checklistRequest("nope"), /unknown checklist message kind/);
});

test("the view module sends only protocol kinds", async () => {
  const source = await readFile(new URL("../plan_checklist.js", import.meta.url), "utf8");
  const sent = [...source.matchAll(/checklistRequest\(CHECKLIST_TO_KERNEL\.(\w+)/g)].map((m) => m[1]);
  assert.ok(sent.length > 0);
  for (const kind of sent) assert.ok(kind in CHECKLIST_TO_KERNEL, kind);
  assert.doesNotMatch(source, /innerHTML/);
});
