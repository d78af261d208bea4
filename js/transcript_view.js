// Pure transcript state -> view model (no DOM), tested with node --test.
// Entries come from the kernel's synced `entries` trait: {kind, id, text, status, title, detail}.

/** @typedef {{kind: string, id: string, text: string, status: string, title: string, detail: string}} TranscriptEntry */
/** @typedef {{key: string, kind: string, label: string, text: string, detail: string, status: string, live: boolean, files?: import("./diff_view.js").DiffFileView[]}} TranscriptRow */

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

/**
 * One row per entry, in order.
 * @param {TranscriptEntry} entry
 * @returns {TranscriptRow}
 */
export function transcriptRow(entry) {
  const kind = entry.kind;
  const live = entry.status === "streaming" || entry.status === "running";
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
  const labels = { assistant: "Assistant", reasoning: "Reasoning", notice: "Retry", error: "Error", user: "You",
                   saved: "Saved" };
  const label = labels[/** @type {keyof typeof labels} */ (kind)] ?? kind;
  return { key: entry.id, kind, label, text: entry.text, detail: entry.detail, status: entry.status, live };
}

/**
 * The kernel sends only the newest entries; `earlier` counts the ones before them. `title` is the
 * session's title as its agent set it, shown after the status as the kernel's plain text has it.
 * @param {{entries: TranscriptEntry[], status: string, error: string, earlier?: number, title?: string}} state
 */
export function transcriptView(state) {
  const rows = (state.entries ?? []).map(transcriptRow);
  const status = STATUS_LABELS[/** @type {keyof typeof STATUS_LABELS} */ (state.status)] ?? state.status;
  const earlier = Number.isInteger(state.earlier) && /** @type {number} */ (state.earlier) > 0 ? state.earlier : 0;
  const folded = earlier ? `${earlier} earlier ${earlier === 1 ? "entry" : "entries"} of this turn not shown` : "";
  const title = typeof state.title === "string" && state.title ? ` · ${state.title}` : "";
  return { header: `Transcript: ${status}${title}`, status: state.status, rows, empty: rows.length === 0, folded };
}
