import { test } from "node:test";
import assert from "node:assert/strict";
import { turnDiffFiles } from "../diff_view.js";
import { transcriptRow } from "../transcript_view.js";

const DIFF = [
  "diff --git a/app.py b/app.py",
  "index 7ed6ff8..e3d1f02 100644",
  "--- a/app.py",
  "+++ b/app.py",
  "@@ -1 +1,2 @@",
  "-x = 1",
  "+x = 2",
  "+y = 3",
  "diff --git a/notes.txt b/notes.txt",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/notes.txt",
  "@@ -0,0 +1,2 @@",
  "+first",
  "++++ a line that starts with pluses",
  "",
].join("\n");

test("a turn's diff reads as its files, each with added and removed lines and coloured lines", () => {
  const files = turnDiffFiles(DIFF);
  assert.deepEqual(files.map((f) => [f.path, f.kind, f.added, f.removed]), [
    ["app.py", "update", 2, 1],
    ["notes.txt", "add", 2, 0],
  ]);
  assert.deepEqual(files[0].lines.map((l) => l.cls), ["ctx", "ctx", "meta", "meta", "hunk", "del", "add", "add"]);
});

test("a deleted file, a plain ---/+++ diff and an empty diff", () => {
  const deleted = "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n";
  assert.deepEqual(turnDiffFiles(deleted).map((f) => [f.path, f.kind, f.removed]), [["old.txt", "delete", 1]]);
  const plain = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n";
  assert.deepEqual(turnDiffFiles(plain).map((f) => f.path), ["x", "y"]);
  assert.deepEqual(turnDiffFiles(""), []);
});

test("the transcript's diff entry says what changed and carries its files", () => {
  const row = transcriptRow({ kind: "diff", id: "diff-t1", text: DIFF, status: "done",
                              title: "2 files changed, +4 -1", detail: "" });
  assert.equal(row.label, "What changed · 2 files changed, +4 -1");
  assert.equal(row.live, false);
  assert.deepEqual(row.files?.map((f) => f.path), ["app.py", "notes.txt"]);
});
