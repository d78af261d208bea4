// Pure state -> view-model logic for the plan checklist. No DOM here: plan_checklist.js
// turns the view model into elements, node tests check this module directly.
// Visual semantics follow the Codex TUI "Updated Plan" cell
// (codex-rs/tui/src/history_cell/plans.rs).

import { TURN_STATUS_LABELS } from "./protocol.js";

/** @typedef {import("./protocol.js").StepStatus} StepStatus */

/**
 * The synced widget state (one PlanUpdate snapshot plus turn status).
 * @typedef {object} ChecklistState
 * @property {string | null} explanation
 * @property {{step: string, status: string}[]} steps
 * @property {string} thread_id
 * @property {string | null} turn_id
 * @property {number | null} revision  null until the first snapshot arrives
 * @property {string} turn_status
 * @property {string} error
 * @property {string} protocol_error
 * @property {string} [no_plan]  why the latest ended turn has no plan ("" when it had one; shown only while there is no plan)
 */

/**
 * @typedef {object} RowView
 * @property {number} index
 * @property {string} text
 * @property {string} status
 * @property {string} glyph
 * @property {string} className
 * @property {string} statusLabel
 * @property {string} [priority]  ACP step priority (high / medium / low), when the source has one
 */

export const HEADER = "Updated Plan";
/** The heading when a turn ended with no plan and the reason says so (nothing was updated). */
export const NO_PLAN_HEADER = "Plan";
export const EMPTY_TEXT = "(no steps provided)";
export const NO_PLAN_TEXT = "(no plan yet)";
/**
 * The text of a step's ACP priority badge: labelled, since a bare "medium" beside a step says
 * nothing to a reader who has not met ACP priorities.
 * @param {string} priority
 */
export function priorityLabel(priority) {
  return `${priority} priority`;
}
export const GLYPH_DONE = "\u2714";
export const GLYPH_OPEN = "\u25a1";
/** Steps drawn at most while folded: a model may send thousands, and the page must stay light. */
export const MAX_ROWS = 200;
/** Steps shown before the first unfinished one, so the view opens on the work in hand. */
export const ROWS_BEFORE = 20;

/** @type {Record<string, {glyph: string, label: string}>} */
const STATUS_STYLE = {
  completed: { glyph: GLYPH_DONE, label: "Completed" },
  in_progress: { glyph: GLYPH_OPEN, label: "In progress" },
  pending: { glyph: GLYPH_OPEN, label: "Pending" },
};

/**
 * The checklist's turn line: empty before any turn, else "Turn <label>".
 * @param {string} status
 * @returns {string}
 */
function turnText(status) {
  if (status === "idle") return "";
  return `Turn ${TURN_STATUS_LABELS[status] ?? status}`;
}

/**
 * One step row. Unknown statuses render like pending but say so in the label.
 * @param {unknown} item
 * @param {number} index
 * @returns {RowView}
 */
export function rowView(item, index) {
  const raw = /** @type {{step?: unknown, status?: unknown, priority?: unknown}} */ (item ?? {});
  const text = raw.step == null ? "" : String(raw.step);
  const status = typeof raw.status === "string" ? raw.status : "unknown";
  const style = STATUS_STYLE[status];
  return {
    index,
    text,
    status,
    glyph: style ? style.glyph : GLYPH_OPEN,
    className: `codex-plan-step codex-plan-step--${style ? status : "unknown"}`,
    statusLabel: style ? style.label : `Unknown status (${status})`,
    // ACP agents rank their steps (high / medium / low); Codex plans have no priority.
    ...(typeof raw.priority === "string" && raw.priority ? { priority: raw.priority } : {}),
  };
}

/**
 * Counter of completed steps, e.g. `2/5 done`.
 * @param {RowView[]} rows
 */
export function counter(rows) {
  const done = rows.filter((r) => r.status === "completed").length;
  return { done, total: rows.length, text: `${done}/${rows.length} done` };
}

/**
 * Which rows a folded list draws: at most MAX_ROWS, starting ROWS_BEFORE rows before the first
 * step not completed (the last MAX_ROWS when all are done); `before` / `after` count the rest.
 * @param {RowView[]} rows
 * @param {boolean} expanded  the person asked to see every step
 */
export function visibleWindow(rows, expanded = false) {
  const total = rows.length;
  if (expanded || total <= MAX_ROWS) return { start: 0, end: total, before: 0, beforeDone: 0, after: 0 };
  const open = rows.findIndex((r) => r.status !== "completed");
  const anchor = open === -1 ? total : open;
  const start = Math.max(0, Math.min(anchor - ROWS_BEFORE, total - MAX_ROWS));
  const end = start + MAX_ROWS;
  let beforeDone = 0;
  for (let i = 0; i < start; i++) if (rows[i].status === "completed") beforeDone++;
  return { start, end, before: start, beforeDone, after: total - end };
}

/**
 * The text of the fold lines around a folded list ("" when nothing is folded on that side).
 * @param {ReturnType<typeof visibleWindow>} window
 */
export function foldText(window) {
  const steps = (/** @type {number} */ n) => `${n} ${n === 1 ? "step" : "steps"}`;
  return {
    before: window.before ? `\u2026 ${steps(window.before)} above (${window.beforeDone} done)` : "",
    after: window.after ? `\u2026 ${steps(window.after)} below` : "",
  };
}

/**
 * The whole view model for one state. The snapshot is always rendered from scratch:
 * nothing is inferred from a previous state. `rows` holds every step; `window` says which of
 * them a folded list draws.
 * @param {Partial<ChecklistState>} state
 * @param {{expanded?: boolean}} [options]
 */
export function checklistView(state, options = {}) {
  const hasPlan = state.revision !== null && state.revision !== undefined;
  const rawExplanation = typeof state.explanation === "string" ? state.explanation.trim() : "";
  const steps = Array.isArray(state.steps) ? state.steps : [];
  const rows = hasPlan ? steps.map(rowView) : [];
  const count = counter(rows);
  const window = visibleWindow(rows, options.expanded === true);
  const turnStatus = typeof state.turn_status === "string" ? state.turn_status : "idle";
  const error = state.error ? String(state.error) : "";
  const protocolError = state.protocol_error ? String(state.protocol_error) : "";
  // as in the saved rendering: a shown plan (an earlier turn's, or a resumed session's saved one)
  // is not contradicted by "No plan: ..." for a later turn that left it as it was; and the reason,
  // when there is one, is said once (not under "Updated Plan" after "(no plan yet)")
  const noPlan = !hasPlan && state.no_plan ? String(state.no_plan) : null;
  return {
    header: noPlan ? NO_PLAN_HEADER : HEADER,
    hasPlan,
    placeholder: hasPlan || noPlan ? null : NO_PLAN_TEXT,
    explanation: hasPlan && rawExplanation ? rawExplanation : null,
    empty: hasPlan && rows.length === 0,
    emptyText: EMPTY_TEXT,
    rows,
    window,
    folds: foldText(window),
    counter: count,
    counterText: hasPlan ? count.text : "",
    ariaLabel: hasPlan ? `Plan, ${count.done} of ${count.total} steps done` : "Plan, no plan yet",
    turnStatus,
    turnText: turnText(turnStatus),
    error: error || null,
    protocolError: protocolError || null,
    noPlan,
  };
}

/**
 * What identifies a drawn row's content: two rows with the same key draw the same nodes.
 * @param {RowView} row
 */
export function rowKey(row) {
  return `${row.status}\u0000${row.priority ?? ""}\u0000${row.text}`;
}

/**
 * How the drawn list of row keys `previous` becomes `next`, row by row in place: a snapshot
 * replaces the whole plan, but most updates change one step's status, so the view patches only
 * the rows whose key changed and keeps every other row's nodes (a redraw of every row costs a
 * frame on a long plan, and loses a person's text selection).
 * @param {readonly string[]} previous
 * @param {readonly string[]} next
 * @returns {{changed: number[], added: number, removed: number}}
 */
export function rowChanges(previous, next) {
  const changed = [];
  const kept = Math.min(previous.length, next.length);
  for (let i = 0; i < kept; i++) if (previous[i] !== next[i]) changed.push(i);
  return { changed, added: Math.max(0, next.length - kept), removed: Math.max(0, previous.length - kept) };
}
