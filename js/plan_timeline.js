// The PlanTimelineWidget anywidget view: the list of plan revisions (a listbox: click, or
// ArrowUp/ArrowDown/Home/End) beside the checklist of the selected one. The kernel owns the
// selection: the view asks with a `select` request and draws what the synced state says.
// Text is set with textContent only, so HTML in a step is shown as text.
// Plain ES module; the kernel inlines protocol.js, plan_view.js and plan_timeline_view.js.
import { el } from "./dom.js";
import { TIMELINE_TO_KERNEL, TIMELINE_TO_VIEW, timelineRequest } from "./protocol.js";
import { nextSelection, rewindTurn, timelineView } from "./plan_timeline_view.js";
import { rewindConfirm } from "./rewind_confirm.js";

/**
 * The subset of the anywidget model API this view uses.
 * @typedef {object} TimelineModel
 * @property {(key: string) => any} get
 * @property {(msg: object) => void} send
 * @property {(name: string, cb: (...args: any[]) => void) => void} on
 * @property {(name: string, cb: (...args: any[]) => void) => void} off
 */

const TIMELINE_KEYS = /** @type {const} */ ([
  "entries",
  "hidden",
  "newer",
  "notes",
  "selected",
  "snapshot",
  "proposals",
  "no_plan",
  "goals",
  "rewind_turns",
  "rewind_note",
  "protocol_error",
]);

function timelineSkeleton() {
  const root = el("section", "codex-timeline");
  root.setAttribute("aria-label", "Plan history");
  const side = el("div", "codex-timeline-side");
  const notes = el("div", "codex-timeline-notes");
  notes.setAttribute("role", "status");
  const noPlan = el("p", "codex-timeline-no-plan");
  noPlan.setAttribute("role", "status");
  const list = el("ul", "codex-timeline-list");
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Plan revisions");
  list.tabIndex = 0;
  // Arrow keys select revisions here: the notebook's own shortcuts (ArrowUp moves to the
  // previous cell in Notebook 7's command mode) must not take them first (Lumino's opt-out).
  list.dataset.lmSuppressShortcuts = "true";
  const proposals = el("div", "codex-timeline-proposals");
  proposals.setAttribute("aria-label", "Proposed plans");
  const goals = el("ol", "codex-timeline-goals");
  goals.setAttribute("aria-label", "Goal");
  side.append(noPlan, notes, list, goals, proposals);
  const detail = el("div", "codex-plan codex-timeline-detail");
  const heading = el("div", "codex-plan-header codex-timeline-heading");
  heading.setAttribute("role", "heading");
  heading.setAttribute("aria-level", "3");
  const summary = el("div", "codex-timeline-summary");
  const rewind = el("button", "codex-timeline-rewind", "Rewind to here");
  rewind.setAttribute("type", "button");
  rewind.title = "Undo this revision's turn and every later one (asks first)";
  rewind.hidden = true;
  const rewindNote = el("div", "codex-timeline-rewind-note");
  rewindNote.setAttribute("role", "status");
  const body = el("div", "codex-plan-body");
  const removed = el("ul", "codex-timeline-removed");
  removed.setAttribute("aria-label", "Removed steps");
  const protocolError = el("div", "codex-plan-protocol-error");
  protocolError.setAttribute("role", "status");
  detail.append(heading, rewind, summary, body, removed, rewindNote, protocolError);
  root.append(side, detail);
  return { root, notes, noPlan, list, goals, proposals, detail, heading, rewind, rewindNote, summary, body, removed, protocolError };
}

/**
 * @param {ReturnType<typeof timelineSkeleton>} parts
 * @param {ReturnType<typeof timelineView>} view
 * @param {boolean} listChanged  false: the same page, only the selection may have moved
 */
function drawTimeline(parts, view, listChanged) {
  parts.notes.replaceChildren(
    ...[...view.notes, view.hiddenText, view.emptyText].filter(Boolean).map((t) => el("p", "", t)),
  );
  if (listChanged) {
    const options = view.items.map((item) => {
      const option = el("li", "codex-timeline-item");
      option.id = item.id;
      option.dataset.index = String(item.index);
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", String(item.selected));
      if (item.regression) option.dataset.regression = "true";
      if (item.rewound) option.dataset.rewound = "true";
      option.append(
        el("span", "codex-timeline-label", item.label),
        el("span", "codex-timeline-detail-text", item.detail),
      );
      return option;
    });
    parts.list.replaceChildren(...options);
  } else {
    // A selection on the same page: move the mark, keep the page's nodes (one frame, any page size).
    parts.list.querySelector('[aria-selected="true"]')?.setAttribute("aria-selected", "false");
    const chosen = view.items.find((i) => i.selected);
    if (chosen) parts.list.querySelector(`#${chosen.id}`)?.setAttribute("aria-selected", "true");
  }
  parts.noPlan.textContent = view.noPlan;
  parts.noPlan.hidden = !view.noPlan;
  // No revision to show: no empty "(no plan yet)" box beside the list (the side says why).
  parts.detail.hidden = view.items.length === 0 && !view.protocolError && !view.rewindNote;
  parts.proposals.replaceChildren(
    ...view.proposals.map((p) => {
      const card = el("article", "codex-timeline-proposal");
      card.id = p.id;
      card.append(el("div", "codex-timeline-proposal-heading", p.heading));
      if (p.state) card.append(el("div", "codex-timeline-proposal-state", p.state));
      card.append(el("pre", "codex-timeline-proposal-text", p.text));
      return card;
    }),
  );
  parts.goals.replaceChildren(
    ...view.goals.map((g) => {
      const item = el("li", "codex-timeline-goal");
      item.id = g.id;
      item.dataset.status = g.status;
      item.append(el("span", "codex-timeline-goal-line", g.line), el("span", "codex-timeline-goal-detail", g.detail));
      return item;
    }),
  );
  parts.goals.hidden = view.goals.length === 0;
  parts.rewindNote.textContent = view.rewindNote;
  parts.rewindNote.hidden = !view.rewindNote;
  const active = view.items.find((i) => i.selected);
  if (active) parts.list.setAttribute("aria-activedescendant", active.id);
  else parts.list.removeAttribute("aria-activedescendant");
  parts.list.querySelector('[aria-selected="true"]')?.scrollIntoView?.({ block: "nearest" });

  parts.heading.textContent = view.heading;
  parts.summary.textContent = view.summary;
  const fragment = document.createDocumentFragment();
  const checklist = view.checklist;
  if (view.shown === null) fragment.append(el("p", "codex-plan-placeholder", checklist.placeholder ?? ""));
  if (checklist.explanation) fragment.append(el("p", "codex-plan-explanation", checklist.explanation));
  if (checklist.empty) fragment.append(el("p", "codex-plan-empty", checklist.emptyText));
  if (checklist.rows.length > 0) {
    const steps = el("ol", "codex-plan-steps");
    steps.setAttribute("aria-label", "Plan steps");
    checklist.rows.forEach((row, i) => {
      const item = el("li", row.className);
      item.dataset.status = row.status;
      const glyph = el("span", "codex-plan-glyph", `${row.glyph} `);
      glyph.setAttribute("aria-hidden", "true");
      item.append(glyph, el("span", "codex-plan-sr", `${row.statusLabel}: `), el("span", "codex-plan-text", row.text));
      if (view.changes[i]) {
        const change = el("span", "codex-timeline-change", view.changes[i]);
        if (view.regressions[i]) change.dataset.regression = "true";
        item.append(change);
      }
      steps.append(item);
    });
    fragment.append(steps);
  }
  parts.body.replaceChildren(fragment);
  parts.removed.replaceChildren(...view.removed.map((t) => el("li", "codex-timeline-removed-step", t)));
  parts.removed.hidden = view.removed.length === 0;
  parts.protocolError.textContent = view.protocolError;
  parts.protocolError.hidden = !view.protocolError;
}

/** @param {{model: TimelineModel, el: HTMLElement}} ctx */
function render({ model, el: host }) {
  const controller = new AbortController();
  const { signal } = controller;
  const parts = timelineSkeleton();
  host.replaceChildren(parts.root);
  /** @type {ReturnType<typeof timelineView>} */
  let view = timelineView({});
  /** @type {unknown} */
  let drawnEntries = null;
  // A kernel answered this view's hello: only then is "Rewind to here" offered (a view restored
  // from a saved notebook has no kernel to rewind with).
  let live = false;
  /** @type {string | null} */
  let offered = null;
  const confirm = rewindConfirm({
    className: "codex-timeline-confirm",
    turns: () => /** @type {string[]} */ (model.get("rewind_turns") ?? []),
    rewind: (turn) => model.send(timelineRequest(TIMELINE_TO_KERNEL.rewind, { turn })),
  });
  parts.rewindNote.before(confirm.box);

  /** @type {[unknown, unknown]} */
  let parsed = [null, []];
  // The kernel sends the page of entries as one JSON string; parse each new one once.
  /** @param {unknown} raw */
  const pageOf = (raw) => {
    if (typeof raw !== "string") return raw;
    if (parsed[0] !== raw) {
      try {
        parsed = [raw, JSON.parse(raw)];
      } catch {
        parsed = [raw, []];
      }
    }
    return parsed[1];
  };
  const readTimeline = () => {
    /** @type {Record<string, unknown>} */
    const state = {};
    for (const key of TIMELINE_KEYS) state[key] = key === "entries" ? pageOf(model.get(key)) : model.get(key);
    return /** @type {Partial<import("./plan_timeline_view.js").TimelineState>} */ (state);
  };
  const update = () => {
    if (signal.aborted) return;
    const state = readTimeline();
    view = timelineView(state);
    // anywidget hands back the same array until the kernel sends a new one
    const listChanged = state.entries !== drawnEntries;
    drawnEntries = state.entries;
    drawTimeline(parts, view, listChanged);
    offered = rewindTurn(state, live);
    parts.rewind.hidden = offered === null;
    confirm.follow();
  };
  /** @param {number | null} index */
  const select = (index) => model.send(timelineRequest(TIMELINE_TO_KERNEL.select, { index }));

  /** @param {MouseEvent} event */
  const onClick = (event) => {
    const target = /** @type {HTMLElement | null} */ (event.target);
    const option = target?.closest?.(".codex-timeline-item");
    if (!(option instanceof HTMLElement)) return;
    parts.list.focus();
    select(Number(option.dataset.index));
  };
  /** @param {KeyboardEvent} event */
  const onKey = (event) => {
    const state = readTimeline();
    const to = nextSelection(event.key, state.entries ?? [], view.following ? null : view.shown, state);
    if (to === undefined) return;
    event.preventDefault();
    select(to);
  };
  /** @param {any} msg */
  const onReply = (msg) => {
    if (signal.aborted || !msg) return;
    if (!live && (msg.kind === TIMELINE_TO_VIEW.ack || msg.kind === TIMELINE_TO_VIEW.error)) {
      live = true;  // any answer says a kernel is there
      update();
    }
    if (msg.kind !== TIMELINE_TO_VIEW.error) return;
    console.warn("codex_nb plan timeline: the kernel rejected a message:", msg.message);
  };

  parts.rewind.addEventListener("click", () => { if (offered) confirm.ask(offered); }, { signal });
  parts.list.addEventListener("click", onClick, { signal });
  parts.list.addEventListener("keydown", onKey, { signal });
  model.on("change", update);
  model.on("msg:custom", onReply);
  signal.addEventListener("abort", () => {
    model.off("change", update);
    model.off("msg:custom", onReply);
    host.replaceChildren();
  });
  update();
  model.send(timelineRequest(TIMELINE_TO_KERNEL.hello));
  return () => controller.abort();
}

export default { render };
