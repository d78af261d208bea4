import { test } from "node:test";
import assert from "node:assert/strict";
import { ACP_SESSION_COLUMNS, SESSIONS_TO_KERNEL, SESSION_COLUMNS } from "../protocol.js";
import { sessionCells, visibleSessions } from "../sessions_view.js";

const row = (id, extra = {}) => ({
  id, started: "2026-12-04T17:12:15Z", cwd: "/w", prompt: "", model: "m", turns: 1, turns_exact: true,
  plan: "", status: "completed", size: 1, problem: "", ...extra,
});
const rows = [
  row("a", { cwd: "/home/ada/parser", prompt: "Fix the CSV parser", turns: 2 }),
  row("b", { cwd: "/home/ada/api", prompt: "Design an API", turns: 10, started: "2026-12-05T09:00:00Z" }),
  row("c", { cwd: "/home/ada/scratch", prompt: "hi", turns: 1, problem: "half written" }),
];

test("the filter keeps rows holding every word, case-insensitively", () => {
  assert.deepEqual(visibleSessions(rows, "ADA csv", "started", true).map((r) => r.id), ["a"]);
  assert.deepEqual(visibleSessions(rows, "half", "started", true).map((r) => r.id), ["c"]);
  assert.deepEqual(visibleSessions(rows, "", "started", true).map((r) => r.id), ["b", "a", "c"]);
});

test("numbers sort as numbers, text as text, ties by id", () => {
  assert.deepEqual(visibleSessions(rows, "", "turns", false).map((r) => r.id), ["c", "a", "b"]);
  assert.deepEqual(visibleSessions(rows, "", "turns", true).map((r) => r.id), ["b", "a", "c"]);
  assert.deepEqual(visibleSessions(rows, "", "cwd", false).map((r) => r.id), ["b", "a", "c"]);
});

test("a lower-bound turn count is marked, the start time shortened", () => {
  const cells = sessionCells(row("d", { turns: 7, turns_exact: false }));
  assert.equal(cells.turns, "≥7");
  assert.equal(cells.started, "2026-12-04 17:12");
});

test("the protocol names the messages and columns the kernel checks", () => {
  assert.deepEqual(Object.keys(SESSIONS_TO_KERNEL).sort(), ["archive", "delete", "fork", "refresh", "rename", "resume", "unarchive"]);
  assert.deepEqual([...SESSION_COLUMNS], ["started", "cwd", "prompt", "model", "turns", "plan", "status"]);
});

test("an ACP agent's rows: its columns, filtered by title and sorted by the last update", () => {
  const acp = [
    { id: "s1", title: "Fix the parser", cwd: "/w/a", updated: "2026-12-05T07:03:25.000Z" },
    { id: "s2", title: "Write the docs", cwd: "/w/b", updated: "2026-12-05T09:00:00.000Z" },
  ];
  assert.deepEqual([...ACP_SESSION_COLUMNS], ["title", "cwd", "updated"]);
  assert.deepEqual(visibleSessions(acp, "parser", "updated", true).map((r) => r.id), ["s1"]);
  assert.deepEqual(visibleSessions(acp, "", "updated", true).map((r) => r.id), ["s2", "s1"]);
  const cells = sessionCells(acp[0]);
  assert.equal(cells.title, "Fix the parser");
  assert.equal(cells.updated, "2026-12-05 07:03");
  assert.equal(cells.started, "");  // a Codex column an ACP row lacks is empty, not an error
});
