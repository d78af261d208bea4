import { test } from "node:test";
import assert from "node:assert/strict";
import {
  EMPTY_TEXT, GLYPH_DONE, GLYPH_OPEN, HEADER, NO_PLAN_HEADER, NO_PLAN_TEXT, checklistView, priorityLabel, counter, rowChanges, rowKey, rowView,
} from "../plan_view.js";

const snapshot = (steps, extra = {}) => ({
  explanation: null, steps, thread_id: "t", turn_id: "u", revision: 1,
  turn_status: "running", error: "", protocol_error: "", ...extra,
});

test("rows follow Codex semantics: glyph, class and status label", () => {
  const view = checklistView(snapshot([
    { step: "Investigate", status: "completed" },
    { step: "Harden", status: "in_progress" },
    { step: "Add tests", status: "pending" },
  ]));
  assert.deepEqual(view.rows, [
    { index: 0, text: "Investigate", status: "completed", glyph: GLYPH_DONE,
      className: "codex-plan-step codex-plan-step--completed", statusLabel: "Completed" },
    { index: 1, text: "Harden", status: "in_progress", glyph: GLYPH_OPEN,
      className: "codex-plan-step codex-plan-step--in_progress", statusLabel: "In progress" },
    { index: 2, text: "Add tests", status: "pending", glyph: GLYPH_OPEN,
      className: "codex-plan-step codex-plan-step--pending", statusLabel: "Pending" },
  ]);
  assert.equal(view.counterText, "1/3 done");
  assert.equal(view.ariaLabel, "Plan, 1 of 3 steps done");
  assert.equal(view.empty, false);
  assert.equal(view.placeholder, null);
});

test("glyphs are U+2714 and U+25A1", () => {
  assert.equal(GLYPH_DONE, "\u2714");
  assert.equal(GLYPH_OPEN, "\u25a1");
});

test("an empty plan says (no steps provided) and counts 0/0", () => {
  const view = checklistView(snapshot([], { explanation: "Starting" }));
  assert.equal(view.empty, true);
  assert.equal(view.emptyText, EMPTY_TEXT);
  assert.equal(EMPTY_TEXT, "(no steps provided)");
  assert.equal(view.explanation, "Starting");
  assert.equal(view.counterText, "0/0 done");
});

test("before the first snapshot there is a placeholder and no counter", () => {
  const view = checklistView(snapshot([{ step: "x", status: "pending" }], { revision: null }));
  assert.equal(view.hasPlan, false);
  assert.equal(view.placeholder, NO_PLAN_TEXT);
  assert.deepEqual(view.rows, []);
  assert.equal(view.counterText, "");
  assert.equal(view.empty, false);
});

test("why there is no plan shows only while there is none, as the saved rendering does", () => {
  const reason = "No plan: Codex sent no turn/plan/updated in turn u2";
  const none = checklistView(snapshot([], { revision: null, no_plan: reason }));
  assert.equal(none.noPlan, reason);
  // said once: no "(no plan yet)" above it and no "Updated Plan" heading (nothing was updated)
  assert.equal(none.placeholder, null);
  assert.equal(none.header, NO_PLAN_HEADER);
  assert.equal(checklistView(snapshot([], { revision: null })).header, HEADER);
  // a later turn that sent no update leaves the earlier plan on screen, uncontradicted
  assert.equal(checklistView(snapshot([{ step: "x", status: "completed" }], { no_plan: reason })).noPlan, null);
});

test("explanation is trimmed like the TUI and blank means none", () => {
  assert.equal(checklistView(snapshot([], { explanation: "  why \n" })).explanation, "why");
  assert.equal(checklistView(snapshot([], { explanation: "   " })).explanation, null);
});

test("several in_progress steps are all rendered in progress", () => {
  const view = checklistView(snapshot([
    { step: "A", status: "in_progress" }, { step: "B", status: "in_progress" },
  ]));
  assert.deepEqual(view.rows.map((r) => r.status), ["in_progress", "in_progress"]);
});

test("a snapshot never depends on the previous one", () => {
  const big = checklistView(snapshot(Array.from({ length: 5 }, (_, i) => ({ step: `s${i}`, status: "pending" }))));
  const small = checklistView(snapshot([{ step: "only", status: "completed" }], { revision: 2 }));
  assert.equal(big.rows.length, 5);
  assert.deepEqual(small.rows.map((r) => r.text), ["only"]);
  assert.equal(small.counterText, "1/1 done");
});

test("malformed rows render defensively", () => {
  assert.deepEqual(rowView({ step: 7, status: "done" }, 0), {
    index: 0, text: "7", status: "done", glyph: GLYPH_OPEN,
    className: "codex-plan-step codex-plan-step--unknown", statusLabel: "Unknown status (done)",
  });
  assert.equal(rowView(null, 1).text, "");
  assert.deepEqual(checklistView({ revision: 3, steps: "nope" }).rows, []);
});

test("HTML in step text stays text in the view model", () => {
  const view = checklistView(snapshot([{ step: "<img src=x onerror=alert(1)>", status: "pending" }]));
  assert.equal(view.rows[0].text, "<img src=x onerror=alert(1)>");
});

test("1000 steps with 10 KB texts build quickly", () => {
  const long = "word ".repeat(2048);
  const steps = Array.from({ length: 1000 }, (_, i) => ({ step: `${i} ${long}`, status: i % 3 ? "pending" : "completed" }));
  const start = performance.now();
  const view = checklistView(snapshot(steps));
  assert.equal(view.rows.length, 1000);
  assert.equal(view.counter.done, 334);
  assert.ok(performance.now() - start < 500);
});

test("turn status and errors pass through", () => {
  const view = checklistView(snapshot([], { turn_status: "failed", error: "RuntimeError: boom" }));
  assert.equal(view.turnText, "Turn failed");
  assert.equal(view.error, "RuntimeError: boom");
  assert.equal(checklistView(snapshot([])).error, null);
  assert.equal(counter([]).text, "0/0 done");
});

test("an ACP priority is kept on the row; Codex rows have none", () => {
  const view = checklistView(snapshot([{ step: "Ship", status: "pending", priority: "high" }, { step: "Tidy", status: "pending" }]));
  assert.equal(view.rows[0].priority, "high");
  assert.equal("priority" in view.rows[1], false);
  assert.equal(priorityLabel("medium"), "medium priority");  // a bare "medium" badge said nothing
});

test("a long plan is drawn folded around its first unfinished step", async () => {
  const { checklistView, MAX_ROWS, ROWS_BEFORE } = await import("../plan_view.js");
  const steps = Array.from({ length: 1000 }, (_, i) => ({ step: `s${i}`, status: i < 400 ? "completed" : "pending" }));
  const view = checklistView({ revision: 1, steps, explanation: null });
  assert.equal(view.rows.length, 1000);
  assert.equal(view.counterText, "400/1000 done");
  assert.deepEqual(view.window, { start: 400 - ROWS_BEFORE, end: 400 - ROWS_BEFORE + MAX_ROWS, before: 380, beforeDone: 380, after: 1000 - 580 });
  assert.equal(view.folds.before, "\u2026 380 steps above (380 done)");
  assert.equal(view.folds.after, "\u2026 420 steps below");
  const all = checklistView({ revision: 1, steps, explanation: null }, { expanded: true });
  assert.deepEqual(all.window, { start: 0, end: 1000, before: 0, beforeDone: 0, after: 0 });
  assert.equal(all.folds.before, "");
});

test("the fold stays inside the plan at both ends and is absent for short plans", async () => {
  const { checklistView, MAX_ROWS } = await import("../plan_view.js");
  const done = Array.from({ length: 500 }, (_, i) => ({ step: `s${i}`, status: "completed" }));
  assert.deepEqual(checklistView({ revision: 1, steps: done }).window,
    { start: 500 - MAX_ROWS, end: 500, before: 500 - MAX_ROWS, beforeDone: 500 - MAX_ROWS, after: 0 });
  const fresh = Array.from({ length: 500 }, (_, i) => ({ step: `s${i}`, status: "pending" }));
  assert.deepEqual(checklistView({ revision: 1, steps: fresh }).window, { start: 0, end: MAX_ROWS, before: 0, beforeDone: 0, after: 300 });
  const short = Array.from({ length: MAX_ROWS }, (_, i) => ({ step: `s${i}`, status: "pending" }));
  assert.equal(checklistView({ revision: 1, steps: short }).window.after, 0);
  assert.equal(checklistView({ revision: 1, steps: short }).folds.after, "");
});

test("an update of one step's status patches that row only, whatever the plan's length", () => {
  const steps = Array.from({ length: 1000 }, (_, i) => ({ step: `step ${i}`, status: "pending" }));
  const keys = (list) => checklistView(snapshot(list), { expanded: true }).rows.map(rowKey);
  const before = keys(steps);
  const after = keys(steps.map((s, i) => (i === 500 ? { ...s, status: "completed" } : s)));
  assert.deepEqual(rowChanges(before, after), { changed: [500], added: 0, removed: 0 });
  assert.deepEqual(rowChanges(before, before), { changed: [], added: 0, removed: 0 });
});

test("row keys tell text, status and priority apart; a plan that grows or shrinks adds or removes rows", () => {
  const key = (step) => rowKey(rowView(step, 0));
  const base = { step: "a", status: "pending" };
  assert.notEqual(key(base), key({ ...base, step: "b" }));
  assert.notEqual(key(base), key({ ...base, status: "completed" }));
  assert.notEqual(key(base), key({ ...base, priority: "high" }));
  assert.equal(key(base), key({ ...base }));
  assert.deepEqual(rowChanges(["a", "b"], ["a", "c", "d", "e"]), { changed: [1], added: 2, removed: 0 });
  assert.deepEqual(rowChanges(["a", "b", "c"], ["x"]), { changed: [0], added: 0, removed: 2 });
});
