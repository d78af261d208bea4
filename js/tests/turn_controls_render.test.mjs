// The turn controls' drawing of a real Codex thread's state: the waiting note beside the status and
// the settings line follow their traits. Node has no DOM: a small stand-in of document.createElement
// records the tree the view builds; the browser test draws the real one.
import { test } from "node:test";
import assert from "node:assert/strict";

class Text { constructor(text) { this.text = text; } }
class Element {
  constructor(tag) {
    this.tagName = tag.toUpperCase(); this.className = ""; this.attributes = {}; this.dataset = {};
    this.childNodes = []; this.hidden = false; this.disabled = false;
  }
  append(...nodes) { for (const n of nodes) this.childNodes.push(typeof n === "string" ? new Text(n) : n); }
  replaceChildren(...nodes) { this.childNodes = []; this.append(...nodes); }
  setAttribute(k, v) { this.attributes[k] = String(v); }
  addEventListener() {}
  set textContent(v) { this.childNodes = [new Text(String(v))]; }
  get textContent() { return this.childNodes.map((n) => (n instanceof Text ? n.text : n.textContent)).join(""); }
  get children() { return this.childNodes.filter((n) => n instanceof Element); }
  all() { return this.children.flatMap((c) => [c, ...c.all()]); }
  one(cls) { return this.all().find((e) => e.className.split(" ").includes(cls)); }
}
globalThis.document = { createElement: (tag) => new Element(tag) };
const view = (await import("../turn_controls.js")).default;

/** A stand-in of anywidget's model: traits, change listeners, and what the view sent. */
function model(traits) {
  const listeners = {};
  return {
    get: (name) => traits[name],
    set(name, value) { traits[name] = value; for (const f of listeners[`change:${name}`] ?? []) f(); },
    on: (name, f) => { (listeners[name] ??= []).push(f); },
    off: (name, f) => { listeners[name] = (listeners[name] ?? []).filter((g) => g !== f); },
    send() {},
    listeners,
  };
}

test("the waiting note shows beside the status while Codex waits, the settings line follows their trait", () => {
  const m = model({ status: "running", stoppable: true, last_stop: {}, error: "", usage: {}, goal: {}, options: [],
    last_option: {}, waiting: "", settings: "gpt-5.1-codex \u00b7 approvals: on-request" });
  const host = new Element("div");
  const cleanup = view.render({ model: m, el: host });
  const root = host.children[0];
  const waiting = root.one("cx-turn-waiting");
  const settings = root.one("cx-turn-settings");
  assert.equal(waiting.hidden, true);
  assert.equal(settings.hidden, false);
  assert.equal(settings.textContent, "Settings: gpt-5.1-codex \u00b7 approvals: on-request");
  // right after the status, before Stop: where a person looks
  const order = root.children.map((e) => e.className);
  assert.equal(order.indexOf("cx-turn-waiting"), order.indexOf("cx-turn-status") + 1);
  m.set("waiting", "Waiting on your approval");
  assert.equal(waiting.hidden, false);
  assert.equal(waiting.textContent, "Waiting on your approval");
  assert.equal(waiting.attributes.role, "status");
  m.set("settings", "gpt-5.1-codex \u00b7 Plan mode");
  assert.equal(settings.textContent, "Settings: gpt-5.1-codex \u00b7 Plan mode");
  m.set("waiting", "");
  assert.equal(waiting.hidden, true);
  m.set("settings", "");
  assert.equal(settings.hidden, true);
  cleanup();
  assert.deepEqual([m.listeners["change:waiting"], m.listeners["change:settings"]], [[], []]);
});
