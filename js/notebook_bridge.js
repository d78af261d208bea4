// The notebook bridge: how the kernel's notebook tools read, edit and run the open notebook.
//
// No view: the work happens in `initialize`, which anywidget runs when the front end creates
// the model (the kernel never displays this widget). The path to the document:
// - the widget manager's document context (`widget_manager.context`, JupyterLab's and Notebook 7's
//   notebook widget manager): its shared model holds the live cells, and edits made through it are
//   what the person sees and can undo (Ctrl+Z in the cell's editor; z in command mode for an insertion);
// - ipylab's front-end model (`frontend` holds its reference), whose extension hands widget models
//   the JupyterLab application: its command registry runs a cell in its page
//   (`notebook:run-cell` with the panel's `widgetId`).
// Kernel -> browser is the synced `requests` list ({id, op, args}) and `owner` (the page that
// answers, so two open tabs do not both apply an edit); browser -> kernel is `hello` once, then one
// `reply` per request.
//
// Stop reaches the page: a request the kernel no longer waits for (the turn was stopped, or the
// call timed out) leaves `requests`. The page applies the changes (insert, edit, run) one at a
// time, in the order the kernel sent them (`RequestQueue`), so one still waiting its turn when it
// leaves the list is skipped, and the page says so (`stopped`, outcome `skipped`); one already
// started cannot be taken back half-way (a running cell runs to its end), so the page says what it
// did when it ends (`stopped`, outcome `finished` or `failed`). Reading the cells changes nothing
// and is answered at once.
//
// Send to agent: the extension's bridge (`cells_command`) registers `codex_nb:send-cells-to-agent`
// once per application (the cell context menu here, the palette through ipylab from the kernel).
// Each notebook's bridge adds its handler, keyed by the notebook's context, so the command sends the
// selected cells to the kernel of the notebook it runs in. While the kernel lists cells in
// `attached_ids`, each change to the notebook resends those cells (`cells_changed`, coalesced in a
// microtask: it reaches the kernel before the run of a prompt the person starts afterwards).

const GET_MODEL_TIMEOUT_MS = 4000;

/** @param {number} ms @param {string} what */
function timeout(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms));
}

/** @param {any} model */
async function findApp(model) {
  const ref = model.get("frontend");
  if (typeof ref !== "string" || !ref.startsWith("IPY_MODEL_")) return { app: null, reason: "no ipylab front end was given" };
  try {
    const lab = await Promise.race([model.widget_manager.get_model(ref.slice("IPY_MODEL_".length)), timeout(GET_MODEL_TIMEOUT_MS, "ipylab's model")]);
    const app = lab && (lab._app ?? lab.constructor?.app);
    if (!app || !app.commands) return { app: null, reason: "ipylab's model has no JupyterLab application" };
    return { app, reason: "" };
  } catch (err) {
    return { app: null, reason: `ipylab's front-end extension is not loaded in this page (${String(err)})` };
  }
}

/** @param {any} cell */
function cellJSON(cell) {
  const raw = cell.toJSON();
  return { id: raw.id ?? cell.getId(), cell_type: raw.cell_type, source: raw.source ?? "",
    execution_count: raw.execution_count ?? null, outputs: raw.outputs ?? [] };
}

/** @param {any} shared @param {string} id */
function findCell(shared, id) {
  const index = shared.cells.findIndex((/** @type {any} */ c) => c.getId() === id);
  if (index < 0) throw new Error(`not_found:${id}`);
  return { index, cell: shared.cells[index] };
}

/** @param {any} app @param {any} context */
function findPanel(app, context) {
  for (const widget of app.shell.widgets("main")) {
    if (widget.context === context && widget.content && "activeCellIndex" in widget.content) return widget;
  }
  throw new Error("the notebook's page is not open in this front end (open the notebook, then try again)");
}

/**
 * One request: cells | insert | edit | run.
 * @param {{app: any, context: any}} env @param {string} op @param {any} args
 */
export async function perform(env, op, args) {
  const shared = env.context.model.sharedModel;
  if (op === "cells") return shared.cells.map(cellJSON);
  if (op === "insert") {
    const cell = shared.insertCell(args.index, { cell_type: args.cell_type, source: args.source, metadata: {} });
    return cellJSON(cell);
  }
  if (op === "edit") {
    const { cell } = findCell(shared, args.cell_id);
    if (cell.getSource() !== args.expected_source) throw new Error(`conflict:${args.cell_id}`);
    cell.setSource(args.source);
    return cellJSON(cell);
  }
  if (op === "run") {
    if (!env.app) throw new Error("running a cell needs ipylab's JupyterLab application, which this page lacks");
    const { index } = findCell(shared, args.cell_id);
    const panel = findPanel(env.app, env.context);
    panel.content.activeCellIndex = index;
    panel.content.deselectAll();
    await env.app.commands.execute("notebook:run-cell", { widgetId: panel.id, activate: false });
    return cellJSON(findCell(shared, args.cell_id).cell);
  }
  throw new Error(`unknown operation ${op}`);
}

export const SEND_CELLS = "codex_nb:send-cells-to-agent";
export const CELL_SELECTOR = ".jp-Notebook .jp-Cell";
const MAX_SENT_CELLS = 51; // one more than the kernel takes, so it can say there were too many
const REGISTRY = Symbol.for("codex_nb.send_cells");

/** The notebook panel in focus, if any. @param {any} app */
function currentNotebook(app) {
  const widget = app.shell.currentWidget;
  return widget && widget.context && widget.content && "activeCellIndex" in widget.content ? widget : null;
}

/** The indexes of the selected cells (the active one when none is selected). @param {any} panel */
export function selectedIndexes(panel) {
  const notebook = panel.content;
  /** @type {number[]} */
  const out = [];
  notebook.widgets.forEach((/** @type {any} */ cell, /** @type {number} */ i) => {
    if (notebook.isSelectedOrActive(cell)) out.push(i);
  });
  return out;
}

/**
 * The command, registered once per application; each notebook's bridge adds its handler.
 * @param {any} app @returns {Map<any, (panel: any) => void>}
 */
function sendCellsHandlers(app) {
  if (app[REGISTRY]) return app[REGISTRY];
  /** @type {Map<any, (panel: any) => void>} */
  const handlers = new Map();
  app[REGISTRY] = handlers;
  app.commands.addCommand(SEND_CELLS, {
    label: "Send to agent",
    caption: "Attach the selected cells to the next %%codex prompt of this notebook's kernel (codex_nb)",
    isEnabled: () => {
      const panel = currentNotebook(app);
      return Boolean(panel && handlers.has(panel.context));
    },
    execute: () => {
      const panel = currentNotebook(app);
      const handler = panel && handlers.get(panel.context);
      if (!handler) throw new Error("Send to agent: this notebook's kernel has not run %load_ext codex_nb");
      handler(panel);
    },
  });
  app.contextMenu.addItem({ command: SEND_CELLS, selector: CELL_SELECTOR, rank: 30 });
  return handlers;
}

/**
 * This notebook's side of Send to agent; returns what undoes it.
 * @param {any} app @param {any} context @param {any} model @param {(message: Record<string, any>) => void} send
 */
function serveSendCells(app, context, model, send) {
  const shared = context.model.sharedModel;
  const handlers = sendCellsHandlers(app);
  /** @param {number} index */
  const snapshot = (index) => ({ index, ...cellJSON(shared.cells[index]) });
  const handler = (/** @type {any} */ panel) => {
    const indexes = selectedIndexes(panel);
    const cells = indexes.slice(0, MAX_SENT_CELLS).map(snapshot);
    last = JSON.stringify(cells);
    send({ kind: "attach", selected: indexes.length, cells });
  };
  handlers.set(context, handler);
  let queued = false;
  let last = "";
  const resend = () => {
    queued = false;
    const ids = new Set(model.get("attached_ids") ?? []);
    if (!ids.size) return;
    /** @type {any[]} */
    const cells = [];
    shared.cells.forEach((/** @type {any} */ cell, /** @type {number} */ i) => {
      if (ids.has(cell.getId())) cells.push(snapshot(i));
    });
    const text = JSON.stringify(cells);
    if (text === last) return; // another cell changed (a running cell's output): nothing to send
    last = text;
    send({ kind: "cells_changed", cells });
  };
  const changed = () => {
    if (queued || !(model.get("attached_ids") ?? []).length) return;
    queued = true;
    queueMicrotask(resend);
  };
  const notify = () => {
    const status = model.get("attach_status") ?? {};
    if (!status.text || !app.commands.hasCommand("apputils:notify")) return;
    app.commands.execute("apputils:notify", {
      message: `codex_nb: ${status.text}`,
      type: status.ok ? "success" : "error",
      options: { autoClose: 8000 },
    }).catch(() => {});
  };
  // every change of the document (a cell's source, its outputs) is an update of its Y.Doc
  const ydoc = shared.ydoc;
  ydoc.on("update", changed);
  model.on("change:attach_status", notify);
  return () => {
    if (handlers.get(context) === handler) handlers.delete(context);
    ydoc.off("update", changed);
    model.off("change:attach_status", notify);
  };
}

const READS = new Set(["cells"]);

/**
 * The page's side of the requests: reads at once, changes one at a time in order, and what a
 * Stop did to each request the page had received. Pure (no DOM, no widget model): `perform` does
 * the work, `send` takes each message for the kernel.
 */
export class RequestQueue {
  /**
   * @param {(op: string, args: any) => Promise<any>} perform
   * @param {(message: Record<string, any>) => void} send
   */
  constructor(perform, send) {
    this.perform = perform;
    this.send = send;
    /** @type {{id: string, op: string, args: any}[]} changes received, not started */
    this.waiting = [];
    /** @type {Map<string, {op: string, withdrawn: boolean}>} started, not ended */
    this.running = new Map();
    /** @type {Set<string>} ids received (pruned to those the kernel still lists) */
    this.received = new Set();
    this.busy = false;
  }

  /** The kernel's current `requests` list. @param {{id: string, op: string, args: any}[]} requests */
  sync(requests) {
    const listed = new Set(requests.map((r) => r.id));
    for (const request of requests) {
      if (this.received.has(request.id)) continue;
      this.received.add(request.id);
      if (READS.has(request.op)) this.start(request);
      else this.waiting.push(request);
    }
    for (const request of this.waiting.filter((r) => !listed.has(r.id))) {
      this.send({ kind: "stopped", id: request.id, op: request.op, outcome: "skipped",
        detail: "the kernel stopped waiting before the page started it; nothing was done" });
    }
    this.waiting = this.waiting.filter((r) => listed.has(r.id));
    for (const [id, entry] of this.running) if (!listed.has(id)) entry.withdrawn = true;
    for (const id of this.received) if (!listed.has(id) && !this.running.has(id)) this.received.delete(id);
    this.next();
  }

  next() {
    if (this.busy || !this.waiting.length) return;
    const request = /** @type {{id: string, op: string, args: any}} */ (this.waiting.shift());
    this.busy = true;
    this.start(request).finally(() => {
      this.busy = false;
      this.next();
    });
  }

  /** @param {{id: string, op: string, args: any}} request */
  async start(request) {
    const entry = { op: request.op, withdrawn: false };
    this.running.set(request.id, entry);
    let ok = true;
    let result = null;
    let error = "";
    try {
      result = await this.perform(request.op, request.args);
    } catch (err) {
      ok = false;
      error = String(/** @type {any} */ (err)?.message ?? err);
    }
    this.running.delete(request.id);
    if (entry.withdrawn) {
      // the kernel no longer waits: say what was done instead of answering
      this.send({ kind: "stopped", id: request.id, op: request.op, outcome: ok ? "finished" : "failed",
        detail: ok ? "the page had started it before the kernel stopped waiting and finished it" : error });
    } else {
      this.send({ kind: "reply", id: request.id, ok, result, error });
    }
  }
}

/** @param {{model: any}} ctx */
async function initialize({ model }) {
  const page = `page-${Math.random().toString(36).slice(2)}`;
  const context = model.widget_manager?.context ?? null;
  const document = Boolean(context?.model?.sharedModel?.cells);
  const { app, reason } = await findApp(model);
  const appName = app ? `${app.name ?? "JupyterLab"} ${app.version ?? ""}`.trim() : "";
  const why = !document ? "this front end gives widgets no notebook document (not JupyterLab 4 or Notebook 7)" : reason;
  const env = { app, context };
  const queue = new RequestQueue((op, args) => perform(env, op, args), (message) => model.send({ ...message, page }));
  const serve = () => {
    if (model.get("owner") !== page) return;
    queue.sync(model.get("requests") ?? []);
  };
  model.on("change:requests", serve);
  model.on("change:owner", serve);
  const stopSending = app && document && model.get("cells_command")
    ? serveSendCells(app, context, model, (message) => model.send({ ...message, id: page, page }))
    : () => {};
  model.send({ kind: "hello", id: page, app: appName, document, commands: Boolean(app), reason: why });
  return () => {
    stopSending();
    model.off("change:requests", serve);
    model.off("change:owner", serve);
  };
}

export default { initialize };
