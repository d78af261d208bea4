// The plan panel's two small views. The note in the cell output decides, in the browser where
// the answer is known, whether this front end has a side area for the panel (JupyterLab's shell),
// and tells the kernel with {id, kind: "placed", area}. "cell" makes the kernel put the
// checklist and Stop control into this cell's output instead (Notebook 7, VS Code...).
// The header on top of the panel names the followed session and watches whether a kernel still
// backs the panel: when the kernel has shut down or restarted, or the panel was restored from
// saved widget state with no kernel behind it, it says so and offers to close the panel.
// Kinds and areas come from protocol.json, the one definition the kernel validates against.
import { newRequestId } from "./protocol.js";
import PANEL_PROTOCOL from "./protocol.json" with { type: "json" };

const PANEL = PANEL_PROTOCOL.widgets.plan_panel;

/** Message kinds the panel note sends to the kernel. */
export const PANEL_TO_KERNEL = Object.freeze(
  Object.fromEntries(Object.keys(PANEL.to_kernel).map((k) => [k, k])),
);

/** @type {readonly string[]} */
export const PANEL_AREAS = Object.freeze([...PANEL.areas]);

/**
 * Which area the panel can use on this page: "side" in JupyterLab (its shell has a right
 * side area), "cell" anywhere else.
 * @param {Document} doc
 */
export function panelArea(doc) {
  return doc.querySelector(".jp-LabShell") !== null ? "side" : "cell";
}

/** @param {string} area */
export function placedRequest(area) {
  if (!PANEL_AREAS.includes(area)) throw new Error(`unknown plan panel area ${JSON.stringify(area)}`);
  return { id: newRequestId(), kind: PANEL_TO_KERNEL.placed, area };
}

/**
 * The note's text for the kernel-confirmed area ("" while unconfirmed) and the page's area.
 * @param {string} confirmed
 * @param {string} detected
 * @param {string} title
 */
export function noteText(confirmed, detected, title) {
  const area = confirmed || detected;
  if (area === "side") return `${title}: open in JupyterLab's right side area; it follows the session's turns.`;
  return `${title}: this front end has no side area, so the plan and Stop control are shown here in the cell.`;
}

/**
 * Why no kernel backs the panel any more, or "" while one does.
 * @param {{commLive: boolean | null, kernel: {status?: string, isDisposed?: boolean} | null}} state
 *   commLive: the widget model's comm is open (null: not known yet); kernel: the notebook's kernel
 */
export function deadReason({ commLive, kernel }) {
  if (kernel === null || kernel.isDisposed || kernel.status === "dead") {
    return "The kernel behind this panel has shut down: it no longer follows any turn.";
  }
  if (commLive === false) {
    return "No kernel backs this panel (the kernel restarted, or the panel was restored from a saved notebook): it no longer follows any turn.";
  }
  return "";
}

/**
 * Close the side-area tab that holds `node` (its Lumino widget, through the tab bar's own
 * close request: a middle click on the tab, which the sidecar answers by disposing the panel).
 * Returns false when the node is not in a closable tab (then the caller hides it).
 * @param {HTMLElement} node
 */
function closeTabOf(node) {
  const holder = /** @type {HTMLElement | null} */ (node.closest(".jupyterlab-sidecar"));
  if (!holder || !holder.id) return false;
  const tab = node.ownerDocument.querySelector(`.lm-TabBar-tab[data-id="${CSS.escape(holder.id)}"]`);
  if (!tab) return false;
  const box = tab.getBoundingClientRect();
  const at = { bubbles: true, cancelable: true, button: 1, buttons: 4, clientX: box.left + box.width / 2,
               clientY: box.top + box.height / 2 };
  tab.dispatchEvent(new PointerEvent("pointerdown", at));
  tab.dispatchEvent(new PointerEvent("pointerup", { ...at, buttons: 0 }));
  return !holder.isConnected;
}

/** @param {{model: any, el: HTMLElement}} ctx */
function renderHeader({ model, el }) {
  const controller = new AbortController();
  const root = document.createElement("div");
  root.className = "cx-plan-panel-head";
  const title = document.createElement("div");
  title.className = "cx-plan-panel-title";
  const gone = document.createElement("div");
  gone.className = "cx-plan-panel-gone";
  gone.setAttribute("role", "alert");
  const message = document.createElement("span");
  message.className = "cx-plan-panel-gone-text";
  const close = document.createElement("button");
  close.className = "cx-plan-panel-close";
  close.type = "button";
  close.textContent = "Close panel";
  gone.append(message, close);
  root.append(title, gone);
  el.append(root);

  const manager = model.widget_manager;
  const session = manager && manager.context ? manager.context.sessionContext : null;
  /** @type {any} */
  let real = null;
  const draw = () => {
    const strong = document.createElement("b");
    strong.textContent = model.get("title");
    const label = document.createElement("code");
    label.textContent = model.get("label");
    title.replaceChildren(strong, " \u00b7 session ", label);
    const kernel = manager ? (manager.kernel ?? null) : null;
    const reason = deadReason({ commLive: real ? !!(real.comm && real.comm_live) : null, kernel });
    message.textContent = reason;
    gone.hidden = reason === "";
    root.dataset.alive = reason === "" ? "true" : "false";
  };
  close.addEventListener("click", () => {
    if (!closeTabOf(el)) {
      const panel = /** @type {HTMLElement | null} */ (el.closest(".cx-plan-panel"));
      (panel ?? root).hidden = true;
    }
  }, { signal: controller.signal });
  for (const name of ["change:title", "change:label"]) model.on(name, draw);
  if (session) {
    session.statusChanged.connect(draw);
    session.kernelChanged.connect(draw);
  }
  const ref = model.get("ref");
  if (manager && ref) {
    manager.get_model(ref).then((/** @type {any} */ found) => {
      if (controller.signal.aborted || !found) return;
      real = found;
      real.on("comm_live_update", draw);
      real.on("comm:close", draw);
      draw();
    }, draw);
  }
  controller.signal.addEventListener("abort", () => {
    for (const name of ["change:title", "change:label"]) model.off(name, draw);
    if (session) {
      session.statusChanged.disconnect(draw);
      session.kernelChanged.disconnect(draw);
    }
    if (real) {
      real.off("comm_live_update", draw);
      real.off("comm:close", draw);
    }
  });
  draw();
  return () => controller.abort();
}

/** @param {{model: any, el: HTMLElement}} ctx */
function renderNote({ model, el }) {
  const controller = new AbortController();
  const note = document.createElement("div");
  note.className = "cx-plan-panel-note";
  note.setAttribute("role", "status");
  el.append(note);
  const detected = panelArea(el.ownerDocument);
  const draw = () => {
    note.dataset.area = model.get("area") || detected;
    // the kernel's own message wins: it knows things the page does not (sidecar missing)
    note.textContent = model.get("message") || noteText(model.get("area"), detected, model.get("title"));
  };
  const traits = ["change:area", "change:title", "change:message"];
  for (const name of traits) model.on(name, draw);
  controller.signal.addEventListener("abort", () => {
    for (const name of traits) model.off(name, draw);
  });
  draw();
  model.send(placedRequest(detected));
  return () => controller.abort();
}

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render(ctx) {
    return ctx.model.get("role") === "header" ? renderHeader(ctx) : renderNote(ctx);
  },
};
