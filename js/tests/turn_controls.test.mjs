import { test } from "node:test";
import assert from "node:assert/strict";
import { CONTROLS_TO_KERNEL } from "../protocol.js";
import { controlsRequest, controlsView } from "../turn_controls.js";

const state = (extra = {}) => ({ status: "running", stoppable: true, last_stop: {}, error: "", ...extra });

test("a running, stoppable turn offers Stop", () => {
  assert.deepEqual(controlsView(state(), null),
    { label: "Turn: running", status: "running", stopDisabled: false, note: "" });
});

test("Stop stays disabled while our request awaits its reply, then the reply is shown", () => {
  assert.equal(controlsView(state(), "r1").stopDisabled, true);
  const replied = controlsView(state({ status: "completed", stoppable: false,
    last_stop: { id: "r1", outcome: "not_running" } }), "r1");
  assert.equal(replied.note, "No turn is running.");
  assert.equal(replied.stopDisabled, true);
});

test("an interrupt in progress says so; errors win over every other note", () => {
  assert.equal(controlsView(state({ stoppable: false }), null).note, "Stopping…");
  assert.equal(controlsView(state({ error: "bad message" }), null).note, "bad message");
});

test("finished and unknown statuses are labelled", () => {
  assert.equal(controlsView(state({ status: "interrupted", stoppable: false }), null).label, "Turn: interrupted");
  assert.equal(controlsView(state({ status: "mystery" }), null).label, "Turn: mystery");
});

test("requests carry an id and a known kind only", () => {
  const request = controlsRequest("stop");
  assert.equal(request.kind, "stop");
  assert.equal(typeof request.id, "string");
  assert.ok(request.id.length > 0);
  assert.deepEqual(Object.keys(CONTROLS_TO_KERNEL), ["stop"]);
  assert.throws(() => controlsRequest("explode"), /unknown turn controls message kind/);
});
