// An ACP permission request's card: requestDetails (what to draw, bounded) and permissionDetailsBlock
// (the drawing). Node has no DOM: a small stand-in of document.createElement records the tree the
// drawing builds (elements, classes, attributes, text nodes); the browser test draws the real one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_CARD_DIFF_LINES, MAX_CARD_PATHS, cardModel, diffLines, requestDetails } from "../prompts_view.js";

class Text { constructor(text) { this.text = text; } }
class Element {
  constructor(tag) { this.tagName = tag.toUpperCase(); this.className = ""; this.attributes = {}; this.dataset = {}; this.childNodes = []; }
  append(...nodes) { for (const n of nodes) this.childNodes.push(typeof n === "string" ? new Text(n) : n); }
  setAttribute(k, v) { this.attributes[k] = String(v); }
  set textContent(v) { this.childNodes = [new Text(String(v))]; }
  get textContent() { return this.childNodes.map((n) => (n instanceof Text ? n.text : n.textContent)).join(""); }
  get children() { return this.childNodes.filter((n) => n instanceof Element); }
  get firstElementChild() { return this.children[0] ?? null; }
  /** every element below, depth first */
  all() { return this.children.flatMap((c) => [c, ...c.all()]); }
  byClass(cls) { return this.all().filter((e) => e.className.split(" ").includes(cls)); }
}
globalThis.document = { createElement: (tag) => new Element(tag) };
const { permissionDetailsBlock } = await import("../permission_details.js");

const DETAILS = {
  text: "The agent asks for permission: Edit file",
  paths: [
    { path: "/w/a.py", outside: false, line: 3 },
    { path: "/etc/<img src=x onerror=alert(1)>.py", outside: true, line: null },
  ],
  more_paths: 0,
  command: "rm -rf <b>build</b>",
  diffs: [{ path: "/etc/<img src=x onerror=alert(1)>.py", kind: "update", diff: "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c" }],
  more_diffs: 0,
};
const PENDING = {
  id: "req-1", kind: "user_input", turn_id: "t", call_id: "c", deadline_ms: null, details: DETAILS,
  request: { type: "request_user_input", call_id: "c", turn_id: "t", questions: [
    { id: "permission", header: "Permission", question: "The agent asks for permission: Edit file\nPath: /w/a.py:3",
      isOther: false, isSecret: false, options: [{ label: "Allow", description: "allow_once" }] },
  ] },
};

test("a permission request's question shows its text without the lines the card draws", () => {
  const card = cardModel(PENDING);
  assert.equal(card.title, "Allow this tool call?");
  assert.equal(card.questions[0].question, "The agent asks for permission: Edit file");
  assert.equal(card.questions[0].details.warning, "1 path lies outside the session folder");
  assert.deepEqual(card.questions[0].details.paths.map((p) => [p.where, p.outside]),
    [["/w/a.py:3", false], ["/etc/<img src=x onerror=alert(1)>.py", true]]);
});

test("a question without details (Codex's) is drawn as before", () => {
  const { details: _, ...codex } = PENDING;
  const card = cardModel(codex);
  assert.equal(card.title, "The model asks");
  assert.equal(card.questions[0].question, PENDING.request.questions[0].question);
  assert.equal(card.questions[0].details, null);
  assert.equal(requestDetails({ text: "x", paths: [], diffs: [], command: null }), null);
  assert.equal(requestDetails("junk"), null);
});

test("the diff is classified as a Codex file-change approval's", () => {
  const [change] = requestDetails(DETAILS).changes;
  assert.deepEqual(change.lines, diffLines("update", DETAILS.diffs[0].diff));
  assert.deepEqual(change.lines.map((l) => l.cls), ["meta", "meta", "hunk", "ctx", "del", "add"]);
});

test("the card is bounded whatever arrives: paths, diff lines and files past the limits are counted", () => {
  const many = {
    text: "t", command: null, more_paths: 7, more_diffs: 2,
    paths: Array.from({ length: 10_000 }, (_, i) => ({ path: `/p${i}`, outside: true, line: null })),
    diffs: Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, kind: "add", diff: "+y\n".repeat(300) })),
  };
  const d = requestDetails(many);
  assert.equal(d.paths.length, MAX_CARD_PATHS);
  assert.equal(d.morePaths, 10_000 - MAX_CARD_PATHS + 7);
  assert.equal(d.changes.reduce((n, c) => n + c.lines.length, 0), MAX_CARD_DIFF_LINES + 1);  // + "... n more lines"
  assert.equal(d.changes.at(-1).lines.at(-1).text, "... 200 more lines");
  assert.equal(d.moreDiffs, 2 + 3);
  const block = permissionDetailsBlock(d);
  assert.ok(block.all().length < 1500, block.all().length);
  assert.equal(block.byClass("cx-more")[0].textContent, `... and ${d.morePaths} more paths`);
  assert.equal(block.byClass("cx-more").at(-1).textContent, "... and 5 more files' diffs");
});

test("paths left out still count: those outside the session folder join the warning", () => {
  const d = requestDetails({ ...DETAILS, more_paths: 30, more_outside: 2, unchecked: 5 });
  assert.equal(d.moreNote, " (2 outside the session folder, 5 not checked)");
  assert.equal(d.warning, "3 paths lie outside the session folder");
  const block = permissionDetailsBlock(d);
  assert.equal(block.byClass("cx-more")[0].textContent, "... and 30 more paths (2 outside the session folder, 5 not checked)");
  assert.equal(requestDetails({ ...DETAILS, more_outside: "2", unchecked: -1 }).moreNote, "");
});

test("the drawing: a warning, each path with outside ones badged, the command, the diff coloured", () => {
  const block = permissionDetailsBlock(requestDetails(DETAILS));
  assert.equal(block.className, "cx-permission-details");
  const [warning] = block.byClass("cx-outside-warning");
  assert.equal(warning.attributes.role, "note");
  assert.match(warning.textContent, /1 path lies outside the session folder/);
  const paths = block.byClass("cx-path");
  assert.deepEqual(paths.map((p) => [p.dataset.outside, p.className]),
    [["false", "cx-path"], ["true", "cx-path cx-path-outside"]]);
  assert.equal(paths[1].byClass("cx-outside-badge")[0].textContent, "outside the session folder");
  assert.equal(paths[0].byClass("cx-outside-badge").length, 0);
  assert.equal(block.byClass("cx-command")[0].textContent, "rm -rf <b>build</b>");
  const [file] = block.byClass("cx-file-diff");  // diffBlock's, as on a Codex approval card
  assert.equal(file.dataset.path, DETAILS.diffs[0].path);
  assert.deepEqual(file.byClass("cx-diff-line").map((s) => s.className.split(" ")[1]),
    ["cx-diff-meta", "cx-diff-meta", "cx-diff-hunk", "cx-diff-ctx", "cx-diff-del", "cx-diff-add"]);
});

test("what the agent sent is text, never markup", () => {
  const block = permissionDetailsBlock(requestDetails(DETAILS));
  const tags = new Set(block.all().map((e) => e.tagName));
  assert.ok(!tags.has("IMG") && !tags.has("B"), [...tags].join());
  assert.ok(block.textContent.includes("/etc/<img src=x onerror=alert(1)>.py"));
});
