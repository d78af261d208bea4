// The PlanChecklist anywidget view: renders the latest plan snapshot from the synced
// traits. Each snapshot replaces the whole plan (never a merge with the previous one); the DOM
// is patched row by row, so only rows whose text or status changed are rewritten. Step text is
// set with textContent only, so HTML in a step is shown as text.
// Plain ES module; the kernel inlines protocol.js and plan_view.js into one _esm string.
import { el } from "./dom.js";
import { CHECKLIST_TO_KERNEL, CHECKLIST_TO_VIEW, checklistRequest } from "./protocol.js";
import { checklistView, priorityLabel, rowChanges, rowKey } from "./plan_view.js";

/** @typedef {import("./plan_view.js").ChecklistState} ChecklistState */

/**
 * The subset of the anywidget model API this view uses.
 * @typedef {object} AnyModel
 * @property {(key: string) => any} get
 * @property {(msg: object) => void} send
 * @property {(name: string, cb: (...args: any[]) => void) => void} on
 * @property {(name: string, cb: (...args: any[]) => void) => void} off
 */

/** How long the view waits after its latest draw before it reports the drawn revision. */
const REPORT_DELAY_MS = 250;

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
 * Build the static skeleton once per view; `draw` fills it on every change.
 * The controls slot is left alone by `draw` (for the turn controls of another widget).
 */
function skeleton() {
  const root = el("section", "codex-plan");
  const header = el("div", "codex-plan-header");
  header.setAttribute("role", "heading");
  header.setAttribute("aria-level", "3");
  header.append(el("span", "codex-plan-bullet", "\u2022 "), el("span", "codex-plan-title"));
  const counter = el("span", "codex-plan-counter");
  counter.setAttribute("aria-live", "polite");
  header.append(counter);
  const turn = el("span", "codex-plan-turn");
  header.append(turn);
  const body = el("div", "codex-plan-body");
  const error = el("div", "codex-plan-error");
  error.setAttribute("role", "alert");
  const protocolError = el("div", "codex-plan-protocol-error");
  protocolError.setAttribute("role", "status");
  const controls = el("div", "codex-plan-controls");
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
 * A fold line of a long plan, with the button that shows every step (built once per view;
 * `draw` sets its texts).
 * @param {ReturnType<typeof skeleton>} parts
 */
function fold(parts) {
  const line = el("div", "codex-plan-fold");
  const button = /** @type {HTMLButtonElement} */ (el("button", "codex-plan-show-all"));
  button.type = "button";
  button.addEventListener("click", () => parts.expand());
  line.append(el("span", "codex-plan-fold-text"), button);
  return line;
}

/**
 * Set a node's text only when it differs (a write is a DOM mutation even when equal).
 * @param {Node} node
 * @param {string} text
 */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * One step row's nodes, filled by `fillRow`.
 */
function rowItem() {
  const item = el("li", "");
  const glyph = el("span", "codex-plan-glyph");
  glyph.setAttribute("aria-hidden", "true");
  item.append(glyph, el("span", "codex-plan-sr"), el("span", "codex-plan-text"));
  return item;
}

/**
 * @param {HTMLElement} item  a `rowItem`
 * @param {import("./plan_view.js").RowView} row
 */
function fillRow(item, row) {
  item.className = row.className;
  item.dataset.status = row.status;
  const [glyph, sr, text] = /** @type {HTMLElement[]} */ ([...item.children]);
  setText(glyph, `${row.glyph} `);
  setText(sr, `${row.statusLabel}: `);
  setText(text, row.text);
  const badge = /** @type {HTMLElement | undefined} */ (item.children[3]);
  if (row.priority) {
    const node = badge ?? item.appendChild(el("span", "codex-plan-priority"));
    setText(node, priorityLabel(row.priority));
    node.dataset.priority = row.priority;
    node.title = `The agent ranks this step ${row.priority} priority (ACP: high, medium or low)`;
  } else if (badge) {
    badge.remove();
  }
}

/**
 * The body's nodes, kept across draws: the rows are patched in place (`rowChanges`), so an
 * update of one step's status rewrites that row only, whatever the plan's length.
 */
function bodyParts() {
  const placeholder = el("p", "codex-plan-placeholder");
  const noPlan = el("p", "codex-plan-no-plan");
  noPlan.setAttribute("role", "status");
  const explanation = el("p", "codex-plan-explanation");
  const empty = el("p", "codex-plan-empty");
  const list = /** @type {HTMLOListElement} */ (el("ol", "codex-plan-steps"));
  list.setAttribute("aria-label", "Plan steps");
  return {
    placeholder, noPlan, explanation, empty, list,
    /** @type {HTMLElement | null} */ before: null,
    /** @type {HTMLElement | null} */ after: null,
    /** @type {string[]} the `rowKey` of each drawn row */ keys: [],
  };
}

/**
 * @param {ReturnType<typeof skeleton>} parts
 * @param {ReturnType<typeof bodyParts>} body
 * @param {ReturnType<typeof checklistView>} view
 */
function draw(parts, body, view) {
  parts.root.setAttribute("aria-label", view.ariaLabel);
  parts.root.dataset.turnStatus = view.turnStatus;
  setText(/** @type {HTMLElement} */ (parts.header.querySelector(".codex-plan-title")), view.header);
  setText(parts.counter, view.counterText);
  setText(parts.turn, view.turnText);

  /** @type {HTMLElement[]} */
  const children = [];
  /** @param {HTMLElement} node @param {string | null} text */
  const line = (node, text) => {
    if (!text) return;
    setText(node, text);
    children.push(node);
  };
  line(body.placeholder, view.placeholder);
  line(body.noPlan, view.noPlan);
  line(body.explanation, view.explanation);
  line(body.empty, view.empty ? view.emptyText : null);
  if (view.rows.length > 0) {
    const { start, end } = view.window;
    /** @param {string} text @param {HTMLElement | null} node */
    const foldLine = (text, node) => {
      if (!text) return node;
      const foldNode = node ?? fold(parts);
      setText(/** @type {HTMLElement} */ (foldNode.firstChild), text);
      setText(/** @type {HTMLElement} */ (foldNode.lastChild), `Show all ${view.rows.length} steps`);
      children.push(foldNode);
      return foldNode;
    };
    body.before = foldLine(view.folds.before, body.before);
    const list = body.list;
    if (start > 0) list.start = start + 1;
    else list.removeAttribute("start");
    const rows = view.rows.slice(start, end);
    const keys = rows.map(rowKey);
    const { changed, added, removed } = rowChanges(body.keys, keys);
    const items = /** @type {HTMLElement[]} */ ([...list.children]);
    for (const i of changed) fillRow(items[i], rows[i]);
    for (let i = 0; i < removed; i++) /** @type {HTMLElement} */ (list.lastElementChild).remove();
    if (added) {
      const fragment = document.createDocumentFragment();
      for (let i = keys.length - added; i < keys.length; i++) {
        const item = rowItem();
        fillRow(item, rows[i]);
        fragment.append(item);
      }
      list.append(fragment);
    }
    body.keys = keys;
    children.push(list);
    body.after = foldLine(view.folds.after, body.after);
  }
  const current = parts.body.children;
  if (current.length !== children.length || children.some((node, i) => current[i] !== node)) {
    parts.body.replaceChildren(...children);
  }

  setText(parts.error, view.error ?? "");
  parts.error.hidden = !view.error;
  setText(parts.protocolError, view.protocolError ?? "");
  parts.protocolError.hidden = !view.protocolError;
}

/** @param {{model: AnyModel, el: HTMLElement}} ctx */
function render({ model, el: host }) {
  const controller = new AbortController();
  const { signal } = controller;
  const parts = skeleton();
  const body = bodyParts();
  host.replaceChildren(parts.root);
  /** @type {number | null} */
  let reported = null;
  /** @type {number | null} */
  let drawn = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let reportTimer = null;

  let expanded = false;
  parts.onExpand(() => {
    expanded = true;
    update();
  });
  const update = () => {
    if (signal.aborted) return;
    const state = readState(model);
    draw(parts, body, checklistView(state, { expanded }));
    drawn = typeof state.revision === "number" ? state.revision : null;
    if (reportTimer !== null) clearTimeout(reportTimer);
    reportTimer = drawn !== null && drawn !== reported ? setTimeout(report, REPORT_DELAY_MS) : null;
  };
  // The newest drawn revision is reported once the view has been still for REPORT_DELAY_MS, not
  // after every draw: each report is a request the kernel answers (an ack, and the kernel's
  // busy and idle status messages that JupyterLab handles on the page's main thread), and
  // while a plan streams that round trip per update delayed the next draws by tens of ms.
  const report = () => {
    reportTimer = null;
    if (signal.aborted || drawn === null || drawn === reported) return;
    reported = drawn;
    model.send(checklistRequest(CHECKLIST_TO_KERNEL.rendered, { revision: drawn }));
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
    if (reportTimer !== null) clearTimeout(reportTimer);
    host.replaceChildren();
  });
  update();
  return () => controller.abort();
}

export default { render };
