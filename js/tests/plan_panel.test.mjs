import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { PANEL_AREAS, PANEL_TO_KERNEL, noteText, panelArea, placedRequest } from "../plan_panel.js";

const json = JSON.parse(await readFile(new URL("../protocol.json", import.meta.url), "utf8"));

test("plan_panel.js uses exactly the kinds and areas of protocol.json", () => {
  assert.deepEqual(Object.keys(PANEL_TO_KERNEL), Object.keys(json.widgets.plan_panel.to_kernel));
  assert.deepEqual([...PANEL_AREAS], json.widgets.plan_panel.areas);
});

test("the area comes from the page: JupyterLab's shell has a side area, anything else does not", () => {
  const page = (lab) => ({ querySelector: (sel) => (lab && sel === ".jp-LabShell" ? {} : null) });
  assert.equal(panelArea(page(true)), "side");
  assert.equal(panelArea(page(false)), "cell");
});

test("placed requests carry a fresh id and only known areas", () => {
  const a = placedRequest("side");
  assert.deepEqual(Object.keys(a).sort(), ["area", "id", "kind"]);
  assert.equal(a.kind, "placed");
  assert.notEqual(placedRequest("cell").id, a.id);
  assert.throws(() => placedRequest("moon"), /unknown plan panel area "moon"/);
});

test("the note says where the plan is", () => {
  assert.match(noteText("", "side", "Codex plan"), /^Codex plan: open in JupyterLab's right side area/);
  assert.match(noteText("cell", "side", "Codex plan"), /no side area, so the plan and Stop control are shown here/);
});

test("the header says why no kernel backs the panel, and nothing while one does", async () => {
  const { deadReason } = await import("../plan_panel.js");
  assert.equal(deadReason({ commLive: true, kernel: { status: "idle" } }), "");
  assert.equal(deadReason({ commLive: null, kernel: { status: "busy" } }), "");
  assert.match(deadReason({ commLive: true, kernel: null }), /kernel behind this panel has shut down/);
  assert.match(deadReason({ commLive: true, kernel: { status: "dead" } }), /has shut down/);
  assert.match(deadReason({ commLive: true, kernel: { isDisposed: true } }), /has shut down/);
  assert.match(deadReason({ commLive: false, kernel: { status: "idle" } }), /^No kernel backs this panel/);
});
