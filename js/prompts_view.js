// Pure state -> view-model logic for the prompts widget (questions, permission requests, command
// and file-change approvals, MCP elicitations).
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
/** Fallback labels; the kernel sends each offered decision with its own label. */
export const APPROVAL_LABELS = Object.freeze({
  approve: "Yes, run it once",
  approve_for_session: "Yes, and don't ask again this session",
  approve_with_execpolicy_amendment: "Yes, and don't ask again for commands like this",
  apply_network_policy_amendment: "Save a rule for this host",
  decline: "No, skip this call (the turn goes on)",
  cancel: "No, and stop the turn",
});
/** @type {readonly string[]} */
export const ELICITATION_ACTIONS = Object.freeze([...PROMPTS.elicitation_actions]);
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
 *            deadline_ms: number | null, details?: any}} PendingRequest
 * @typedef {{choice: string | null, note: string}} Selection
 */

/**
 * The card for one pending request.
 * @param {PendingRequest} pending
 */
export function cardModel(pending) {
  const base = { id: pending.id, kind: pending.kind, deadlineMs: pending.deadline_ms ?? null };
  if (pending.kind === "user_input") {
    // An ACP permission request's one question comes with what it is about (``details``): the card
    // draws it, so the question shows its text without the lines that say the same.
    const about = (pending.request.questions ?? []).length === 1 ? requestDetails(pending.details) : null;
    const questions = (pending.request.questions ?? []).map((/** @type {Question} */ q) => ({
      id: q.id,
      header: q.header,
      question: about ? about.text : q.question,
      secret: Boolean(q.isSecret),
      options: [...(q.options ?? [])],
      other: q.isOther ? OTHER_LABEL : null,
      details: about,
    }));
    // Each question's header is its fieldset legend; the card title does not repeat them.
    const title = about ? "Allow this tool call?"
      : questions.length > 1 ? `The model asks ${questions.length} questions` : "The model asks";
    const blocking = pending.request.isBlocking !== false;
    const waiting = blocking ? "The turn is waiting for your answer."
      : "Not blocking: the model could go on without it, but waits for your answer.";
    return { ...base, title, questions, blocking, waiting };
  }
  const req = pending.request;
  if (pending.kind === "approval") return approvalCardModel(base, req);
  if (pending.kind === "elicitation") return elicitationCardModel(base, req);
  return { ...base, title: "Permission request", reason: req.reason ?? null, cwd: req.cwd ?? "",
    lines: permissionLines(req.permissions ?? {}), grants: permissionGrants(req.permissions ?? {}),
    decisions: DECISIONS.map((d) => ({ decision: d,
      label: DECISION_LABELS[/** @type {keyof typeof DECISION_LABELS} */ (d)] ?? d })) };
}

/**
 * A command or file-change approval: what would run or change, and each decision offered.
 * @param {{id: string, kind: string, deadlineMs: number | null}} base @param {any} req
 */
function approvalCardModel(base, req) {
  const offered = (req.available_decisions ?? []).length ? req.available_decisions
    : APPROVAL_DECISIONS.filter((d) => !d.includes("amendment")).map((d) => ({ key: d, decision: d }));
  const decisions = offered.map((/** @type {any} */ o) => ({ decision: o.key, kind: o.decision,
    label: o.label ?? APPROVAL_LABELS[/** @type {keyof typeof APPROVAL_LABELS} */ (o.decision)] ?? o.key,
    detail: decisionDetail(o) }));
  const network = req.network_approval_context
    ? `network: ${req.network_approval_context.protocol}://${req.network_approval_context.host}` : null;
  const common = { ...base, reason: req.reason ?? null, cwd: req.cwd ?? "", decisions, network };
  if (req.type === "exec_approval_request") {
    return { ...common, title: "Run this command?", command: req.command, changes: [] };
  }
  const changes = (req.changes ?? []).map((/** @type {any} */ c) => ({ path: c.path, kind: c.kind, diff: c.diff,
    lines: diffLines(c.kind, c.diff ?? "") }));
  return { ...common, title: "Apply these changes?", command: null, changes };
}

/** Paths a card lists, and diff lines it draws (all files together): the kernel bounds what an
 * agent sends already; these keep a card readable and its DOM small whatever arrives. */
export const MAX_CARD_PATHS = 50;
export const MAX_CARD_DIFF_LINES = 400;
export const OUTSIDE_LABEL = "outside the session folder";

/**
 * An ACP permission request's details (``PermissionDetails.to_json()`` and the question's ``text``)
 * as a card draws them: each path with its line and whether it lies outside the session folder, a
 * warning counting those, the command, each file's diff as classified lines (``diffLines``, as a
 * Codex file-change approval's), and what was left out. Null when there is nothing to draw.
 * @param {any} details
 */
export function requestDetails(details) {
  if (!details || typeof details !== "object" || typeof details.text !== "string") return null;
  const sent = Array.isArray(details.paths) ? details.paths : [];
  const paths = sent.slice(0, MAX_CARD_PATHS).map((/** @type {any} */ p) => {
    const path = String(p?.path ?? "");
    return { path, outside: p?.outside === true, where: Number.isInteger(p?.line) ? `${path}:${p.line}` : path };
  });
  const morePaths = Math.max(0, sent.length - paths.length) + count(details.more_paths);
  // paths past the card's list are counted, and those outside the session folder with them
  const moreOutside = count(details.more_outside);
  const unchecked = count(details.unchecked);
  const outside = sent.filter((/** @type {any} */ p) => p?.outside === true).length + moreOutside;
  const notes = [...(moreOutside ? [`${moreOutside} ${OUTSIDE_LABEL}`] : []),
    ...(unchecked ? [`${unchecked} not checked`] : [])];
  const moreNote = notes.length ? ` (${notes.join(", ")})` : "";
  /** @type {{path: string, kind: string, lines: {text: string, cls: string}[]}[]} */
  const changes = [];
  let left = MAX_CARD_DIFF_LINES;
  let moreDiffs = count(details.more_diffs);
  for (const d of Array.isArray(details.diffs) ? details.diffs : []) {
    if (left <= 0) { moreDiffs += 1; continue; }
    const all = diffLines("update", typeof d?.diff === "string" ? d.diff : "");
    const lines = all.slice(0, left);
    if (all.length > lines.length) lines.push({ text: `... ${all.length - lines.length} more lines`, cls: "meta" });
    left -= all.length;
    changes.push({ path: String(d?.path ?? "?"), kind: String(d?.kind ?? "update"), lines });
  }
  const command = typeof details.command === "string" ? details.command : null;
  if (!paths.length && !morePaths && command === null && !changes.length && !moreDiffs) return null;
  return {
    text: details.text,
    warning: outside ? `${outside} ${outside === 1 ? "path lies" : "paths lie"} ${OUTSIDE_LABEL}` : null,
    paths, morePaths, moreNote, command, changes, moreDiffs,
  };
}

/** A count the kernel sent, or 0 for anything else. @param {unknown} n */
function count(n) {
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * What a decision would add beyond this call: the proposed prefix rule, or the host rule and its scope.
 * @param {{execpolicy_amendment?: string[], network_policy_amendment?: {host: string, action: string}}} option
 */
export function decisionDetail(option) {
  if (option.execpolicy_amendment) return `rule: allow commands starting with ${option.execpolicy_amendment.join(" ")}`;
  const net = option.network_policy_amendment;
  if (net) return `rule: ${net.action} ${net.host} (saved; applies to every later request to this host)`;
  return "";
}

/**
 * One file's diff as classified lines (add, del, hunk, meta, ctx) for colouring; an added or
 * deleted file's content is all additions or all deletions.
 * @param {string} kind @param {string} diff
 * @returns {{text: string, cls: string}[]}
 */
export function diffLines(kind, diff) {
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  if (diff === "") return [];
  return lines.map((text) => {
    if (kind === "add") return { text: `+${text}`, cls: "add" };
    if (kind === "delete") return { text: `-${text}`, cls: "del" };
    if (text.startsWith("@@")) return { text, cls: "hunk" };
    if (text.startsWith("+++") || text.startsWith("---")) return { text, cls: "meta" };
    if (text.startsWith("+")) return { text, cls: "add" };
    if (text.startsWith("-")) return { text, cls: "del" };
    return { text, cls: "ctx" };
  });
}

/**
 * The grantable parts of a permission request, each a checkbox: file-system entries and network.
 * @param {{network?: {enabled?: boolean} | null, file_system?: any}} permissions
 * @returns {{label: string, entry?: any, network?: any}[]}
 */
export function permissionGrants(permissions) {
  /** @type {{label: string, entry?: any, network?: any}[]} */
  const grants = [];
  const fs = permissions.file_system;
  if (fs && Array.isArray(fs.entries)) {
    for (const e of fs.entries) {
      const target = e.path.type === "path" ? e.path.path : e.path.pattern;
      grants.push({ label: `${e.access === "none" ? "deny" : e.access}: ${target}`, entry: e });
    }
  } else if (fs) {
    for (const access of ["read", "write"]) {
      for (const path of fs[access] ?? []) {
        grants.push({ label: `${access}: ${path}`, entry: { path: { type: "path", path }, access } });
      }
    }
  }
  if (permissions.network) {
    grants.push({ label: `network: ${permissions.network.enabled ? "enabled" : "disabled"}`,
      network: permissions.network });
  }
  return grants;
}

/**
 * The wire grant for the chosen parts: ``{permissions: {file_system?, network?}, scope}``.
 * @param {string} requestId @param {{entry?: any, network?: any}[]} chosen @param {"turn" | "session"} scope
 */
export function grantMessage(requestId, chosen, scope) {
  /** @type {Record<string, any>} */
  const permissions = {};
  const entries = chosen.filter((g) => g.entry).map((g) => g.entry);
  if (entries.length) permissions.file_system = { entries };
  const network = chosen.find((g) => g.network);
  if (network) permissions.network = network.network;
  return { id: requestId, kind: PROMPTS_TO_KERNEL.answer_permissions, decision: { permissions, scope } };
}

/**
 * An MCP elicitation: a form of typed fields, or a URL the person may visit themselves.
 * @param {{id: string, kind: string, deadlineMs: number | null}} base @param {any} req
 */
function elicitationCardModel(base, req) {
  const common = { ...base, server: req.server_name, message: req.message, mode: req.mode };
  if (req.mode === "url") {
    return { ...common, title: `${req.server_name} asks you to open a page`, url: req.url, domain: req.domain,
      fields: [], tool: null, approvals: [] };
  }
  const tool = req.tool_approval ?? null;
  if (tool) {
    // Codex asking whether an MCP tool may run: its own approvals, not a form to fill in
    const approvals = [{ persist: null, label: "Yes, run it once" },
      ...(tool.persist ?? []).map((/** @type {string} */ p) => ({ persist: p,
        label: p === "session" ? "Yes, and don't ask again this session" : "Yes, and always allow this tool" }))];
    return { ...common, title: `Allow ${req.server_name} to run ${tool.tool_name ?? "a tool"}?`, url: null,
      domain: null, fields: [], tool: { description: tool.tool_description ?? "", params: tool.tool_params ?? "" },
      approvals };
  }
  return { ...common, title: `${req.server_name} asks for information`, url: null, domain: null, tool: null,
    approvals: [], fields: (req.fields ?? []).map((/** @type {any} */ f) => ({ ...f, label: f.title || f.name })) };
}

/** The HTML input type of a string field's format. @param {string | null} format */
export function inputType(format) {
  return { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[format ?? ""] ?? "text";
}

/**
 * The content for an accepted form, or the first problem (naming the field). ``values`` holds
 * what the inputs hold: strings for text and numbers, booleans, arrays for multi-selects.
 * @param {any[]} fields @param {Record<string, any>} values
 * @returns {{content: Record<string, any>} | {error: string}}
 */
export function buildElicitationContent(fields, values) {
  /** @type {Record<string, any>} */
  const content = {};
  for (const f of fields) {
    const raw = values[f.name];
    const empty = raw === undefined || raw === null || raw === "" || (Array.isArray(raw) && raw.length === 0);
    if (empty && f.type !== "boolean") {
      if (f.required) return { error: `"${f.label}" is required.` };
      continue;
    }
    if (f.type === "boolean") { content[f.name] = Boolean(raw); continue; }
    if (f.type === "number" || f.type === "integer") {
      const n = Number(raw);
      if (!Number.isFinite(n)) return { error: `"${f.label}" must be a number.` };
      if (f.type === "integer" && !Number.isInteger(n)) return { error: `"${f.label}" must be a whole number.` };
      if (f.minimum !== null && f.minimum !== undefined && n < f.minimum) return { error: `"${f.label}" must be at least ${f.minimum}.` };
      if (f.maximum !== null && f.maximum !== undefined && n > f.maximum) return { error: `"${f.label}" must be at most ${f.maximum}.` };
      content[f.name] = n;
      continue;
    }
    if (f.type === "multi_enum") {
      if (f.min_items && raw.length < f.min_items) return { error: `"${f.label}" needs at least ${f.min_items} choices.` };
      if (f.max_items && raw.length > f.max_items) return { error: `"${f.label}" takes at most ${f.max_items} choices.` };
      content[f.name] = [...raw];
      continue;
    }
    const text = String(raw);
    if (f.min_length && text.length < f.min_length) return { error: `"${f.label}" needs at least ${f.min_length} characters.` };
    if (f.max_length && text.length > f.max_length) return { error: `"${f.label}" takes at most ${f.max_length} characters.` };
    if (f.format === "email" && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(text)) return { error: `"${f.label}" must be an email address.` };
    // datetime-local gives no seconds or zone; the ISO form the kernel checks takes it as is
    content[f.name] = text;
  }
  return { content };
}

/**
 * @param {string} requestId @param {string} action @param {Record<string, any> | null} content
 * @param {string | null} persist ``session`` / ``always``: a longer approval of an MCP tool call
 */
export function answerElicitationMessage(requestId, action, content = null, persist = null) {
  if (!ELICITATION_ACTIONS.includes(action)) throw new Error(`unknown elicitation action ${JSON.stringify(action)}`);
  return { id: requestId, kind: PROMPTS_TO_KERNEL.answer_elicitation, action, content, persist };
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

/** @param {string} requestId @param {string} decision an offered option's key (``cancel``, ``apply_network_policy_amendment:2``) */
export function answerApprovalMessage(requestId, decision) {
  if (!APPROVAL_DECISIONS.includes(decision.split(":")[0])) throw new Error(`unknown decision ${JSON.stringify(decision)}`);
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
