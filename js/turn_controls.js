// The turn controls view: the session's turn status and a Stop button.
// State comes from synced traits (status, stoppable, last_stop, error); Stop sends
// {id, kind: "stop"} with model.send. The kernel replies through `last_stop` (same id).
// Kinds come from protocol.json, the one definition the kernel validates against.
import { CONTROLS_TO_KERNEL, TURN_STATUS_LABELS, newRequestId } from "./protocol.js";

/** @typedef {{status: string, stoppable: boolean, last_stop: {id?: string, outcome?: string}, error: string}} ControlsState */


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
    const label = document.createElement("span");
    label.className = "cx-turn-status";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cx-stop";
    button.textContent = "Stop";
    const note = document.createElement("span");
    note.className = "cx-turn-note";
    note.setAttribute("role", "status");
    root.append(label, " ", button, " ", note);
    el.append(root);

    /** @type {string | null} */
    let pendingId = null;
    const draw = () => {
      const view = controlsView({
        status: model.get("status"),
        stoppable: model.get("stoppable"),
        last_stop: model.get("last_stop") ?? {},
        error: model.get("error"),
      }, pendingId);
      label.textContent = view.label;
      root.dataset.status = view.status;
      button.disabled = view.stopDisabled;
      note.textContent = view.note;
    };
    button.addEventListener("click", () => {
      const request = controlsRequest(CONTROLS_TO_KERNEL.stop);
      pendingId = request.id;
      draw();
      model.send(request);
    }, { signal: controller.signal });
    for (const name of ["status", "stoppable", "last_stop", "error"]) model.on(`change:${name}`, draw);
    draw();
    return () => {
      controller.abort();
      for (const name of ["status", "stoppable", "last_stop", "error"]) model.off(`change:${name}`, draw);
    };
  },
};
