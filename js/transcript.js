// The transcript view: rows keyed by entry id, updated in place as text streams.
// State comes only from synced traits (entries, status, error); nothing is sent back.
import { transcriptView } from "./transcript_view.js";
import { diffBlock } from "./diff_block.js";

/**
 * The "what changed" entry: a collapsible list of the turn's files, each a collapsed block of its
 * coloured lines; redrawn only when the diff changes, keeping what the person opened or closed.
 * @param {HTMLElement} holder @param {import("./transcript_view.js").TranscriptRow} row
 */
function drawDiff(holder, row) {
  if (holder.dataset.diff === row.text) return;
  const before = /** @type {HTMLDetailsElement | null} */ (holder.querySelector(":scope > details"));
  const opened = new Set([...holder.querySelectorAll("details.cx-file-diff[open]")].map(
    (d) => /** @type {HTMLElement} */ (d).dataset.path));
  const details = document.createElement("details");
  details.className = "cx-turn-diff";
  details.open = before ? before.open : true;
  const summary = document.createElement("summary");
  const count = row.files?.length ?? 0;
  summary.textContent = `${count} file${count === 1 ? "" : "s"} (open one for its lines)`;
  details.append(summary);
  for (const file of row.files ?? []) details.append(diffBlock(file, { open: opened.has(file.path) }));
  holder.replaceChildren(details);
  holder.dataset.diff = row.text;
}

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
    const root = document.createElement("div");
    root.className = "cx-transcript";
    const header = document.createElement("div");
    header.className = "cx-transcript-header";
    header.setAttribute("role", "status");
    const folded = document.createElement("div");
    folded.className = "cx-transcript-folded";
    const list = document.createElement("ol");
    list.className = "cx-transcript-rows";
    root.append(header, folded, list);
    el.append(root);
    /** @type {Map<string, {li: HTMLLIElement, label: HTMLElement, text: HTMLElement, detail: HTMLElement}>} */
    const rows = new Map();

    /** @param {import("./transcript_view.js").TranscriptRow} row */
    const make = (row) => {
      const li = document.createElement("li");
      const label = document.createElement("span");
      label.className = "cx-transcript-label";
      const detail = document.createElement("code");
      detail.className = "cx-transcript-detail";
      const text = document.createElement("div");
      text.className = "cx-transcript-text";
      li.append(label, detail, text);
      return { li, label, text, detail };
    };

    const draw = () => {
      const view = transcriptView({
        entries: model.get("entries") ?? [],
        status: model.get("status"),
        error: model.get("error"),
        earlier: model.get("earlier"),
        title: model.get("title"),
      });
      header.textContent = view.header;
      folded.textContent = view.folded;
      folded.hidden = !view.folded;
      root.dataset.status = view.status;
      const seen = new Set();
      /** @type {HTMLLIElement | null} */
      let previous = null;
      for (const row of view.rows) {
        seen.add(row.key);
        let dom = rows.get(row.key);
        if (!dom) {
          dom = make(row);
          rows.set(row.key, dom);
        }
        dom.li.className = `cx-transcript-row cx-kind-${row.kind}`;
        dom.li.dataset.status = row.status;
        dom.li.dataset.live = String(row.live);
        if (dom.label.textContent !== row.label) dom.label.textContent = row.label;
        if (dom.detail.textContent !== row.detail) dom.detail.textContent = row.detail;
        if (row.kind === "diff") drawDiff(dom.text, row);
        else if (dom.text.textContent !== row.text) dom.text.textContent = row.text;
        /** @type {ChildNode | null} */
        const anchor = previous ? previous.nextSibling : list.firstChild;
        if (anchor !== dom.li) list.insertBefore(dom.li, anchor);
        previous = dom.li;
      }
      for (const [key, dom] of rows) {
        if (!seen.has(key)) {
          dom.li.remove();
          rows.delete(key);
        }
      }
    };
    const traits = ["entries", "status", "error", "earlier", "title"];
    for (const name of traits) model.on(`change:${name}`, draw);
    draw();
    return () => {
      for (const name of traits) model.off(`change:${name}`, draw);
    };
  },
};
