// Pure state -> view-model logic for the plan timeline. No DOM here: plan_timeline.js turns
// the view model into elements; node tests check this module directly.
import { checklistView } from "./plan_view.js";

/**
 * One listed revision, as the kernel sends it.
 * @typedef {object} TimelineEntry
 * @property {number} index
 * @property {string} label
 * @property {string} summary
 * @property {number} done
 * @property {number} total
 * @property {boolean} regression
 * @property {boolean} [rewound] its turn was undone by a rewind
 */

/**
 * The selected revision, as the kernel sends it.
 * @typedef {object} TimelineSnapshot
 * @property {number} index
 * @property {string | null} [turn_id] the revision's turn (whole)
 * @property {string} heading
 * @property {string} time
 * @property {string | null} explanation
 * @property {{step: string, status: string, change: string}[]} steps
 * @property {string[]} removed
 * @property {string} summary
 */

/**
 * @typedef {object} TimelineState
 * @property {TimelineEntry[]} entries
 * @property {number} hidden
 * @property {number} newer
 * @property {string[]} notes
 * @property {number | null} selected
 * @property {TimelineSnapshot | null} snapshot
 * @property {{index: number, heading: string, time: string, text: string, awaiting: boolean}[]} proposals
 * @property {string} no_plan
 * @property {{index: number, status: string, line: string, time: string, turn: string | null}[]} goals
 * @property {string[]} rewind_turns
 * @property {string} rewind_note
 * @property {string} protocol_error
 */

export const TIMELINE_EMPTY_TEXT = "(no plan revisions yet)";

/**
 * Which revision a key moves to from `current` (the shown one): ArrowUp/ArrowLeft the
 * older, ArrowDown/ArrowRight the newer, PageUp/PageDown a page, Home the oldest kept, End
 * the newest (and follow new ones: null). The list is one page of the kept revisions
 * (`hidden` older and `newer` newer ones are not listed, indices are consecutive), so a move
 * past either end of the page asks for the revision beyond it and the kernel sends its page.
 * Undefined when the key is not a navigation key or nothing moves.
 * @param {string} key
 * @param {TimelineEntry[]} entries
 * @param {number | null} current
 * @param {{hidden?: number, newer?: number}} [page]
 * @returns {number | null | undefined}
 */
export function nextSelection(key, entries, current, page = {}) {
  if (entries.length === 0) return undefined;
  const hidden = Math.max(0, Number(page.hidden) || 0);
  const newer = Math.max(0, Number(page.newer) || 0);
  const oldest = entries[0].index - hidden;
  const newest = entries[entries.length - 1].index + newer;
  const found = current === null ? -1 : entries.findIndex((e) => e.index === current);
  // an evicted or unlisted selection moves from the newest listed
  const at = found < 0 ? entries[entries.length - 1].index : entries[found].index;
  const step = Math.max(1, entries.length);
  let to;
  if (key === "ArrowUp" || key === "ArrowLeft") to = Math.max(oldest, at - 1);
  else if (key === "ArrowDown" || key === "ArrowRight") to = Math.min(newest, at + 1);
  else if (key === "PageUp") to = Math.max(oldest, at - step);
  else if (key === "PageDown") to = Math.min(newest, at + step);
  else if (key === "Home") to = oldest;
  else if (key === "End") return current === null ? undefined : null;
  else return undefined;
  return to === at ? undefined : to;
}

/**
 * The turn the shown revision offers "Rewind to here" on, or null: only with a kernel behind the
 * view (`live`: it answered the view's hello; a saved view has none), for a turn the kernel
 * offers (`rewind_turns`) that no rewind undid.
 * @param {Partial<TimelineState>} state @param {boolean} live
 */
export function rewindTurn(state, live) {
  const snapshot = state.snapshot && typeof state.snapshot === "object" ? state.snapshot : null;
  const turn = snapshot && typeof snapshot.turn_id === "string" ? snapshot.turn_id : null;
  if (!live || !turn) return null;
  const offered = Array.isArray(state.rewind_turns) ? state.rewind_turns : [];
  const entries = Array.isArray(state.entries) ? state.entries : [];
  const undone = entries.some((e) => e.index === snapshot?.index && e.rewound);
  return offered.includes(turn) && !undone ? turn : null;
}

/**
 * The whole view model for one state.
 * @param {Partial<TimelineState>} state
 */
export function timelineView(state) {
  const entries = Array.isArray(state.entries) ? state.entries : [];
  const snapshot = state.snapshot && typeof state.snapshot === "object" ? state.snapshot : null;
  const shown = snapshot ? snapshot.index : null;
  const items = entries.map((e) => ({
    index: e.index,
    id: `revision-${e.index}`,
    label: String(e.label ?? `#${e.index}`) + (e.rewound ? " · rewound" : ""),
    detail: `${e.done}/${e.total} done · ${e.summary}`,
    regression: Boolean(e.regression),
    rewound: Boolean(e.rewound),
    selected: e.index === shown,
  }));
  const steps = snapshot && Array.isArray(snapshot.steps) ? snapshot.steps : [];
  const checklist = checklistView({
    explanation: snapshot ? snapshot.explanation : null,
    steps,
    revision: shown,
    turn_status: "idle",
  });
  return {
    items,
    shown,
    following: state.selected === null || state.selected === undefined,
    // Nothing recorded yet: said once, by why the turn had no plan when a turn ended without one.
    emptyText:
      items.length === 0 && !state.no_plan && !(Array.isArray(state.proposals) && state.proposals.length) &&
      !(Array.isArray(state.goals) && state.goals.length)
        ? TIMELINE_EMPTY_TEXT
        : "",
    hiddenText: [
      state.hidden ? `${state.hidden} earlier revision(s) not listed` : "",
      state.newer ? `${state.newer} newer revision(s) not listed (End: the newest)` : "",
    ]
      .filter(Boolean)
      .join("; "),
    notes: Array.isArray(state.notes) ? state.notes.map(String) : [],
    heading: snapshot ? `${snapshot.heading} · ${snapshot.time}` : "",
    summary: snapshot ? `Changes: ${snapshot.summary}` : "",
    checklist,
    changes: steps.map((s) => String(s.change ?? "")),
    regressions: steps.map((s) => String(s.change ?? "").startsWith("regression")),
    removed: snapshot && Array.isArray(snapshot.removed) ? snapshot.removed.map(String) : [],
    protocolError: state.protocol_error ? String(state.protocol_error) : "",
    noPlan: state.no_plan ? String(state.no_plan) : "",
    rewindNote: state.rewind_note ? String(state.rewind_note) : "",
    // A real Codex thread's goal: each set, status change and clearing, in order.
    goals: (Array.isArray(state.goals) ? state.goals : []).map((g) => ({
      id: `goal-${g.index}`,
      status: String(g.status ?? ""),
      line: String(g.line ?? ""),
      detail: [String(g.time ?? ""), g.turn ? `turn ${g.turn}` : ""].filter(Boolean).join(" \u00b7 "),
    })),
    // Plan mode's proposed plans: prose for a person to accept, shown as their own entries.
    proposals: (Array.isArray(state.proposals) ? state.proposals : []).map((p) => ({
      id: `proposal-${p.index}`,
      heading: `${String(p.heading ?? `Proposed plan ${p.index}`)} · ${String(p.time ?? "")}`,
      text: String(p.text ?? ""),
      state: p.awaiting ? "the turn ended with this plan and no message" : "",
    })),
  };
}
