// Pure transcript state -> view model (no DOM), tested with node --test.
// Entries come from the kernel's synced `entries` trait: {kind, id, text, status, title, detail,
// turn, rewound}.

/** @typedef {{kind: string, id: string, text: string, status: string, title: string, detail: string, turn?: string, rewound?: boolean}} TranscriptEntry */
/** @typedef {{key: string, kind: string, label: string, text: string, detail: string, status: string, live: boolean, turn?: string, rewound?: boolean, files?: import("./diff_view.js").DiffFileView[], reviewId?: string, overridable?: boolean}} TranscriptRow */

import { turnDiffFiles } from "./diff_view.js";

const TOOL_LABELS = Object.freeze({
  running: "running",
  completed: "completed",
  failed: "failed",
  aborted: "aborted",
  declined: "declined",
});

const STATUS_LABELS = Object.freeze({
  idle: "no turn yet",
  running: "running",
  completed: "completed",
  interrupted: "interrupted",
  failed: "failed",
});

// Codex's automatic review of an approval: its verdict, never worded as the person's answer.
const REVIEW_LABELS = Object.freeze({
  in_progress: "reviewing",
  approved: "approved by the automatic review",
  denied: "denied by the automatic review",
  timed_out: "timed out (not run)",
  aborted: "stopped (not run)",
  overridden: "denied by the automatic review, overridden by you",
});

/**
 * One row per entry, in order. `canOverride`: the source can override a denial (a real Codex
 * thread), so a denied review's row offers it.
 * @param {TranscriptEntry} entry
 * @param {boolean} [canOverride]
 * @returns {TranscriptRow}
 */
export function transcriptRow(entry, canOverride = false) {
  const row = plainRow(entry, canOverride);
  row.turn = entry.turn ?? "";
  row.rewound = Boolean(entry.rewound);
  if (row.rewound) row.label += " · rewound";
  return row;
}

/**
 * @param {TranscriptEntry} entry
 * @param {boolean} canOverride
 * @returns {TranscriptRow}
 */
function plainRow(entry, canOverride) {
  const kind = entry.kind;
  const live = entry.status === "streaming" || entry.status === "running" || entry.status === "in_progress";
  if (kind === "review") {
    const verdict = REVIEW_LABELS[/** @type {keyof typeof REVIEW_LABELS} */ (entry.status)] ?? entry.status;
    return { key: entry.id, kind, label: `Automatic review · ${verdict} · ${entry.title}`, text: entry.text,
             detail: entry.detail, status: entry.status, live, reviewId: entry.id.replace(/^review-/, ""),
             overridable: canOverride && entry.status === "denied" };
  }
  if (kind === "tool") {
    const status = TOOL_LABELS[/** @type {keyof typeof TOOL_LABELS} */ (entry.status)] ?? entry.status;
    return { key: entry.id, kind, label: `${entry.title} · ${status}`, text: entry.text, detail: entry.detail,
             status: entry.status, live };
  }
  if (kind === "diff") {
    // the turn's whole diff so far (text), its headline from the kernel (title): one collapsible
    // "what changed" entry listing each file with its lines, coloured as an approval's diff
    return { key: entry.id, kind, label: `What changed · ${entry.title}`, text: entry.text, detail: entry.detail,
             status: entry.status, live: false, files: turnDiffFiles(entry.text) };
  }
  if (kind === "hook") {
    const label = `Hook ${entry.title} · ${entry.status}${entry.detail ? ` · ${entry.detail}` : ""}`;
    return { key: entry.id, kind, label, text: entry.text, detail: "", status: entry.status, live };
  }
  if (kind === "agent_notice") {
    // an ACP agent's notice: its title (with its severity) is the label, its description the text
    return { key: entry.id, kind, label: `Notice · ${entry.title}`, text: entry.text, detail: "", status: entry.status,
             live: false };
  }
  if (kind === "compaction" || kind === "subagent") {
    // one entry per compaction or subagent, updated in place: its state, what it did, its last words
    const name = kind === "compaction" ? "Context compaction" : `Subagent ${entry.title}`;
    const label = entry.status ? `${name} · ${entry.status}` : name;
    return { key: entry.id, kind, label, text: entry.text, detail: entry.detail, status: entry.status,
             live: entry.status === "running" };
  }
  const labels = { assistant: "Assistant", reasoning: "Reasoning", notice: "Retry", note: "Note", error: "Error", user: "You",
                   saved: "Saved" };
  const label = labels[/** @type {keyof typeof labels} */ (kind)] ?? kind;
  return { key: entry.id, kind, label, text: entry.text, detail: entry.detail, status: entry.status, live };
}

/**
 * The kernel sends only the newest entries; `earlier` counts the ones before them. `title` is the
 * session's title as its agent set it, shown after the status as the kernel's plain text has it.
 * @param {{entries: TranscriptEntry[], status: string, error: string, earlier?: number, canOverride?: boolean, title?: string}} state
 */
export function transcriptView(state) {
  const rows = (state.entries ?? []).map((entry) => transcriptRow(entry, state.canOverride === true));
  const status = STATUS_LABELS[/** @type {keyof typeof STATUS_LABELS} */ (state.status)] ?? state.status;
  const earlier = Number.isInteger(state.earlier) && /** @type {number} */ (state.earlier) > 0 ? state.earlier : 0;
  const folded = earlier ? `${earlier} earlier ${earlier === 1 ? "entry" : "entries"} of this turn not shown` : "";
  const title = typeof state.title === "string" && state.title ? ` · ${state.title}` : "";
  return { header: `Transcript: ${status}${title}`, status: state.status, rows, empty: rows.length === 0, folded };
}

/**
 * Whether a row offers "Rewind to here": the person's words opening a turn the kernel offers
 * (``rewind_turns``), not already rewound.
 * @param {TranscriptRow} row @param {string[]} rewindTurns
 */
export function offersRewind(row, rewindTurns) {
  return row.kind === "user" && Boolean(row.turn) && !row.rewound && rewindTurns.includes(/** @type {string} */ (row.turn));
}

/**
 * What the confirmation says before a rewind to before ``turn``: how many turns go, and that the
 * files they changed stay as they are (Codex's revert changes the thread's history only).
 * @param {string} turn @param {string[]} rewindTurns
 */
export function rewindQuestion(turn, rewindTurns) {
  const at = rewindTurns.indexOf(turn);
  const count = at < 0 ? 1 : rewindTurns.length - at;
  const after = count - 1;
  const which = after === 0 ? "this turn" : `this turn and the ${after} after it`;
  return `Rewind to before this turn? This undoes ${count} turn${count === 1 ? "" : "s"} (${which}) from the ` +
    "thread's history: the next turn no longer sees them. Files they changed are not restored.";
}
