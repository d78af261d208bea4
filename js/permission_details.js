// What an ACP agent's permission request is about, drawn inside its question card: the paths (each
// one outside the session folder marked by a badge, a colour and a warning above the list), the
// command, and each file's diff drawn by diffBlock as a Codex file-change approval's is. Everything
// the agent sent goes in as text (textContent), never as HTML.
import { diffBlock } from "./diff_block.js";
import { el as element } from "./dom.js";

/**
 * dom.js's element with children appended (text or nodes).
 * @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {string} cls @param {(Node | string)[]} children
 */
function el(tag, cls, children = []) {
  const node = element(tag, cls);
  node.append(...children);
  return node;
}

/**
 * @param {{warning: string | null, paths: {where: string, outside: boolean}[], morePaths: number, moreNote: string,
 *          command: string | null, changes: {path: string, kind: string, lines: {text: string, cls: string}[]}[],
 *          moreDiffs: number}} details ``requestDetails(...)`` of prompts_view.js
 */
export function permissionDetailsBlock(details) {
  const box = el("div", "cx-permission-details");
  if (details.warning) {
    const warning = el("div", "cx-outside-warning", [el("span", "cx-outside-icon", ["\u26a0"]), ` ${details.warning}`]);
    warning.setAttribute("role", "note");
    warning.firstElementChild?.setAttribute("aria-hidden", "true");
    box.append(warning);
  }
  if (details.paths.length || details.morePaths) {
    const list = el("ul", "cx-paths");
    list.setAttribute("aria-label", "Paths");
    for (const p of details.paths) {
      const item = el("li", p.outside ? "cx-path cx-path-outside" : "cx-path", [el("code", "cx-path-name", [p.where])]);
      item.dataset.outside = String(p.outside);
      if (p.outside) item.append(" ", el("span", "cx-outside-badge", ["outside the session folder"]));
      list.append(item);
    }
    if (details.morePaths) list.append(el("li", "cx-path cx-more", [`... and ${details.morePaths} more paths${details.moreNote}`]));
    box.append(list);
  }
  if (details.command !== null) box.append(el("pre", "cx-command", [details.command]));
  for (const change of details.changes) box.append(diffBlock(change));
  if (details.moreDiffs) box.append(el("div", "cx-more", [`... and ${details.moreDiffs} more files' diffs`]));
  return box;
}
