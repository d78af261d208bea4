// The wire protocol between the kernel and the widget views, read from protocol.json
// (the one definition Python reads too). Messages are `{id, kind, ...fields}`.
import PROTOCOL from "./protocol.json" with { type: "json" };

/** @typedef {"pending" | "in_progress" | "completed"} StepStatus */
/** @typedef {"idle" | "running" | "completed" | "interrupted" | "failed"} TurnStatus */

export const PROTOCOL_VERSION = PROTOCOL.version;

/** @type {readonly StepStatus[]} */
export const STEP_STATUSES = Object.freeze([...PROTOCOL.step_statuses]);

/** @type {readonly TurnStatus[]} */
export const TURN_STATUSES = Object.freeze([...PROTOCOL.turn_statuses]);

const CHECKLIST = PROTOCOL.widgets.plan_checklist;

/** Message kinds the checklist view sends to the kernel. */
export const CHECKLIST_TO_KERNEL = Object.freeze(
  Object.fromEntries(Object.keys(CHECKLIST.to_kernel).map((k) => [k, k])),
);

/** Message kinds the kernel sends back to a checklist view (replies by id). */
export const CHECKLIST_TO_VIEW = Object.freeze(
  Object.fromEntries(Object.keys(CHECKLIST.to_view).map((k) => [k, k])),
);

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
