// The wire protocol between the kernel and the widget views, read from protocol.json
// (the one definition Python reads too). Messages are `{id, kind, ...fields}`.
import PROTOCOL from "./protocol.json" with { type: "json" };

/** @typedef {"pending" | "in_progress" | "completed"} StepStatus */
/** @typedef {"idle" | "running" | "completed" | "interrupted" | "failed"} TurnStatus */

export const PROTOCOL_VERSION = PROTOCOL.version;

export const STEP_STATUSES = Object.freeze(/** @type {StepStatus[]} */ ([...PROTOCOL.step_statuses]));

export const TURN_STATUSES = Object.freeze(/** @type {TurnStatus[]} */ ([...PROTOCOL.turn_statuses]));

/**
 * The one wording of each turn status (the checklist says "Turn <label>", the controls
 * "Turn: <label>"; the Python static fallback reads the same protocol.json entry).
 * @type {Readonly<Record<string, string>>}
 */
export const TURN_STATUS_LABELS = Object.freeze({ ...PROTOCOL.turn_status_labels });

/** The prompts section of protocol.json (decisions, labels), typed as it is written. */
export const PROMPTS_PROTOCOL = PROTOCOL.widgets.prompts;

/**
 * The protocol.json section of one widget (plan_checklist, prompts, turn_controls).
 * @param {"plan_checklist" | "prompts" | "turn_controls" | "plan_timeline" | "plan_answers" | "transcript"} widget
 * @returns {{to_kernel: Record<string, unknown>, to_view: Record<string, unknown>}}
 */
function widgetProtocol(widget) {
  return PROTOCOL.widgets[widget];
}

/**
 * ``{kind: kind}`` for the message kinds of ``widget`` in one direction.
 * @param {"plan_checklist" | "prompts" | "turn_controls" | "plan_timeline" | "plan_answers" | "transcript"} widget
 * @param {"to_kernel" | "to_view"} direction
 * @returns {Readonly<Record<string, string>>}
 */
function kindsOf(widget, direction) {
  return Object.freeze(Object.fromEntries(Object.keys(widgetProtocol(widget)[direction]).map((k) => [k, k])));
}

/** Message kinds the checklist view sends to the kernel. */
export const CHECKLIST_TO_KERNEL = kindsOf("plan_checklist", "to_kernel");

/** Message kinds the kernel sends back to a checklist view (replies by id). */
export const CHECKLIST_TO_VIEW = kindsOf("plan_checklist", "to_view");

/** Message kinds the turn controls view sends to the kernel. */
export const CONTROLS_TO_KERNEL = kindsOf("turn_controls", "to_kernel");

/** Message kinds the plan timeline view sends to the kernel. */
export const TIMELINE_TO_KERNEL = kindsOf("plan_timeline", "to_kernel");

/** Message kinds the kernel sends back to a plan timeline view (replies by id). */
export const TIMELINE_TO_VIEW = kindsOf("plan_timeline", "to_view");

/** Message kinds the plan answers view sends to the kernel. */
export const ANSWERS_TO_KERNEL = kindsOf("plan_answers", "to_kernel");

/** Message kinds the transcript view sends to the kernel ("rewind to here"). */
export const TRANSCRIPT_TO_KERNEL = kindsOf("transcript", "to_kernel");

/** Message kinds the prompts view sends to the kernel. */
export const PROMPTS_TO_KERNEL = kindsOf("prompts", "to_kernel");

let requestCounter = 0;

/**
 * A new request id, unique within this page.
 * @returns {string}
 */
export function newRequestId() {
  requestCounter += 1;
  return `v${Date.now().toString(36)}-${requestCounter}`;
}

/**
 * Build a browser -> kernel request.
 * @param {string} kind one of CHECKLIST_TO_KERNEL
 * @param {Record<string, unknown>} fields
 * @returns {{id: string, kind: string} & Record<string, unknown>}
 */
export function checklistRequest(kind, fields = {}) {
  if (!(kind in CHECKLIST_TO_KERNEL)) {
    throw new Error(`unknown checklist message kind ${JSON.stringify(kind)}`);
  }
  return { id: newRequestId(), kind, ...fields };
}

/**
 * Build a plan timeline view -> kernel request.
 * @param {string} kind one of TIMELINE_TO_KERNEL
 * @param {Record<string, unknown>} fields
 * @returns {{id: string, kind: string} & Record<string, unknown>}
 */
export function timelineRequest(kind, fields = {}) {
  if (!(kind in TIMELINE_TO_KERNEL)) {
    throw new Error(`unknown plan timeline message kind ${JSON.stringify(kind)}`);
  }
  return { id: newRequestId(), kind, ...fields };
}

/** Message kinds the sessions browser view sends to the kernel. */
export const SESSIONS_TO_KERNEL = Object.freeze(
  Object.fromEntries(Object.keys(PROTOCOL.widgets.sessions.to_kernel).map((k) => [k, k])),
);

/** The sessions table's sortable columns, in order (the kernel sorts by the same names). */
export const SESSION_COLUMNS = Object.freeze(/** @type {string[]} */ ([...PROTOCOL.widgets.sessions.columns]));

/** The columns of an ACP agent's sessions (`session/list`: title, folder, last update). */
export const ACP_SESSION_COLUMNS = Object.freeze(/** @type {string[]} */ ([...PROTOCOL.widgets.sessions.acp_columns]));
