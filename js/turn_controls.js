// The turn controls view: a real Codex thread's goal card, the session's turn status, its token
// usage meter, a Stop button, a picker per option the source offers (an ACP agent's mode, model, effort), and a Compact button
// on a real Codex thread that can compact (can_compact; sends {id, kind: "compact"}, the kernel
// says how it went in compact_note).
// A real Codex thread also shows what it waits on beside the status (waiting: "Waiting on your
// approval"...) and the settings of its next turn on a line of their own (settings), both worded by
// the kernel (codex_nb.protocol.thread_state) so the saved fallback says the same.
// State comes from synced traits (status, stoppable, last_stop, usage, goal, waiting, settings,
// options, last_option, can_pick, error); Stop sends {id, kind: "stop"}, a pick {id, kind: "set_option", option, value}
// with model.send. The kernel replies through `last_stop` / `last_option` (same id). A picker shows
// the agent's reported value, never the pick: it changes when the agent has answered.
// Kinds come from protocol.json, the one definition the kernel validates against.
import { el } from "./dom.js";
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
 * Pure thread state -> view model: the waiting note beside the status (hidden when empty; "alert"
 * while the thread waits on the person or reported an error) and the settings line ("Settings: ...").
 * @param {unknown} waiting
 * @param {unknown} settings
 */
export function threadStateView(waiting, settings) {
  const note = typeof waiting === "string" ? waiting : "";
  const line = typeof settings === "string" && settings !== "" ? `Settings: ${settings}` : "";
  return { waiting: note, waitingHidden: note === "", settings: line, settingsHidden: line === "" };
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

/** @typedef {{value: string, name: string, group?: string | null}} OptionChoice */
/** @typedef {{id: string, name: string, kind: string, current: string | boolean, category?: string | null, choices: OptionChoice[]}} AgentOption */
/** @typedef {{id?: string, option?: string, outcome?: string, message?: string}} OptionReply */

/**
 * Pure options -> pickers model: each option's label, kind, current value and choices (grouped
 * as the agent groups them), disabled while its pick awaits the agent or when picks are off; and
 * the note under them (the latest refusal, or "Setting ..." while a pick is pending).
 * @param {AgentOption[]} options
 * @param {OptionReply} lastOption
 * @param {Record<string, string>} pending option id -> id of our pick awaiting its reply
 * @param {boolean} canPick
 */
export function optionsView(options, lastOption, pending, canPick) {
  const settled = (/** @type {string} */ id) => lastOption.id === pending[id] && lastOption.outcome !== "setting";
  const pickers = options.map((o) => {
    const waiting = o.id in pending && !settled(o.id);
    /** @type {{label: string | null, choices: OptionChoice[]}[]} */
    const groups = [];
    for (const c of o.choices ?? []) {
      const label = c.group ?? null;
      const last = groups[groups.length - 1];
      if (last && last.label === label) last.choices.push(c);
      else groups.push({ label, choices: [c] });
    }
    return { id: o.id, name: o.name, kind: o.kind, current: o.current, groups, disabled: !canPick || waiting };
  });
  let note = "";
  const mine = Object.values(pending).includes(lastOption.id ?? "");
  if (mine && lastOption.outcome === "refused") note = `${optionName(options, lastOption.option)}: ${lastOption.message}`;
  else if (mine && lastOption.outcome === "setting") note = `Setting ${optionName(options, lastOption.option)}…`;
  return { pickers, note };
}

/** @param {AgentOption[]} options @param {string | undefined} id */
function optionName(options, id) {
  return options.find((o) => o.id === id)?.name ?? id ?? "option";
}

/** @param {string} option @param {string | boolean} value */
export function optionRequest(option, value) {
  return { id: newRequestId(), kind: CONTROLS_TO_KERNEL.set_option, option, value };
}

/** @param {string} kind */
export function controlsRequest(kind) {
  if (!(kind in CONTROLS_TO_KERNEL)) throw new Error(`unknown turn controls message kind ${JSON.stringify(kind)}`);
  return { id: newRequestId(), kind };
}

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el: host }) {
    const controller = new AbortController();
    const root = el("div", "cx-turn-controls", undefined, { role: "group", "aria-label": "Turn controls" });
    root.dataset.lmSuppressShortcuts = "true";  // Enter/Space on Stop must not act on the notebook cell
    const dot = el("span", "cx-turn-dot", undefined, { "aria-hidden": "true" });
    const label = el("span", "", undefined, { role: "status" });
    const status = el("span", "cx-turn-status");
    status.append(dot, label);
    const button = el("button", "cx-stop", "Stop", { type: "button", "aria-label": "Stop the running turn" });
    const note = el("span", "cx-turn-note", undefined, { role: "status" });
    const waiting = el("span", "cx-turn-waiting", undefined, { role: "status" });
    const settings = el("div", "cx-turn-settings");
    const meter = el("meter", "cx-usage-meter", undefined, { min: "0", "aria-label": "Context window used" });
    const usageLabel = el("span", "cx-usage-text");
    const usage = el("span", "cx-turn-usage");
    usage.append(meter, usageLabel);
    const goalTitle = el("div", "cx-goal-title");
    const goalMeter = el("meter", "cx-goal-meter", undefined, { min: "0", "aria-label": "Goal tokens used of its budget" });
    const goalText = el("span");
    const goalUsage = el("div", "cx-goal-usage");
    goalUsage.append(goalMeter, goalText);
    const card = el("div", "cx-goal-card", undefined, { role: "group", "aria-label": "Goal" });
    card.append(goalTitle, goalUsage);
    const pickers = el("span", "cx-turn-options", undefined, { role: "group", "aria-label": "The agent's options" });
    const optionNote = el("span", "cx-turn-option-note", undefined, { role: "status" });
    const compact = el("button", "cx-compact", "Compact", {
      type: "button",
      title: "Compact the thread's context (Codex summarises its earlier turns)",
    });
    const compactNote = el("span", "cx-compact-note", undefined, { role: "status" });
    root.append(card, status, waiting, button, compact, compactNote, note, settings, pickers, optionNote, usage);
    host.append(root);

    /** @type {Record<string, string>} */
    const pendingPicks = {};
    /** @param {string} option @param {string | boolean} value */
    const pick = (option, value) => {
      const request = optionRequest(option, value);
      pendingPicks[option] = request.id;
      model.send(request);
      drawOptions();
    };
    const drawOptions = () => {
      const view = optionsView(model.get("options") ?? [], model.get("last_option") ?? {}, pendingPicks, model.get("can_pick") !== false);
      pickers.hidden = view.pickers.length === 0;
      pickers.replaceChildren(...view.pickers.map((p) => {
        const label = el("label", "cx-turn-option");
        label.dataset.option = p.id;
        const name = el("span", "", p.name);
        if (p.kind === "boolean") {
          const box = el("input", "", undefined, { type: "checkbox" });
          box.checked = p.current === true;
          box.disabled = p.disabled;
          box.addEventListener("change", () => pick(p.id, box.checked), { signal: controller.signal });
          label.append(box, name);
          return label;
        }
        const select = el("select");
        select.disabled = p.disabled;
        for (const g of p.groups) {
          const parent = g.label === null ? select : el("optgroup", "", undefined, { label: g.label ?? "" });
          if (parent !== select) select.append(parent);
          for (const c of g.choices) {
            const option = el("option", "", c.name, { value: c.value });
            option.selected = c.value === p.current;
            parent.append(option);
          }
        }
        select.addEventListener("change", () => pick(p.id, select.value), { signal: controller.signal });
        label.append(name, select);
        return label;
      }));
      optionNote.textContent = view.note;
    };

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
      compact.hidden = !model.get("can_compact");
      compact.disabled = view.status === "running";
      compactNote.textContent = model.get("compact_note") ?? "";
      const figures = usageView(model.get("usage") ?? {});
      usage.hidden = figures.text === "";
      usageLabel.textContent = figures.text;
      meter.hidden = figures.fill === null;
      meter.max = figures.window || 1;
      meter.value = figures.used;
      meter.high = 0.8 * (figures.window || 1);
      meter.optimum = 0;
      const thread = threadStateView(model.get("waiting"), model.get("settings"));
      waiting.hidden = thread.waitingHidden;
      waiting.textContent = thread.waiting;
      settings.hidden = thread.settingsHidden;
      settings.textContent = thread.settings;
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
    compact.addEventListener("click", () => model.send(controlsRequest(CONTROLS_TO_KERNEL.compact)), {
      signal: controller.signal,
    });
    const traits = ["status", "stoppable", "can_stop", "last_stop", "usage", "goal", "waiting", "settings", "error", "can_compact", "compact_note"];
    for (const name of traits) model.on(`change:${name}`, draw);
    const optionTraits = ["options", "last_option", "can_pick"];
    for (const name of optionTraits) model.on(`change:${name}`, drawOptions);
    draw();
    drawOptions();
    return () => {
      controller.abort();
      for (const name of traits) model.off(`change:${name}`, draw);
      for (const name of optionTraits) model.off(`change:${name}`, drawOptions);
    };
  },
};
