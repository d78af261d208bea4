import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { PROMPTS_TO_KERNEL } from "../protocol.js";
import {
  APPROVAL_DECISIONS, DECISIONS, NOTE_PREFIX, OTHER_LABEL, answerApprovalMessage, answerPermissionsMessage,
  answerUserInputMessage, answerElicitationMessage, buildElicitationContent, decisionDetail, diffLines, grantMessage,
  permissionGrants,
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
  assert.equal(card.title, "The model asks 2 questions");  // the headers are the legends, not repeated
  assert.equal(cardModel({ ...QUESTION, request: { ...QUESTION.request, questions: QUESTION.request.questions.slice(0, 1) } }).title,
    "The model asks");
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

test("approval cards: a command or the file diffs, and three answers", () => {
  const command = cardModel({ id: "req-3", kind: "approval", turn_id: "t", call_id: "e1", deadline_ms: null,
    request: { type: "exec_approval_request", call_id: "e1", turn_id: "t", command: "rm -rf build", cwd: "/w",
      reason: "clean up" } });
  assert.equal(command.title, "Run this command?");
  assert.equal(command.command, "rm -rf build");
  assert.deepEqual(command.changes, []);
  // no availableDecisions: the four Codex documents (never the rule-adding ones)
  assert.deepEqual(command.decisions.map((d) => d.decision), ["approve", "approve_for_session", "decline", "cancel"]);
  assert.deepEqual([...APPROVAL_DECISIONS], json.widgets.prompts.approval_decisions);
  const patch = cardModel({ id: "req-4", kind: "approval", turn_id: "t", call_id: "a1", deadline_ms: null,
    request: { type: "apply_patch_approval_request", call_id: "a1", turn_id: "t",
      changes: [{ path: "a.txt", kind: "add", diff: "+hi\n" }] } });
  assert.equal(patch.title, "Apply these changes?");
  assert.equal(patch.command, null);
  assert.deepEqual(patch.changes, [{ path: "a.txt", kind: "add", diff: "+hi\n", lines: [{ text: "++hi", cls: "add" }] }]);
  assert.deepEqual(answerApprovalMessage("req-3", "approve_for_session"),
    { id: "req-3", kind: "answer_approval", decision: "approve_for_session" });
  assert.throws(() => answerApprovalMessage("req-3", "allow_turn"), /unknown decision/);
});

test("answers: label, Other with note, note-only; missing answer is an error", () => {
  const { questions } = cardModel(QUESTION);
  assert.deepEqual(buildAnswers(questions, {
    confirm_path: { choice: "No", note: "" }, token: { choice: OTHER_LABEL, note: " s3cret " },
  }), { answers: { confirm_path: { answers: ["No"] }, token: { answers: ["None of the above", "user_note: s3cret"] } } });
  assert.deepEqual(buildAnswers(questions, { confirm_path: { choice: null, note: "later" }, token: { choice: "Skip", note: "" } }),
    { answers: { confirm_path: { answers: ["user_note: later"] }, token: { answers: ["Skip"] } } });
  // The error names the question as the reader sees it (its header), never the internal id.
  assert.equal(buildAnswers(questions, { confirm_path: { choice: "No", note: "" } }).error,
    'Choose an option for "Token" or write a note.');
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
  assert.deepEqual([...new Set(sends)].sort(), ["answerApprovalMessage", "answerElicitationMessage",
    "answerPermissionsMessage", "answerUserInputMessage", "grantMessage", "readyMessage"]);
});

test("approval card: every offered decision with its own label, the rule it would add, cwd and network", () => {
  const card = cardModel({ id: "req-5", kind: "approval", turn_id: "t", call_id: "e1", deadline_ms: null,
    request: { type: "exec_approval_request", call_id: "e1", turn_id: "t", command: "curl example.com", cwd: "/w",
      reason: "fetch", network_approval_context: { host: "example.com", protocol: "https" }, available_decisions: [
        { key: "approve", decision: "approve", label: "Yes, run it once" },
        { key: "approve_with_execpolicy_amendment", decision: "approve_with_execpolicy_amendment",
          label: "Yes, and don't ask again for commands starting with `curl`", execpolicy_amendment: ["curl"] },
        { key: "apply_network_policy_amendment", decision: "apply_network_policy_amendment",
          label: "Yes, and always allow example.com (a saved rule)",
          network_policy_amendment: { host: "example.com", action: "allow" } },
        { key: "apply_network_policy_amendment:2", decision: "apply_network_policy_amendment",
          label: "No, and always block example.com (a saved rule)",
          network_policy_amendment: { host: "example.com", action: "deny" } },
        { key: "decline", decision: "decline", label: "No, skip this call (the turn goes on)" },
        { key: "cancel", decision: "cancel", label: "No, and stop the turn" }] } });
  assert.deepEqual(card.decisions.map((d) => d.decision), ["approve", "approve_with_execpolicy_amendment",
    "apply_network_policy_amendment", "apply_network_policy_amendment:2", "decline", "cancel"]);
  assert.equal(card.decisions[1].detail, "rule: allow commands starting with curl");
  assert.match(card.decisions[3].detail, /^rule: deny example.com \(saved/);
  assert.equal(card.network, "network: https://example.com");
  assert.equal(card.cwd, "/w");
  assert.deepEqual(answerApprovalMessage("req-5", "apply_network_policy_amendment:2"),
    { id: "req-5", kind: "answer_approval", decision: "apply_network_policy_amendment:2" });
  assert.equal(decisionDetail({}), "");
});

test("diff lines are classified for colouring; an added file is all additions", () => {
  assert.deepEqual(diffLines("update", "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same\n").map((l) => l.cls),
    ["meta", "meta", "hunk", "del", "add", "ctx"]);
  assert.deepEqual(diffLines("add", "a\nb\n"), [{ text: "+a", cls: "add" }, { text: "+b", cls: "add" }]);
  assert.deepEqual(diffLines("delete", "x"), [{ text: "-x", cls: "del" }]);
  assert.deepEqual(diffLines("update", ""), []);
});

test("permission grants: each part a checkbox; a subset is granted with its scope", () => {
  const grants = permissionGrants(PERMISSION.request.permissions);
  assert.deepEqual(grants.map((g) => g.label), ["read: /w/in", "write: /w/out", "network: enabled"]);
  assert.deepEqual(grantMessage("req-2", [grants[1]], "session"), { id: "req-2", kind: "answer_permissions",
    decision: { permissions: { file_system: { entries: [{ path: { type: "path", path: "/w/out" }, access: "write" }] } },
      scope: "session" } });
  assert.deepEqual(grantMessage("req-2", [grants[2]], "turn").decision,
    { permissions: { network: { enabled: true } }, scope: "turn" });
});

test("a non-blocking question says so", () => {
  const card = cardModel({ ...QUESTION, request: { ...QUESTION.request, isBlocking: false } });
  assert.equal(card.blocking, false);
  assert.match(card.waiting, /Not blocking/);
  assert.equal(cardModel(QUESTION).waiting, "The turn is waiting for your answer.");
});

const FORM = { id: "req-6", kind: "elicitation", turn_id: "t", call_id: "el-1", deadline_ms: null,
  request: { type: "elicitation_request", call_id: "el-1", turn_id: "t", server_name: "forms", mode: "form",
    message: "Your details", fields: [
      { name: "email", type: "string", title: "Email", required: true, format: "email" },
      { name: "age", type: "integer", required: false, minimum: 0, maximum: 150 },
      { name: "colour", type: "enum", required: true, options: [{ label: "Red", description: "red" }] },
      { name: "news", type: "boolean", required: false },
      { name: "tags", type: "multi_enum", required: false, max_items: 1,
        options: [{ label: "A", description: "a" }, { label: "B", description: "b" }] }] } };

test("form elicitation: fields, labels, validation naming the field, the content sent", () => {
  const card = cardModel(FORM);
  assert.equal(card.title, "forms asks for information");
  assert.deepEqual(card.fields.map((f) => f.label), ["Email", "age", "colour", "news", "tags"]);
  const ok = { email: "a@b.co", age: "42", colour: "red", news: true, tags: ["b"] };
  assert.deepEqual(buildElicitationContent(card.fields, ok),
    { content: { email: "a@b.co", age: 42, colour: "red", news: true, tags: ["b"] } });
  assert.deepEqual(buildElicitationContent(card.fields, { ...ok, email: "" }), { error: '"Email" is required.' });
  assert.deepEqual(buildElicitationContent(card.fields, { ...ok, email: "nope" }),
    { error: '"Email" must be an email address.' });
  assert.deepEqual(buildElicitationContent(card.fields, { ...ok, age: "200" }), { error: '"age" must be at most 150.' });
  assert.deepEqual(buildElicitationContent(card.fields, { ...ok, age: "1.5" }), { error: '"age" must be a whole number.' });
  assert.deepEqual(buildElicitationContent(card.fields, { ...ok, tags: ["a", "b"] }),
    { error: '"tags" takes at most 1 choices.' });
  assert.deepEqual(answerElicitationMessage("req-6", "decline"),
    { id: "req-6", kind: "answer_elicitation", action: "decline", content: null, persist: null });
  assert.throws(() => answerElicitationMessage("req-6", "open"), /unknown elicitation action/);
});

test("URL elicitation: the URL and its domain, no fields", () => {
  const card = cardModel({ ...FORM, request: { type: "elicitation_request", call_id: "el-2", turn_id: "t",
    server_name: "auth", mode: "url", message: "Sign in", url: "https://login.example.com/x?y=1",
    domain: "login.example.com" } });
  assert.deepEqual([card.title, card.url, card.domain, card.fields],
    ["auth asks you to open a page", "https://login.example.com/x?y=1", "login.example.com", []]);
});

test("an MCP tool-call approval: Codex's longer approvals each a button, no form", () => {
  const card = cardModel({ ...FORM, request: { type: "elicitation_request", call_id: "el-3", turn_id: "t",
    server_name: "forms", mode: "form", message: 'Allow the forms MCP server to run tool "sign_up"?', fields: [],
    tool_approval: { tool_name: "sign_up", tool_description: "Sign the user up.", tool_params: "{}",
      persist: ["session", "always"] } } });
  assert.equal(card.title, "Allow forms to run sign_up?");
  assert.deepEqual(card.approvals.map((a) => [a.persist, a.label]), [[null, "Yes, run it once"],
    ["session", "Yes, and don't ask again this session"], ["always", "Yes, and always allow this tool"]]);
  assert.deepEqual(card.fields, []);
  assert.deepEqual(answerElicitationMessage("req-7", "accept", {}, "always"),
    { id: "req-7", kind: "answer_elicitation", action: "accept", content: {}, persist: "always" });
});
