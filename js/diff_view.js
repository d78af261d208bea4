// A turn's unified diff -> its files, each with its added and removed lines and its lines
// classified for colouring (no DOM; tested with node --test). The transcript's "what changed"
// entry reads it; the colouring is the approval cards' (diffLines), so both look the same.
import { diffLines } from "./prompts_view.js";

/** @typedef {{path: string, kind: string, added: number, removed: number, lines: {text: string, cls: string}[]}} DiffFileView */

/** @param {string} line */
function headerPath(line) {
  const name = line.slice(4).split("\t")[0].trim();
  if (name === "/dev/null") return null;
  return name.startsWith("a/") || name.startsWith("b/") ? name.slice(2) : name;
}

/**
 * The files of a unified (git-style) diff in order, as the kernel's `diff_files` reads them.
 * @param {string} text
 * @returns {DiffFileView[]}
 */
export function turnDiffFiles(text) {
  const lines = (text ?? "").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const git = lines.some((l) => l.startsWith("diff --git "));
  /** @type {string[][]} */
  const chunks = [];
  lines.forEach((line, i) => {
    const header = git
      ? line.startsWith("diff --git ")
      : line.startsWith("--- ") && i + 1 < lines.length && lines[i + 1].startsWith("+++ ");
    if (header || chunks.length === 0) chunks.push([]);
    chunks[chunks.length - 1].push(line);
  });
  /** @type {DiffFileView[]} */
  const files = [];
  for (const chunk of chunks) {
    if (!chunk.some((l) => /^(@@|--- |\+\+\+ |diff --git |Binary files)/.test(l))) continue;
    /** @type {string | null | undefined} */
    let oldPath;
    /** @type {string | null | undefined} */
    let newPath;
    let added = 0;
    let removed = 0;
    let inHunk = false;
    for (const line of chunk) {
      if (line.startsWith("@@")) inHunk = true;
      else if (!inHunk && line.startsWith("--- ")) oldPath = headerPath(line) ?? "";
      else if (!inHunk && line.startsWith("+++ ")) newPath = headerPath(line) ?? "";
      else if (inHunk && line.startsWith("+")) added += 1;
      else if (inHunk && line.startsWith("-")) removed += 1;
    }
    if (oldPath === undefined && newPath === undefined && chunk[0].startsWith("diff --git ")) {
      const parts = chunk[0].split(" b/");
      newPath = parts.length >= 2 ? parts.slice(1).join(" b/") : chunk[0].slice("diff --git ".length);
    }
    const kind = oldPath === "" ? "add" : newPath === "" ? "delete" : "update";
    const path = (newPath || oldPath || "").trim();
    files.push({ path, kind, added, removed, lines: diffLines("update", chunk.join("\n")) });
  }
  return files;
}
