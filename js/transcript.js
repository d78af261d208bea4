// The transcript view: rows keyed by entry id, updated in place as text streams.
// State comes from synced traits (entries, status, error, can_override, review_error,
// rewind_turns, rewind_note); two messages go back, each after the person confirmed it: an
// override of a denial by Codex's automatic review, and "rewind" (to before a turn).
import { offersRewind, transcriptView } from "./transcript_view.js";
import { rewindConfirm } from "./rewind_confirm.js";
import { TRANSCRIPT_TO_KERNEL, newRequestId } from "./protocol.js";
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

/**
 * A denied review's override: a button, then a confirmation saying what it does, then the
 * message. Drawn once per row and kept while the row stays overridable.
 * @param {HTMLElement} holder @param {import("./transcript_view.js").TranscriptRow} row @param {any} model
 */
function drawOverride(holder, row, model) {
  if (!row.overridable) {
    holder.replaceChildren();
    return;
  }
  // an override Codex refused (review_error says why) may be tried again
  if (model.get("review_error") && holder.querySelector("button:disabled")) holder.replaceChildren();
  if (holder.childElementCount) return;
  const ask = document.createElement("button");
  ask.type = "button";
  ask.className = "cx-review-override";
  ask.textContent = "Override denial";
  ask.addEventListener("click", () => {
    const note = document.createElement("span");
    note.className = "cx-review-confirm-text";
    note.textContent = "Codex will tell the agent you approved this exact action; it may then run it. ";
    const yes = document.createElement("button");
    yes.type = "button";
    yes.className = "cx-review-confirm";
    yes.textContent = "Approve it";
    const no = document.createElement("button");
    no.type = "button";
    no.className = "cx-review-cancel";
    no.textContent = "Cancel";
    yes.addEventListener("click", () => {
      yes.disabled = no.disabled = true;
      model.send({ kind: "override_review", id: row.reviewId });
    });
    no.addEventListener("click", () => holder.replaceChildren(ask));
    holder.replaceChildren(note, yes, no);
  });
  holder.replaceChildren(ask);
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
    const reviewError = document.createElement("div");
    reviewError.className = "cx-transcript-review-error";
    reviewError.setAttribute("role", "alert");
    const note = document.createElement("div");
    note.className = "cx-transcript-rewind-note";
    note.setAttribute("role", "status");
    // one confirmation at a time: what a rewind to before a turn undoes, then Rewind or Cancel
    const confirm = rewindConfirm({
      className: "cx-transcript-confirm",
      turns: () => model.get("rewind_turns") ?? [],
      rewind: (turn) => model.send({ id: newRequestId(), kind: TRANSCRIPT_TO_KERNEL.rewind, turn }),
    });
    root.append(header, folded, list, confirm.box, note, reviewError);
    const ask = confirm.ask;
    el.append(root);
    /** @type {Map<string, {li: HTMLLIElement, label: HTMLElement, text: HTMLElement, detail: HTMLElement, rewind: HTMLButtonElement | null, actions: HTMLElement | null}>} */
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
      // a row's kind never changes, so only the person's words get a rewind button and only a
      // review its actions: a thousand tool rows stay as small as before
      /** @type {HTMLButtonElement | null} */
      let rewind = null;
      if (row.kind === "user") {
        rewind = document.createElement("button");
        rewind.type = "button";
        rewind.className = "cx-transcript-rewind";
        rewind.textContent = "Rewind to here";
        rewind.title = "Undo this turn and every later one (asks first)";
        rewind.hidden = true;
        rewind.addEventListener("click", () => {
          if (li.dataset.turn) ask(li.dataset.turn);
        });
      }
      /** @type {HTMLElement | null} */
      let actions = null;
      if (row.kind === "review") {
        actions = document.createElement("div");
        actions.className = "cx-transcript-actions";
      }
      li.append(...[label, rewind, detail, text, actions].filter((n) => n !== null));
      return { li, label, text, detail, rewind, actions };
    };

    const draw = () => {
      const view = transcriptView({
        entries: model.get("entries") ?? [],
        status: model.get("status"),
        error: model.get("error"),
        earlier: model.get("earlier"),
        canOverride: model.get("can_override"),
        title: model.get("title"),
      });
      reviewError.textContent = model.get("review_error") ?? "";
      reviewError.hidden = !reviewError.textContent;
      header.textContent = view.header;
      folded.textContent = view.folded;
      folded.hidden = !view.folded;
      root.dataset.status = view.status;
      const turns = /** @type {string[]} */ (model.get("rewind_turns") ?? []);
      confirm.follow();  // the turn went meanwhile: nothing to confirm
      note.textContent = model.get("rewind_note") ?? "";
      note.hidden = !note.textContent;
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
        dom.li.dataset.turn = row.turn ?? "";
        dom.li.classList.toggle("cx-rewound", Boolean(row.rewound));
        if (dom.rewind) dom.rewind.hidden = !offersRewind(row, turns);
        if (dom.label.textContent !== row.label) dom.label.textContent = row.label;
        if (dom.detail.textContent !== row.detail) dom.detail.textContent = row.detail;
        if (row.kind === "diff") drawDiff(dom.text, row);
        else if (dom.text.textContent !== row.text) dom.text.textContent = row.text;
        if (dom.actions) drawOverride(dom.actions, row, model);
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
    const traits = ["entries", "status", "error", "earlier", "can_override", "review_error", "rewind_turns", "rewind_note", "title"];
    for (const name of traits) model.on(`change:${name}`, draw);
    draw();
    return () => {
      for (const name of traits) model.off(`change:${name}`, draw);
    };
  },
};
