// The plan panel's note in the cell output. It decides, in the browser where the answer
// is known, whether this front end has a side area for the panel (JupyterLab's shell),
// and tells the kernel with {id, kind: "placed", area}. "cell" makes the kernel put the
// checklist and Stop control into this cell's output instead (Notebook 7, VS Code...).
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

export default {
  /** @param {{model: any, el: HTMLElement}} ctx */
  render({ model, el }) {
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
  },
};
