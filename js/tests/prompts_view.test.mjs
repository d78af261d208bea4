import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { PROMPTS_TO_KERNEL } from "../protocol.js";
import {
  DECISIONS, NOTE_PREFIX, OTHER_LABEL, answerPermissionsMessage, answerUserInputMessage,
  buildAnswers, cardModel, countdownText, diffCards, permissionLines, readyMessage,
} from "../prompts_view.js";

const json = JSON.parse(await readFile(new URL("../protocol.json", import.meta.url), "utf8"));

const QUESTION = {
  id: "req-1", kind: "user_input", turn_id: "t", call_id: "c", deadline_ms: 61_000,
  request: { type: "request_user_input", call_id: "c", turn_id: "t", questions: [
    { id: "confirm_path", header: "Confirm", question: "Proceed?", isOther: true, isSecret: false,
      options: [{ label: "Yes (Recommended)", description: "Go on." }, { label: "No", description: "Stop." }] },
    { id: "token", header: "Token", question: "API token?", isOther: true, isSecret: true,
      options: [{ label: "Skip", description: "No token." }, { label: "Env", description: "Use $TOKEN." }] },
  ] },
};
const PERMISSION = {
  id: "req-2", kind: "permissions", turn_id: "t", call_id: "p", deadline_ms: null,
  request: { type: "request_permissions", call_id: "p", turn_id: "t", environment_id: "local", started_at_ms: 1,
    reason: "Write the report", cwd: "/w", permissions: { network: { enabled: true },
      file_system: { read: ["/w/in"], write: ["/w/out"] } } },
};

test("kinds, decisions and labels come from protocol.json", () => {
  const prompts = json.widgets.prompts;
  assert.deepEqual(Object.keys(PROMPTS_TO_KERNEL), Object.keys(prompts.to_kernel));
  assert.deepEqual([...DECISIONS], prompts.decisions);
  assert.equal(OTHER_LABEL, "None of the above");
  assert.equal(NOTE_PREFIX, "user_note: ");
});

test("question card: headers, options, client-added Other, secret flag", () => {
  const card = cardModel(QUESTION);
  assert.equal(card.title, "Confirm · Token");
  assert.equal(card.deadlineMs, 61_000);
  assert.deepEqual(card.questions.map((q) => [q.id, q.secret, q.other, q.options.length]),
    [["confirm_path", false, "None of the above", 2], ["token", true, "None of the above", 2]]);
});

test("permission card: what, why, decisions", () => {
  const card = cardModel(PERMISSION);
  assert.equal(card.reason, "Write the report");
  assert.deepEqual(card.lines, ["read: /w/in", "write: /w/out", "network: enabled"]);
  assert.deepEqual(card.decisions.map((d) => d.label), ["Allow for this turn", "Allow for this session", "Deny"]);
  assert.deepEqual(permissionLines({ file_system: { entries: [
    { path: { type: "glob_pattern", pattern: "**/*.env" }, access: "none" },
    { path: { type: "path", path: "/x" }, access: "read" }] } }), ["deny: **/*.env", "read: /x"]);
});

test("answers: label, Other with note, note-only; missing answer is an error", () => {
  const { questions } = cardModel(QUESTION);
  assert.deepEqual(buildAnswers(questions, {
    confirm_path: { choice: "No", note: "" }, token: { choice: OTHER_LABEL, note: " s3cret " },
  }), { answers: { confirm_path: { answers: ["No"] }, token: { answers: ["None of the above", "user_note: s3cret"] } } });
  assert.deepEqual(buildAnswers(questions, { confirm_path: { choice: null, note: "later" }, token: { choice: "Skip", note: "" } }),
    { answers: { confirm_path: { answers: ["user_note: later"] }, token: { answers: ["Skip"] } } });
  assert.match(buildAnswers(questions, { confirm_path: { choice: "No", note: "" } }).error, /"token"/);
});

test("messages carry the request id and a protocol kind", () => {
  assert.deepEqual(answerUserInputMessage("req-1", {}), { id: "req-1", kind: "answer_user_input", answers: {} });
  assert.deepEqual(answerPermissionsMessage("req-2", "allow_session"),
    { id: "req-2", kind: "answer_permissions", decision: "allow_session" });
  assert.throws(() => answerPermissionsMessage("req-2", "maybe"), /unknown decision/);
  assert.equal(readyMessage("v1").kind, "ready");
  for (const msg of [answerUserInputMessage("a", {}), answerPermissionsMessage("b", "deny"), readyMessage("c")]) {
    assert.deepEqual(Object.keys(msg).filter((k) => k !== "kind").sort(),
      Object.keys(json.widgets.prompts.to_kernel[msg.kind]).sort());
  }
});

test("countdown and keyed diff", () => {
  assert.equal(countdownText(null, 0), "");
  assert.equal(countdownText(61_000, 1_000), "continues without an answer in 60s");
  assert.equal(countdownText(1_000, 5_000), "continues without an answer in 0s");
  assert.deepEqual(diffCards(["req-1", "req-3"], [QUESTION, PERMISSION]), { remove: ["req-3"], add: [PERMISSION] });
});

test("the DOM module sends only through the view helpers and never uses innerHTML", async () => {
  const source = await readFile(new URL("../prompts.js", import.meta.url), "utf8");
  assert.doesNotMatch(source, /innerHTML/);
  const sends = [...source.matchAll(/model\.send\((\w+)\(/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(sends)].sort(), ["answerPermissionsMessage", "answerUserInputMessage", "readyMessage"]);
});
