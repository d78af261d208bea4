// The turn controls view: a real Codex thread's goal card, the session's turn status, its token
// usage meter and a Stop button.
// State comes from synced traits (status, stoppable, last_stop, usage, goal, error); Stop sends
// {id, kind: "stop"} with model.send. The kernel replies through `last_stop` (same id).
// Kinds come from protocol.json, the one definition the kernel validates against.
import { CONTROLS_TO_KERNEL, TURN_STATUS_LABELS, newRequestId } from "./protocol.js";

/** @typedef {{status: string, stoppable: boolean, can_stop?: boolean, last_stop: {id?: string, outcome?: string}, error: string}} ControlsState */
/** @typedef {{context_used?: number, context_window?: number, turn?: number, total?: number}} Usage */

/** @typedef {{objective?: string, status?: string, status_text?: string, usage_text?: string, tokens_used?: number, token_budget?: number | null}} Goal */

/** @param {number} n */
const tokens = (n) => n.toLocaleString("en-US");

/**
 * The meter's words, as the kernel writes them (turn_controls.py usage_text): a figure the
 * source has not reported is left out, never shown as zero.
 * @param {Usage} usage
 */
export function usageText(usage) {
  const parts = [];
  const used = usage.context_used;
  const window = usage.context_window;
  if (typeof used === "number" && typeof window === "number" && window > 0) {
    parts.push(`Context: ${tokens(used)} of ${tokens(window)} tokens (${Math.floor((used * 100) / window)}%)`);
  } else if (typeof used === "number") {
    parts.push(`Context: ${tokens(used)} tokens`);
  }
  if (typeof usage.turn === "number") parts.push(`This turn: ${tokens(usage.turn)}`);
  if (typeof usage.total === "number") parts.push(`In all: ${tokens(usage.total)}`);
  return parts.join(" \u00b7 ");
}

/**
 * Pure usage -> meter model: its words and how full the context window is (null: unknown).
 * @param {Usage} usage
 */
export function usageView(usage) {
  const used = usage.context_used;
  const window = usage.context_window;
  const known = typeof used === "number" && typeof window === "number" && window > 0;
  return {
    text: usageText(usage),
    fill: known ? Math.min(used / window, 1) : null,
    used: known ? used : 0,
    window: known ? window : 0,
  };
}

/**
 * Pure goal -> card model. The words come from the kernel (turn_controls.py goal_state), so the
 * card says what the saved fallback says: "Goal (<status>): <objective>" and the usage line.
 * @param {Goal} goal
 */
export function goalView(goal) {
  if (!goal || typeof goal.objective !== "string") return { hidden: true, title: "", usage: "", status: "", fill: null, budget: 0 };
  const budget = typeof goal.token_budget === "number" && goal.token_budget > 0 ? goal.token_budget : 0;
  const used = typeof goal.tokens_used === "number" ? goal.tokens_used : 0;
  return {
    hidden: false,
    title: `Goal (${goal.status_text ?? goal.status ?? ""}): ${goal.objective}`,
    usage: goal.usage_text ?? "",
    status: goal.status ?? "",
    fill: budget ? Math.min(used, budget) : null,
    budget,
  };
}

/**
 * Pure state -> view model (no DOM).
 * @param {ControlsState} state
 * @param {string | null} pendingId the id of our Stop request still awaiting its reply
 */
export function controlsView(state, pendingId) {
  const waiting = pendingId !== null && state.last_stop?.id !== pendingId;
  let note = "";
  if (state.error) note = state.error;
  else if (state.last_stop?.id === pendingId && state.last_stop?.outcome === "not_running") {
    note = "No turn is running.";
  } else if (state.status === "running" && !state.stoppable) note = "Stopping…";
  return {
    label: `Turn: ${TURN_STATUS_LABELS[state.status] ?? state.status}`,
    status: state.status,
    stopDisabled: !state.stoppable || waiting,
    // a source that cannot stop a turn (a replay) offers no Stop (its capabilities say so)
    stopHidden: state.can_stop === false,
    note,
  };
}

/** @param {string} kind */
export function controlsRequest(kind) {
  if (!(kind in CONTROLS_TO_KERNEL)) throw new Error(`unknown turn controls message kind ${JSON.stringify(kind)}`);
  return { id: newRequestId(), kind };
}

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
    const controller = new AbortController();
    const root = document.createElement("div");
    root.className = "cx-turn-controls";
    root.dataset.lmSuppressShortcuts = "true";  // Enter/Space on Stop must not act on the notebook cell
    root.setAttribute("role", "group");
    root.setAttribute("aria-label", "Turn controls");
    const status = document.createElement("span");
    status.className = "cx-turn-status";
    const dot = document.createElement("span");
    dot.className = "cx-turn-dot";
    dot.setAttribute("aria-hidden", "true");
    const label = document.createElement("span");
    label.setAttribute("role", "status");
    status.append(dot, label);
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cx-stop";
    button.textContent = "Stop";
    button.setAttribute("aria-label", "Stop the running turn");
    const note = document.createElement("span");
    note.className = "cx-turn-note";
    note.setAttribute("role", "status");
    const usage = document.createElement("span");
    usage.className = "cx-turn-usage";
    const meter = document.createElement("meter");
    meter.className = "cx-usage-meter";
    meter.min = 0;
    meter.setAttribute("aria-label", "Context window used");
    const usageLabel = document.createElement("span");
    usageLabel.className = "cx-usage-text";
    usage.append(meter, usageLabel);
    const card = document.createElement("div");
    card.className = "cx-goal-card";
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", "Goal");
    const goalTitle = document.createElement("div");
    goalTitle.className = "cx-goal-title";
    const goalUsage = document.createElement("div");
    goalUsage.className = "cx-goal-usage";
    const goalMeter = document.createElement("meter");
    goalMeter.className = "cx-goal-meter";
    goalMeter.min = 0;
    goalMeter.setAttribute("aria-label", "Goal tokens used of its budget");
    const goalText = document.createElement("span");
    goalUsage.append(goalMeter, goalText);
    card.append(goalTitle, goalUsage);
    root.append(card, status, button, note, usage);
    el.append(root);

    /** @type {string | null} */
    let pendingId = null;
    const draw = () => {
      const view = controlsView({
        status: model.get("status"),
        stoppable: model.get("stoppable"),
        can_stop: model.get("can_stop"),
        last_stop: model.get("last_stop") ?? {},
        error: model.get("error"),
      }, pendingId);
      label.textContent = view.label;
      root.dataset.status = view.status;
      root.setAttribute("aria-busy", view.status === "running" ? "true" : "false");
      button.disabled = view.stopDisabled;
      button.hidden = view.stopHidden;
      note.textContent = view.note;
      const figures = usageView(model.get("usage") ?? {});
      usage.hidden = figures.text === "";
      usageLabel.textContent = figures.text;
      meter.hidden = figures.fill === null;
      meter.max = figures.window || 1;
      meter.value = figures.used;
      meter.high = 0.8 * (figures.window || 1);
      meter.optimum = 0;
      const goal = goalView(model.get("goal") ?? {});
      card.hidden = goal.hidden;
      card.dataset.status = goal.status;
      goalTitle.textContent = goal.title;
      goalText.textContent = goal.usage;
      goalMeter.hidden = goal.fill === null;
      goalMeter.max = goal.budget || 1;
      goalMeter.value = goal.fill ?? 0;
    };
    button.addEventListener("click", () => {
      const request = controlsRequest(CONTROLS_TO_KERNEL.stop);
      pendingId = request.id;
      draw();
      model.send(request);
    }, { signal: controller.signal });
    const traits = ["status", "stoppable", "can_stop", "last_stop", "usage", "goal", "error"];
    for (const name of traits) model.on(`change:${name}`, draw);
    draw();
    return () => {
      controller.abort();
      for (const name of traits) model.off(`change:${name}`, draw);
    };
  },
};
