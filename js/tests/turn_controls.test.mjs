import { test } from "node:test";
import assert from "node:assert/strict";
import { CONTROLS_TO_KERNEL } from "../protocol.js";
import { controlsRequest, controlsView, goalView, optionRequest, optionsView, threadStateView, usageText, usageView } from "../turn_controls.js";

const state = (extra = {}) => ({ status: "running", stoppable: true, last_stop: {}, error: "", ...extra });

test("a running, stoppable turn offers Stop", () => {
  assert.deepEqual(controlsView(state(), null),
    { label: "Turn: running", status: "running", stopDisabled: false, stopHidden: false, note: "" });
});

test("a source that cannot stop a turn (its capabilities say so) shows no Stop", () => {
  assert.equal(controlsView(state({ can_stop: false }), null).stopHidden, true);
  assert.equal(controlsView(state({ can_stop: true }), null).stopHidden, false);
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
  assert.deepEqual(Object.keys(CONTROLS_TO_KERNEL), ["stop", "set_option", "compact"]);
  assert.throws(() => controlsRequest("explode"), /unknown turn controls message kind/);
});

test("the usage meter words each reported figure as the kernel does, and leaves out the rest", () => {
  // the same cases as tests/unit/widgets/test_turn_controls_usage.py
  assert.equal(usageText({}), "");
  assert.equal(usageText({ total: 0 }), "In all: 0");
  assert.equal(usageText({ context_used: 5, context_window: 0 }), "Context: 5 tokens");
  assert.equal(usageText({ context_used: 999, context_window: 1000 }), "Context: 999 of 1,000 tokens (99%)");
  assert.equal(usageText({ turn: 3 }), "This turn: 3");
  assert.equal(usageText({ context_used: 1500, context_window: 10000, turn: 2700, total: 2700 }),
    "Context: 1,500 of 10,000 tokens (15%) \u00b7 This turn: 2,700 \u00b7 In all: 2,700");
  assert.equal(usageText({ context_used: 258400, context_window: 258400, turn: 12, total: 2 ** 53 - 1 }),
    "Context: 258,400 of 258,400 tokens (100%) \u00b7 This turn: 12 \u00b7 In all: 9,007,199,254,740,991");
});

test("the meter fills with the context window used, and is empty when the window is unknown", () => {
  assert.deepEqual(usageView({ context_used: 500, context_window: 1000 }),
    { text: "Context: 500 of 1,000 tokens (50%)", fill: 0.5, used: 500, window: 1000 });
  assert.equal(usageView({ context_used: 2000, context_window: 1000 }).fill, 1);
  assert.equal(usageView({ context_used: 500 }).fill, null);
  assert.equal(usageView({}).text, "");
});

const OPTIONS = [
  { id: "collaboration_mode", name: "Collaboration mode", kind: "select", current: "default", category: "mode",
    choices: [{ value: "default", name: "Default", group: null }, { value: "plan", name: "Plan", group: null }] },
  { id: "model", name: "Model", kind: "select", current: "m1", category: "model",
    choices: [{ value: "m1", name: "Model one", group: "Fast" }, { value: "m2", name: "Model two", group: "Fast" },
      { value: "m3", name: "Model three", group: "Deep" }] },
  { id: "web", name: "Web search", kind: "boolean", current: false, category: null, choices: [] },
];

test("a picker per option, its choices grouped as the agent groups them, enabled when picks are on", () => {
  const view = optionsView(OPTIONS, {}, {}, true);
  assert.deepEqual(view.pickers.map((p) => [p.id, p.kind, p.current, p.disabled]),
    [["collaboration_mode", "select", "default", false], ["model", "select", "m1", false], ["web", "boolean", false, false]]);
  assert.deepEqual(view.pickers[1].groups.map((g) => [g.label, g.choices.map((c) => c.value)]),
    [["Fast", ["m1", "m2"]], ["Deep", ["m3"]]]);
  assert.deepEqual(view.pickers[0].groups, [{ label: null, choices: OPTIONS[0].choices }]);
  assert.equal(view.note, "");
  assert.deepEqual(optionsView([], {}, {}, true), { pickers: [], note: "" });
});

test("a pick disables its picker until the agent answers; a refusal is said, a frozen view picks nothing", () => {
  const pending = { collaboration_mode: "p1" };
  const waiting = optionsView(OPTIONS, { id: "p1", option: "collaboration_mode", outcome: "setting" }, pending, true);
  assert.deepEqual(waiting.pickers.map((p) => p.disabled), [true, false, false]);
  assert.equal(waiting.note, "Setting Collaboration mode…");
  const refused = optionsView(OPTIONS, { id: "p1", option: "collaboration_mode", outcome: "refused", message: "no" }, pending, true);
  assert.equal(refused.pickers[0].disabled, false);
  assert.equal(refused.note, "Collaboration mode: no");
  const set = optionsView(OPTIONS, { id: "p1", option: "collaboration_mode", outcome: "set", message: "" }, pending, true);
  assert.equal(set.note, "");
  // another view's reply is not ours to word
  assert.equal(optionsView(OPTIONS, { id: "other", option: "model", outcome: "refused", message: "x" }, pending, true).note, "");
  assert.ok(optionsView(OPTIONS, {}, {}, false).pickers.every((p) => p.disabled));
});

test("a pick is a set_option request with the option and its value", () => {
  const request = optionRequest("collaboration_mode", "plan");
  assert.equal(request.kind, "set_option");
  assert.equal(request.option, "collaboration_mode");
  assert.equal(request.value, "plan");
  assert.ok(request.id.length > 0);
  assert.equal(optionRequest("web", true).value, true);
});

test("goalView: the card's words come from the kernel, the meter only with a budget", () => {
  assert.equal(goalView({}).hidden, true);
  const goal = {
    objective: "ship it", status: "active", status_text: "active",
    usage_text: "12,952 of 100,000 tokens (12%) \u00b7 1 min 5 s", tokens_used: 12952, token_budget: 100000,
  };
  const view = goalView(goal);
  assert.equal(view.hidden, false);
  assert.equal(view.title, "Goal (active): ship it");
  assert.equal(view.usage, goal.usage_text);
  assert.equal(view.fill, 12952);
  assert.equal(view.budget, 100000);
  assert.equal(goalView({ ...goal, token_budget: null }).fill, null);
  assert.equal(goalView({ ...goal, tokens_used: 10 ** 9 }).fill, 100000);  // never past the budget
});

test("a real Codex thread's waiting note and settings line show as the kernel words them, hidden when empty", () => {
  assert.deepEqual(threadStateView("Waiting on your approval", "gpt-5.1-codex \u00b7 Plan mode"), {
    waiting: "Waiting on your approval", waitingHidden: false,
    settings: "Settings: gpt-5.1-codex \u00b7 Plan mode", settingsHidden: false,
  });
  // another source (no traits), or a thread with nothing to say
  assert.deepEqual(threadStateView(undefined, undefined), { waiting: "", waitingHidden: true, settings: "", settingsHidden: true });
  assert.deepEqual(threadStateView("", ""), { waiting: "", waitingHidden: true, settings: "", settingsHidden: true });
  // a bad trait value never reaches the DOM as "[object Object]"
  assert.deepEqual(threadStateView({ kind: "active" }, 5), { waiting: "", waitingHidden: true, settings: "", settingsHidden: true });
});
