// The PlanChecklist anywidget view: renders the latest plan snapshot from the synced
// traits. Each change replaces the whole list (never a merge). Step text is set with
// textContent only, so HTML in a step is shown as text.
// Plain ES module; the kernel inlines protocol.js and plan_view.js into one _esm string.
import { CHECKLIST_TO_KERNEL, CHECKLIST_TO_VIEW, checklistRequest } from "./protocol.js";
import { checklistView } from "./plan_view.js";

/** @typedef {import("./plan_view.js").ChecklistState} ChecklistState */

/**
 * The subset of the anywidget model API this view uses.
 * @typedef {object} AnyModel
 * @property {(key: string) => any} get
 * @property {(msg: object) => void} send
 * @property {(name: string, cb: (...args: any[]) => void) => void} on
 * @property {(name: string, cb: (...args: any[]) => void) => void} off
 */

const STATE_KEYS = /** @type {const} */ ([
  "explanation", "steps", "thread_id", "turn_id", "revision", "turn_status", "error", "protocol_error", "no_plan",
]);

/**
 * @param {AnyModel} model
 * @returns {Partial<ChecklistState>}
 */
function readState(model) {
  /** @type {Record<string, unknown>} */
  const state = {};
  for (const key of STATE_KEYS) state[key] = model.get(key);
  return /** @type {Partial<ChecklistState>} */ (state);
}

/**
 * @param {string} tag
 * @param {string} className
 * @param {string} [text]
 */
function h(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Build the static skeleton once per view; `draw` fills it on every change.
 * The controls slot is left alone by `draw` (for the turn controls of another widget).
 */
function skeleton() {
  const root = h("section", "codex-plan");
  const header = h("div", "codex-plan-header");
  header.setAttribute("role", "heading");
  header.setAttribute("aria-level", "3");
  header.append(h("span", "codex-plan-bullet", "\u2022 "), h("span", "codex-plan-title"));
  const counter = h("span", "codex-plan-counter");
  counter.setAttribute("aria-live", "polite");
  header.append(counter);
  const turn = h("span", "codex-plan-turn");
  header.append(turn);
  const body = h("div", "codex-plan-body");
  const error = h("div", "codex-plan-error");
  error.setAttribute("role", "alert");
  const protocolError = h("div", "codex-plan-protocol-error");
  protocolError.setAttribute("role", "status");
  const controls = h("div", "codex-plan-controls");
  root.append(header, body, error, protocolError, controls);
  /** Set by render: show every step of a long plan from now on. */
  let expand = () => {};
  return {
    root, header, counter, turn, body, error, protocolError, controls,
    expand: () => expand(),
    /** @param {() => void} fn */
    onExpand: (fn) => { expand = fn; },
  };
}

/**
 * A fold line of a long plan, with the button that shows every step.
 * @param {string} text
 * @param {ReturnType<typeof skeleton>} parts
 * @param {number} total
 */
function fold(text, parts, total) {
  const line = h("div", "codex-plan-fold");
  const button = /** @type {HTMLButtonElement} */ (h("button", "codex-plan-show-all", `Show all ${total} steps`));
  button.type = "button";
  button.addEventListener("click", () => parts.expand());
  line.append(h("span", "codex-plan-fold-text", text), button);
  return line;
}

/**
 * @param {ReturnType<typeof skeleton>} parts
 * @param {ReturnType<typeof checklistView>} view
 */
function draw(parts, view) {
  parts.root.setAttribute("aria-label", view.ariaLabel);
  parts.root.dataset.turnStatus = view.turnStatus;
  /** @type {HTMLElement} */ (parts.header.querySelector(".codex-plan-title")).textContent = view.header;
  parts.counter.textContent = view.counterText;
  parts.turn.textContent = view.turnText;

  const fragment = document.createDocumentFragment();
  if (view.placeholder) fragment.append(h("p", "codex-plan-placeholder", view.placeholder));
  if (view.noPlan) {
    const why = h("p", "codex-plan-no-plan", view.noPlan);
    why.setAttribute("role", "status");
    fragment.append(why);
  }
  if (view.explanation) fragment.append(h("p", "codex-plan-explanation", view.explanation));
  if (view.empty) fragment.append(h("p", "codex-plan-empty", view.emptyText));
  if (view.rows.length > 0) {
    const { start, end } = view.window;
    if (view.folds.before) fragment.append(fold(view.folds.before, parts, view.rows.length));
    const list = /** @type {HTMLOListElement} */ (h("ol", "codex-plan-steps"));
    list.setAttribute("aria-label", "Plan steps");
    if (start > 0) list.start = start + 1;
    for (const row of view.rows.slice(start, end)) {
      const item = h("li", row.className);
      item.dataset.status = row.status;
      const glyph = h("span", "codex-plan-glyph", `${row.glyph} `);
      glyph.setAttribute("aria-hidden", "true");
      item.append(glyph, h("span", "codex-plan-sr", `${row.statusLabel}: `), h("span", "codex-plan-text", row.text));
      if (row.priority) {
        const badge = h("span", "codex-plan-priority", row.priority);
        badge.dataset.priority = row.priority;
        badge.title = `Priority: ${row.priority}`;
        item.append(badge);
      }
      list.append(item);
    }
    fragment.append(list);
    if (view.folds.after) fragment.append(fold(view.folds.after, parts, view.rows.length));
  }
  parts.body.replaceChildren(fragment);

  parts.error.textContent = view.error ?? "";
  parts.error.hidden = !view.error;
  parts.protocolError.textContent = view.protocolError ?? "";
  parts.protocolError.hidden = !view.protocolError;
}

/** @param {{model: AnyModel, el: HTMLElement}} ctx */
function render({ model, el }) {
  const controller = new AbortController();
  const { signal } = controller;
  const parts = skeleton();
  el.replaceChildren(parts.root);
  /** @type {number | null} */
  let reported = null;

  let expanded = false;
  parts.onExpand(() => {
    expanded = true;
    update();
  });
  const update = () => {
    if (signal.aborted) return;
    const state = readState(model);
    draw(parts, checklistView(state, { expanded }));
    const revision = typeof state.revision === "number" ? state.revision : null;
    if (revision !== null && revision !== reported) {
      reported = revision;
      model.send(checklistRequest(CHECKLIST_TO_KERNEL.rendered, { revision }));
    }
  };

  /** @param {any} msg */
  const onReply = (msg) => {
    if (signal.aborted || !msg || msg.kind !== CHECKLIST_TO_VIEW.error) return;
    console.warn("codex_nb checklist: the kernel rejected a message:", msg.message);
  };

  model.on("change", update);
  model.on("msg:custom", onReply);
  signal.addEventListener("abort", () => {
    model.off("change", update);
    model.off("msg:custom", onReply);
    el.replaceChildren();
  });
  update();
  return () => controller.abort();
}

export default { render };
