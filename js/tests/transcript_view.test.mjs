import { test } from "node:test";
import assert from "node:assert/strict";
import { transcriptRow, transcriptView, offersRewind, rewindQuestion } from "../transcript_view.js";

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

test("an automatic review reads as Codex's verdict; only a denial on a source that can override offers it", () => {
  const entry = (status) => ({ kind: "review", id: "review-r1", text: "Not asked for.", status,
                               title: "touch a.txt", detail: "risk high, authorization low" });
  const denied = transcriptRow(entry("denied"), true);
  assert.equal(denied.label, "Automatic review · denied by the automatic review · touch a.txt");
  assert.deepEqual([denied.reviewId, denied.overridable, denied.detail, denied.text],
    ["r1", true, "risk high, authorization low", "Not asked for."]);
  assert.equal(transcriptRow(entry("denied"), false).overridable, false);
  assert.equal(transcriptRow(entry("approved"), true).overridable, false);
  assert.equal(transcriptRow(entry("approved"), true).label, "Automatic review · approved by the automatic review · touch a.txt");
  assert.equal(transcriptRow(entry("in_progress"), true).live, true);
  const over = transcriptRow(entry("overridden"), true);
  assert.equal(over.overridable, false);
  assert.match(over.label, /overridden by you/);
  const view = transcriptView({ entries: [entry("denied")], status: "completed", error: "", canOverride: true });
  assert.equal(view.rows[0].overridable, true);
  assert.ok(!/approved by you|You approved/.test(transcriptRow(entry("approved"), true).label));
});

test("rewind to here: offered on the person's words of an offered turn, and the question says what goes", () => {
  const offered = ["t1", "t2", "t3"];
  const you = transcriptRow({ kind: "user", id: "u", text: "hi", status: "done", title: "", detail: "", turn: "t2" });
  assert.equal(offersRewind(you, offered), true);
  assert.equal(offersRewind({ ...you, turn: "t9" }, offered), false);
  assert.equal(offersRewind({ ...you, kind: "assistant" }, offered), false);
  const gone = transcriptRow({ kind: "user", id: "u", text: "hi", status: "done", title: "", detail: "", turn: "t2", rewound: true });
  assert.equal(offersRewind(gone, offered), false);
  assert.equal(gone.label, "You · rewound");
  assert.match(rewindQuestion("t2", offered), /undoes 2 turns \(this turn and the 1 after it\)/);
  assert.match(rewindQuestion("t3", offered), /undoes 1 turn \(this turn\)/);
  assert.match(rewindQuestion("t3", offered), /Files they changed are not restored\./);
});

test("a note entry (a rewind, a compaction) is labelled Note, a retry Retry", () => {
  const row = (kind) => transcriptRow({ kind, id: "n", text: "x", status: "done", title: "", detail: "" });
  assert.equal(row("note").label, "Note");
  assert.equal(row("notice").label, "Retry");
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
