// Code Mode prelude: installs the globals of spec 05 §6.3 in a fresh isolate.
// Host protocol: JS -> Python messages are JSON strings queued in an outbox; the host
// is signalled once per non-empty outbox and drains it with __cx_drain(). Python -> JS
// goes through __cx_settle (nested call results) and __cx_fire (timers).
// Placeholders replaced by the host: __CX_TOOLS__ (array of {name, description, kind}),
// __CX_STORE__ (object of stored values).
(function (signal, toolList, stored) {
  "use strict";
  const outbox = [];
  const send = (msg) => {
    outbox.push(JSON.stringify(msg));
    if (outbox.length === 1) signal();
  };
  const EXIT = Symbol("exit");
  const pending = new Map();
  let nextCall = 0;
  const timers = new Map();
  let nextTimer = 1;
  let finished = false;

  const describe = (value) => {
    if (typeof value === "string") return value;
    try {
      const json = JSON.stringify(value);
      if (json !== undefined) return json;
    } catch (_) { /* fall through */ }
    return String(value);
  };
  // Codex runs the script as the module exec_main.mjs and reports an Error's stack; we run
  // it as an AsyncFunction body named by sourceURL, so map its frames back to the user's
  // lines and columns and drop our own frames.
  const STRICT = "\"use strict\";";
  const SOURCE_URL = "\n//# sourceURL=exec_main.mjs";
  const FRAME = /^    at (?:(async )?(.*?) \()?exec_main\.mjs:(\d+):(\d+)\)?$/;
  const userFrame = (line) => {
    const m = FRAME.exec(line);
    if (m === null) return null;
    const row = Number(m[3]) - 2;
    const col = row === 1 ? Number(m[4]) - STRICT.length : Number(m[4]);
    const where = `exec_main.mjs:${row}:${col}`;
    const name = m[2] === undefined || m[2] === "eval" ? "" : m[2];
    return `    at ${m[1] || ""}${name ? `${name} (${where})` : where}`;
  };
  const errorText = (error) => {
    try {
      const stack = error instanceof Error ? error.stack : undefined;
      if (typeof stack !== "string") return String(error);
      const lines = stack.split("\n");
      const head = [];
      let i = 0;
      for (; i < lines.length && !lines[i].startsWith("    at "); i++) head.push(lines[i]);
      const frames = lines.slice(i).map(userFrame).filter((f) => f !== null);
      return [...head, ...frames].join("\n");
    } catch (_) { return "script threw a value that cannot be converted to a string"; }
  };
  const hidden = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  const visible = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: true });

  const call = (tool, input) => {
    let payload;
    if (tool.kind === "function") {
      if (input === undefined) {
        payload = "{}";
      } else if (input !== null && typeof input === "object" && !Array.isArray(input)) {
        try { payload = JSON.stringify(input); } catch (_) { payload = undefined; }
      }
      if (payload === undefined) {
        return Promise.reject(`tool \`${tool.name}\` expects a JSON object for arguments`);
      }
    } else {
      if (typeof input !== "string") return Promise.reject(`tool \`${tool.name}\` expects a string input`);
      payload = input;
    }
    const id = nextCall++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ t: "call", id, tool: tool.name, input: payload });
    });
  };

  const tools = {};
  for (const tool of toolList) {
    Object.defineProperty(tools, tool.name, { value: (input) => call(tool, input), enumerable: true });
  }
  visible("tools", Object.freeze(tools));
  visible("ALL_TOOLS", Object.freeze(toolList.map((t) => Object.freeze({ name: t.name, description: t.description }))));

  const store = Object.create(null);
  for (const key of Object.keys(stored)) store[key] = stored[key];

  visible("text", (value) => { send({ t: "item", item: { type: "input_text", text: describe(value) } }); });
  const imageDetail = (detail) => (detail === undefined || detail === null ? {} : { detail: String(detail) });
  visible("image", (urlOrItem, detail) => {
    let url, embedded;
    if (typeof urlOrItem === "string") {
      url = urlOrItem;
    } else if (urlOrItem && typeof urlOrItem === "object" && typeof urlOrItem.image_url === "string") {
      url = urlOrItem.image_url; embedded = urlOrItem.detail;
    } else if (urlOrItem && urlOrItem.type === "image" && typeof urlOrItem.data === "string") {
      url = `data:${urlOrItem.mimeType};base64,${urlOrItem.data}`;
      embedded = urlOrItem._meta ? urlOrItem._meta["codex/imageDetail"] : undefined;
    } else {
      throw new TypeError("image expects a data URL string, an { image_url } object or an MCP ImageContent block");
    }
    // Codex 0.169 fails the script with this exact text (no stack) for any other URL.
    if (!/^data:/i.test(url)) throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
    send({ t: "item", item: { type: "input_image", image_url: url, ...imageDetail(detail ?? embedded) } });
  });
  visible("audio", (url) => {
    if (typeof url !== "string") throw new TypeError("audio expects a data URL string");
    send({ t: "item", item: { type: "input_audio", audio_url: url } });
  });
  visible("generatedImage", (result) => {
    if (!result || typeof result.image_url !== "string") throw new TypeError("generatedImage expects { image_url }");
    if (/^https?:/i.test(result.image_url)) throw new TypeError("generatedImage does not support HTTP(S) URLs");
    send({ t: "item", item: { type: "input_image", image_url: result.image_url } });
    if (typeof result.output_hint === "string") send({ t: "item", item: { type: "input_text", text: result.output_hint } });
  });
  visible("store", (key, value) => {
    if (typeof key !== "string") throw new TypeError("store key must be a string");
    let json;
    try { json = JSON.stringify(value); } catch (_) { json = undefined; }
    if (json === undefined) throw new TypeError(`store value for key ${JSON.stringify(key)} is not JSON-serializable`);
    store[key] = JSON.parse(json);
    send({ t: "store", key, value: json });
  });
  visible("load", (key) => {
    if (!(key in store)) return undefined;
    return JSON.parse(JSON.stringify(store[key]));
  });
  visible("notify", (value) => { send({ t: "notify", text: describe(value) }); });
  visible("yield_control", () => { send({ t: "yield" }); });
  visible("exit", () => { if (!finished) { finished = true; send({ t: "done" }); } throw EXIT; });
  visible("setTimeout", (callback, delayMs) => {
    if (typeof callback !== "function") throw new TypeError("setTimeout expects a function");
    const id = nextTimer++;
    timers.set(id, callback);
    const ms = Number(delayMs);
    send({ t: "timer", id, ms: Number.isFinite(ms) && ms > 0 ? ms : 0 });
    return id;
  });
  visible("clearTimeout", (id) => { timers.delete(id); });

  for (const name of ["console", "Atomics", "SharedArrayBuffer", "WebAssembly"]) delete globalThis[name];

  hidden("__cx_drain", () => {
    const batch = "[" + outbox.join(",") + "]";
    outbox.length = 0;
    return batch;
  });
  hidden("__cx_settle", (id, ok, value) => {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    if (ok) entry.resolve(value); else entry.reject(value);
  });
  hidden("__cx_fire", (id) => {
    const callback = timers.get(id);
    if (callback === undefined) return;
    timers.delete(id);
    try { callback(); } catch (_) { /* an exception in a timer callback does not end the script */ }
  });
  const AsyncFunction = (async function () {}).constructor;
  const done = (error) => {
    if (finished) return;
    finished = true;
    send(error === undefined ? { t: "done" } : { t: "done", error: errorText(error) });
  };
  hidden("__cx_run", (source) => {
    let main;
    try { main = new AsyncFunction(STRICT + source + SOURCE_URL); } catch (error) { done(error); return; }
    main.call(undefined).then(() => done(), (error) => (error === EXIT ? done() : done(error)));
  });
})(__CX_SIGNAL__, __CX_TOOLS__, __CX_STORE__);
