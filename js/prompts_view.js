// Pure state -> view-model logic for the prompts widget (questions and permission requests).
// No DOM here: prompts.js turns these into elements; node tests check this module directly.
// Conventions follow the Codex TUI: the client-added "Other" choice is "None of the above",
// free text goes back as an extra "user_note: ..." answer string, so
// the model reads the same answers it would from the TUI.
import { PROMPTS_PROTOCOL, PROMPTS_TO_KERNEL } from "./protocol.js";

const PROMPTS = PROMPTS_PROTOCOL;

/** @type {readonly string[]} */
export const DECISIONS = Object.freeze([...PROMPTS.decisions]);
/** @type {readonly string[]} */
export const APPROVAL_DECISIONS = Object.freeze([...PROMPTS.approval_decisions]);
export const APPROVAL_LABELS = Object.freeze({
  approve: "Approve once",
  approve_for_session: "Approve for this session",
  decline: "Decline",
});
export const OTHER_LABEL = PROMPTS.other_label;
export const NOTE_PREFIX = PROMPTS.note_prefix;
export const DECISION_LABELS = Object.freeze({
  allow_turn: "Allow for this turn",
  allow_session: "Allow for this session",
  deny: "Deny",
});

/**
 * @typedef {{label: string, description: string}} Option
 * @typedef {{id: string, header: string, question: string, isOther: boolean, isSecret: boolean,
 *            options?: Option[]}} Question
 * @typedef {{id: string, kind: string, turn_id: string, call_id: string, request: any,
 *            deadline_ms: number | null}} PendingRequest
 * @typedef {{choice: string | null, note: string}} Selection
 */

/**
 * The card for one pending request.
 * @param {PendingRequest} pending
 */
export function cardModel(pending) {
  const base = { id: pending.id, kind: pending.kind, deadlineMs: pending.deadline_ms ?? null };
  if (pending.kind === "user_input") {
    const questions = (pending.request.questions ?? []).map((/** @type {Question} */ q) => ({
      id: q.id,
      header: q.header,
      question: q.question,
      secret: Boolean(q.isSecret),
      options: [...(q.options ?? [])],
      other: q.isOther ? OTHER_LABEL : null,
    }));
    // Each question's header is its fieldset legend; the card title does not repeat them.
    const title = questions.length > 1 ? `The model asks ${questions.length} questions` : "The model asks";
    return { ...base, title, questions };
  }
  const req = pending.request;
  if (pending.kind === "approval") return approvalCardModel(base, req);
  return { ...base, title: "Permission request", reason: req.reason ?? null, cwd: req.cwd ?? "",
    lines: permissionLines(req.permissions ?? {}), decisions: DECISIONS.map((d) => ({ decision: d,
      label: DECISION_LABELS[/** @type {keyof typeof DECISION_LABELS} */ (d)] ?? d })) };
}

/**
 * A command or file-change approval: what would run or change, and the three answers.
 * @param {{id: string, kind: string, deadlineMs: number | null}} base @param {any} req
 */
function approvalCardModel(base, req) {
  const decisions = APPROVAL_DECISIONS.map((d) => ({ decision: d,
    label: APPROVAL_LABELS[/** @type {keyof typeof APPROVAL_LABELS} */ (d)] ?? d }));
  const common = { ...base, reason: req.reason ?? null, cwd: req.cwd ?? "", decisions };
  if (req.type === "exec_approval_request") {
    return { ...common, title: "Run this command?", command: req.command, changes: [] };
  }
  const changes = (req.changes ?? []).map((/** @type {any} */ c) => ({ path: c.path, kind: c.kind, diff: c.diff }));
  return { ...common, title: "Apply these changes?", command: null, changes };
}

/**
 * Human lines for a permission profile (legacy {read, write} or canonical entries).
 * @param {{network?: {enabled?: boolean} | null, file_system?: any}} permissions
 * @returns {string[]}
 */
export function permissionLines(permissions) {
  const lines = [];
  const fs = permissions.file_system;
  if (fs && Array.isArray(fs.entries)) {
    for (const e of fs.entries) {
      const target = e.path.type === "path" ? e.path.path : e.path.pattern;
      lines.push(`${e.access === "none" ? "deny" : e.access}: ${target}`);
    }
  } else if (fs) {
    for (const path of fs.read ?? []) lines.push(`read: ${path}`);
    for (const path of fs.write ?? []) lines.push(`write: ${path}`);
  }
  if (permissions.network) lines.push(`network: ${permissions.network.enabled ? "enabled" : "disabled"}`);
  return lines;
}

/**
 * The wire answer `{qid: {answers: [...]}}` for the selections, or an error message.
 * @param {{id: string, other: string | null, header?: string, question?: string}[]} questions
 * @param {Record<string, Selection | undefined>} selections
 * @returns {{answers: Record<string, {answers: string[]}>} | {error: string}}
 */
export function buildAnswers(questions, selections) {
  /** @type {Record<string, {answers: string[]}>} */
  const answers = {};
  for (const q of questions) {
    const sel = selections[q.id] ?? { choice: null, note: "" };
    const note = (sel.note ?? "").trim();
    if (sel.choice === null && note === "") {
      const which = q.header || q.question || "this question";
      return { error: `Choose an option for "${which}" or write a note.` };
    }
    const list = [];
    if (sel.choice !== null) list.push(sel.choice);
    if (note !== "") list.push(`${NOTE_PREFIX}${note}`);
    answers[q.id] = { answers: list };
  }
  return { answers };
}

/**
 * Seconds left before auto-resolution, as text ("" without a deadline).
 * @param {number | null} deadlineMs
 * @param {number} nowMs
 */
export function countdownText(deadlineMs, nowMs) {
  if (deadlineMs === null || deadlineMs === undefined) return "";
  const secs = Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
  return `continues without an answer in ${secs}s`;
}

/** @param {string} requestId @param {Record<string, {answers: string[]}>} answers */
export function answerUserInputMessage(requestId, answers) {
  return { id: requestId, kind: PROMPTS_TO_KERNEL.answer_user_input, answers };
}

/** @param {string} requestId @param {string} decision */
export function answerPermissionsMessage(requestId, decision) {
  if (!DECISIONS.includes(decision)) throw new Error(`unknown decision ${JSON.stringify(decision)}`);
  return { id: requestId, kind: PROMPTS_TO_KERNEL.answer_permissions, decision };
}

/** @param {string} requestId @param {string} decision */
export function answerApprovalMessage(requestId, decision) {
  if (!APPROVAL_DECISIONS.includes(decision)) throw new Error(`unknown decision ${JSON.stringify(decision)}`);
  return { id: requestId, kind: PROMPTS_TO_KERNEL.answer_approval, decision };
}

/** @param {string} viewId */
export function readyMessage(viewId) {
  return { id: viewId, kind: PROMPTS_TO_KERNEL.ready };
}

/**
 * Which cards to add and remove when the pending list changes (keyed by request id).
 * @param {string[]} shown ids currently rendered
 * @param {PendingRequest[]} pending
 */
export function diffCards(shown, pending) {
  const want = pending.map((p) => p.id);
  return { remove: shown.filter((id) => !want.includes(id)), add: pending.filter((p) => !shown.includes(p.id)) };
}
