import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { TIMELINE_TO_KERNEL, TIMELINE_TO_VIEW, timelineRequest } from "../protocol.js";
import { TIMELINE_EMPTY_TEXT, nextSelection, timelineView, rewindTurn } from "../plan_timeline_view.js";

const json = JSON.parse(await readFile(new URL("../protocol.json", import.meta.url), "utf8"));

/** @param {number} index */
const entry = (index, regression = false) => ({ index, label: `#${index}`, summary: "none", done: 0, total: 1, regression });
const entries = [entry(7), entry(8, true), entry(9)];

test("timeline kinds come from protocol.json and requests are checked", () => {
  assert.deepEqual(Object.keys(TIMELINE_TO_KERNEL), Object.keys(json.widgets.plan_timeline.to_kernel));
  assert.deepEqual(Object.keys(TIMELINE_TO_VIEW), Object.keys(json.widgets.plan_timeline.to_view));
  const request = timelineRequest(TIMELINE_TO_KERNEL.select, { index: 3 });
  assert.equal(request.kind, "select");
  assert.equal(request.index, 3);
  assert.throws(() => timelineRequest("rendered"), /unknown plan timeline message kind/);
});

test("arrow keys move between listed revisions, Home and End jump, other keys do nothing", () => {
  assert.equal(nextSelection("ArrowUp", entries, null), 8); // following the newest: one older
  assert.equal(nextSelection("ArrowDown", entries, null), undefined); // already the newest
  assert.equal(nextSelection("ArrowUp", entries, 8), 7);
  assert.equal(nextSelection("ArrowLeft", entries, 8), 7);
  assert.equal(nextSelection("ArrowUp", entries, 7), undefined); // the oldest stays
  assert.equal(nextSelection("ArrowDown", entries, 7), 8);
  assert.equal(nextSelection("ArrowRight", entries, 8), 9);
  assert.equal(nextSelection("Home", entries, 9), 7);
  assert.equal(nextSelection("End", entries, 7), null); // the newest, following new ones
  assert.equal(nextSelection("End", entries, null), undefined);
  assert.equal(nextSelection("ArrowUp", entries, 3), 8); // an evicted selection moves from the newest
  assert.equal(nextSelection("a", entries, 8), undefined);
  assert.equal(nextSelection("ArrowUp", [], null), undefined);
});

test("the list is one page: moves past its ends and PageUp/PageDown ask for the revision beyond", () => {
  const page = { hidden: 7, newer: 5 }; // kept: 0..14, listed: 7..9
  assert.equal(nextSelection("ArrowUp", entries, 7, page), 6);
  assert.equal(nextSelection("ArrowDown", entries, 9, page), 10);
  assert.equal(nextSelection("Home", entries, 8, page), 0);
  assert.equal(nextSelection("PageUp", entries, 8, page), 5);
  assert.equal(nextSelection("PageDown", entries, 8, page), 11);
  assert.equal(nextSelection("PageDown", entries, 9, { hidden: 0, newer: 1 }), 10); // clamped to the newest
  assert.equal(nextSelection("PageUp", entries, 7, { hidden: 0, newer: 0 }), undefined);
  assert.equal(nextSelection("End", entries, 8, page), null);
});

test("the view marks the shown revision and the changed steps", () => {
  const view = timelineView({
    entries,
    hidden: 7,
    notes: ["7 older revision(s) dropped"],
    selected: 8,
    snapshot: {
      index: 8,
      heading: "#8 · turn t",
      time: "2026-12-01T12:00:00.000Z",
      explanation: "why",
      steps: [
        { step: "<b>a</b>", status: "pending", change: "regression: completed → pending" },
        { step: "b", status: "completed", change: "" },
      ],
      removed: ["gone"],
      summary: "1 status change(s), 1 regression(s)",
    },
    protocol_error: "",
  });
  assert.deepEqual(view.items.map((i) => i.selected), [false, true, false]);
  assert.equal(view.items[1].regression, true);
  assert.equal(view.following, false);
  assert.equal(view.heading, "#8 · turn t · 2026-12-01T12:00:00.000Z");
  assert.equal(view.checklist.rows[0].text, "<b>a</b>");
  assert.deepEqual(view.regressions, [true, false]);
  assert.deepEqual(view.removed, ["gone"]);
  assert.equal(view.hiddenText, "7 earlier revision(s) not listed");
});

test("an empty timeline says so", () => {
  const view = timelineView({ entries: [], selected: null, snapshot: null });
  assert.equal(view.emptyText, TIMELINE_EMPTY_TEXT);
  assert.equal(view.shown, null);
  assert.equal(view.following, true);
  assert.equal(view.checklist.placeholder, "(no plan yet)");
});

test("an empty timeline whose turn had no plan says why once, not also that it is empty", () => {
  const reason = "No plan: the ACP agent sent no plan update in turn-1";
  const view = timelineView({ entries: [], selected: null, snapshot: null, no_plan: reason });
  assert.equal(view.noPlan, reason);
  assert.equal(view.emptyText, "");
  assert.deepEqual(view.items, []); // the renderer hides the detail box then: no "(no plan yet)" beside it
});

test("the view module sends only protocol kinds and never writes HTML", async () => {
  const source = await readFile(new URL("../plan_timeline.js", import.meta.url), "utf8");
  const sent = [...source.matchAll(/timelineRequest\(TIMELINE_TO_KERNEL\.(\w+)/g)].map((m) => m[1]);
  assert.ok(sent.length > 0);
  for (const kind of sent) assert.ok(kind in TIMELINE_TO_KERNEL, kind);
  assert.doesNotMatch(source, /innerHTML/);
});

test("a revision of a rewound turn is marked rewound", () => {
  const view = timelineView({
    entries: [
      { index: 0, label: "#0 · turn a", summary: "2 added", done: 0, total: 2, regression: false },
      { index: 1, label: "#1 · turn b", summary: "1 done", done: 1, total: 2, regression: false, rewound: true },
    ],
    snapshot: null,
  });
  assert.deepEqual(view.items.map((i) => [i.label, i.rewound]), [["#0 · turn a", false], ["#1 · turn b · rewound", true]]);
});

test("the shown revision offers Rewind to here only live, on an offered turn no rewind undid", () => {
  const snapshot = { index: 2, turn_id: "t2", heading: "#2", time: "", explanation: null, steps: [], removed: [], summary: "" };
  const entries = [{ index: 2, label: "#2", summary: "", done: 0, total: 0, regression: false }];
  const state = { entries, snapshot, rewind_turns: ["t1", "t2"] };
  assert.equal(rewindTurn(state, true), "t2");
  assert.equal(rewindTurn(state, false), null); // a saved view: no kernel answered its hello
  assert.equal(rewindTurn({ ...state, rewind_turns: ["t1"] }, true), null); // not offered (a release without rewind: none are)
  assert.equal(rewindTurn({ ...state, entries: [{ ...entries[0], rewound: true }] }, true), null);
  assert.equal(rewindTurn({ ...state, snapshot: { ...snapshot, turn_id: null } }, true), null);
});

test("goal records are listed in order with their time and turn", () => {
  const view = timelineView({
    goals: [
      { index: 0, status: "active", line: "Goal (active): ship it · 0 tokens · 0 s", time: "T0", turn: null },
      { index: 1, status: "cleared", line: "Goal cleared: ship it", time: "T1", turn: "turn-1" },
    ],
  });
  assert.deepEqual(view.goals.map((g) => [g.id, g.status, g.detail]), [
    ["goal-0", "active", "T0"],
    ["goal-1", "cleared", "T1 \u00b7 turn turn-1"],
  ]);
  assert.equal(view.emptyText, "");
});
