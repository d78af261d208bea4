// Code Mode prelude: installs Codex's Code Mode globals in a fresh isolate.
// Host protocol: JS -> Python messages are JSON strings queued in an outbox; the host
// is signalled once per non-empty outbox and drains it with __cx_drain(). Python -> JS
// goes through __cx_settle (nested call results) and __cx_fire (timers).
// Placeholders replaced by the host: __CX_TOOLS__ (array of {name, description, kind}),
// __CX_STORE__ (object of stored values), __CX_MEMORY_LIMIT__ (bytes; 0 = no cap).
//
// The script may replace any global or prototype method (JSON.stringify,
// Array.prototype.join, Promise.prototype.then, ...). Everything below that runs after
// the script starts therefore uses only intrinsics captured here, null-prototype
// objects (no inherited setters or toJSON) and index loops (no iterators).
(function (signal, toolList, stored, memoryLimit) {
  "use strict";
  const apply = Reflect.apply;
  const construct = Reflect.construct;
  const defineProperty = Object.defineProperty;
  const objectKeys = Object.keys;
  const isArray = Array.isArray;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toString = String;
  const isFinite = Number.isFinite;
  const toWellFormed = String.prototype.toWellFormed;
  const toLowerCase = String.prototype.toLowerCase;
  const stringSlice = String.prototype.slice;
  const OriginalPromise = Promise;
  const promiseThen = Promise.prototype.then;
  const OriginalProxy = Proxy;
  const OriginalRangeError = RangeError;
  const OriginalTypeError = TypeError;
  const bufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const typedByteLength = Object.getOwnPropertyDescriptor(TypedArrayPrototype, "byteLength").get;
  const typedBuffer = Object.getOwnPropertyDescriptor(TypedArrayPrototype, "buffer").get;
  const objectCreate = Object.create;
  const newObject = () => objectCreate(null);
  // Lone surrogates leave as U+FFFD, as Codex's V8 bridge turns JS text into output.
  const wellFormed = (text) => apply(toWellFormed, text, []);

  const outbox = newObject();
  let queued = 0;
  const send = (json) => {
    outbox[queued] = json;
    queued += 1;
    if (queued === 1) signal();
  };
  // Messages are written by hand: keys are ours, strings go through the captured stringify.
  const quote = (text) => stringify(wellFormed(text));
  const message = (fields) => {
    const keys = objectKeys(fields);
    let json = "{";
    for (let i = 0; i < keys.length; i += 1) {
      const value = fields[keys[i]];
      if (value === undefined) continue;
      if (json.length > 1) json += ",";
      json += quote(keys[i]) + ":";
      if (typeof value === "string") json += quote(value);
      else if (typeof value === "number" || typeof value === "boolean") json += stringify(value);
      else json += message(value);
    }
    return json + "}";
  };
  const post = (fields) => send(message(fields));

  const EXIT = newObject();
  const pending = newObject();
  let nextCall = 0;
  const timers = newObject();
  let nextTimer = 1;
  let finished = false;

  const describe = (value) => {
    if (typeof value === "string") return value;
    try {
      const json = stringify(value);
      if (typeof json === "string") return json;
    } catch (_) { /* fall through */ }
    return toString(value);
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
    defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  const visible = (name, value) =>
    defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: true });
  const rejected = (reason) => new OriginalPromise((_, reject) => reject(reason));

  // -- ArrayBuffer memory: V8's heap cap does not see buffer backing stores -------------------
  // Every constructor and method that makes a backing store is wrapped and its bytes are
  // counted while the buffer lives. Before refusing an allocation, a full collection runs
  // (V8 collects nothing by itself inside one synchronous stretch) and dead buffers are
  // credited. The host starts V8 with --expose-gc-as=__cx_gc; V8 makes that global
  // non-configurable, so we keep the function and leave the script an inert undefined.
  //
  // Liveness must be read synchronously, inside the script's own job. FinalizationRegistry
  // callbacks run in a later task, and a WeakRef to the buffer keeps it alive until the job
  // ends (a loop of dropped buffers would really hold them all). So a buffer is instead the
  // WeakMap key of a small sentinel, alive exactly while the buffer is, and a WeakRef points at
  // the sentinel. Two rules of WeakRef shape the rest: a WeakRef made in the current job, and
  // one whose deref() found its target, keep that target until the job ends. Hence (1) the
  // WeakRefs come from a pool the host refills in its own evaluation before it resumes the
  // script (a new job); (2) a unit found alive is not asked again in that job, and the newest
  // unit, which often still sits in a register, is asked only if the others did not free
  // enough; (3) a unit made from a fresh WeakRef (the pool ran dry) counts as live until the
  // next job. Small buffers share a unit (a group, dead once all its members are). A job has
  // only the pool's tokens, so groups grow as the pool drains: a long synchronous churn of
  // buffers of any size keeps being credited, at the price that a surviving member keeps its
  // whole group counted.
  const collect = typeof globalThis.__cx_gc === "function" ? globalThis.__cx_gc : null;
  if (collect !== null) defineProperty(globalThis, "__cx_gc", { value: undefined, writable: false });
  const OriginalWeakRef = WeakRef;
  const deref = WeakRef.prototype.deref;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const sentinelOf = new WeakMap();  // buffer -> its unit's sentinel (an ephemeron: dies with it)
  const baseGroupBytes = memoryLimit / 256 > 65536 ? memoryLimit / 256 : 65536;
  const BASE_GROUP_MEMBERS = 64;
  const POOL_START = 4096;
  const POOL_MAX = 65536;
  let bufferBytes = 0;
  let job = 0;  // advanced at the start of every host evaluation that runs script code
  // Null-prototype tables with our own counts: an index setter on Array.prototype cannot reach them.
  let units = newObject();  // {bytes, members, ref, sentinel (open group only), askedIn, freshIn}
  let unitCount = 0;
  let sweepAt = 1024;  // unit count that triggers a cheap sweep, so dead units never pile up
  let group = null;  // the open group of small buffers
  const pool = newObject();
  let poolCount = 0;
  let poolSize = POOL_START;
  let poolRanDry = false;
  const freshToken = () => {
    const token = newObject();
    token.sentinel = newObject();
    token.ref = new OriginalWeakRef(token.sentinel);
    return token;
  };
  const refill = () => {
    job += 1;
    if (poolRanDry && poolSize < POOL_MAX) poolSize *= 2;  // the last job needed more: grow
    poolRanDry = false;
    for (; poolCount < poolSize; poolCount += 1) pool[poolCount] = freshToken();
  };
  refill();
  const newUnit = () => {
    let token;
    const unit = newObject();
    if (poolCount > 0) {
      poolCount -= 1;
      token = pool[poolCount];
      delete pool[poolCount];
      unit.freshIn = -1;
    } else {
      poolRanDry = true;
      token = freshToken();
      unit.freshIn = job;
    }
    unit.bytes = 0;
    unit.members = 0;
    unit.ref = token.ref;
    unit.sentinel = token.sentinel;  // dropped once no more members join
    unit.askedIn = -1;
    token.sentinel.unit = unit;  // reachable only through a member buffer
    units[unitCount] = unit;
    unitCount += 1;
    return unit;
  };
  const closeGroup = () => {
    if (group !== null) group.sentinel = null;  // from now on only its members keep it alive
    group = null;
  };
  const dead = (unit) => {
    if (unit.sentinel !== null || unit.freshIn === job || unit.askedIn === job) return false;
    if (apply(deref, unit.ref, []) === undefined) return true;
    unit.askedIn = job;  // that deref keeps the sentinel until the job ends: asking again tells nothing
    return false;
  };
  const sweep = (withNewest) => {
    const kept = newObject();
    let count = 0;
    const last = withNewest ? unitCount : unitCount - 1;
    for (let i = 0; i < unitCount; i += 1) {
      const unit = units[i];
      if (i < last && dead(unit)) bufferBytes -= unit.bytes;
      else { kept[count] = unit; count += 1; }
    }
    units = kept;
    unitCount = count;
    sweepAt = count * 2 > 1024 ? count * 2 : 1024;
  };
  const reclaim = () => {
    closeGroup();  // its members may be dead by now, and an open group is never swept
    if (collect !== null) collect();
    sweep(false);
  };
  const reserve = (bytes) => {
    if (!memoryLimit || bytes <= 0 || bufferBytes + bytes <= memoryLimit) return;
    reclaim();
    if (bufferBytes + bytes > memoryLimit) sweep(true);
    if (bufferBytes + bytes > memoryLimit) {
      post({ t: "oom" });
      throw new OriginalRangeError(`JavaScript memory limit reached (${memoryLimit} bytes)`);
    }
  };
  const requested = (value) => {
    const n = +value;
    return n > 0 ? n : 0;
  };
  const unitOf = (buffer) => {
    const sentinel = apply(weakGet, sentinelOf, [buffer]);
    return sentinel === undefined ? undefined : sentinel.unit;
  };
  const trackBuffer = (buffer) => {
    if (unitOf(buffer) !== undefined) return;
    const bytes = apply(bufferByteLength, buffer, []);
    reserve(bytes);
    // 1 while at least half the pool is left, 4 down to a quarter, 16 down to an eighth, ...
    let scale = 1;
    for (let left = poolCount * 2; left < poolSize && scale < 1048576; left *= 2) scale *= 4;
    const groupBytes = baseGroupBytes * scale;
    let unit;
    if (bytes < groupBytes) {
      if (group === null || group.bytes + bytes > groupBytes || group.members >= BASE_GROUP_MEMBERS * scale) {
        closeGroup();
        group = newUnit();
      }
      unit = group;
    } else {
      unit = newUnit();
    }
    apply(weakSet, sentinelOf, [buffer, unit.sentinel]);
    if (unit !== group) unit.sentinel = null;
    unit.bytes += bytes;
    unit.members += 1;
    bufferBytes += bytes;
    if (unitCount >= sweepAt) reclaim();  // a collection first, or every dead unit would look alive
  };
  const replaceMethod = (proto, name, wrap) => {
    const original = proto[name];
    if (typeof original !== "function") return;
    const wrapped = wrap(original);
    defineProperty(wrapped, "name", { value: name });
    defineProperty(proto, name, { value: wrapped, writable: true, configurable: true, enumerable: false });
  };
  const guardConstructor = (name, elementSize) => {
    const original = globalThis[name];
    const guarded = new OriginalProxy(original, {
      construct(target, args, newTarget) {
        const first = args[0];
        if (typeof first !== "object" || first === null) reserve(requested(first) * (elementSize || 1));
        const made = construct(target, args, newTarget);
        trackBuffer(elementSize ? apply(typedBuffer, made, []) : made);
        return made;
      },
    });
    // Species lookups (slice, map, subclasses, from/of) now construct through the guard too.
    defineProperty(original.prototype, "constructor",
      { value: guarded, writable: true, configurable: true, enumerable: false });
    defineProperty(globalThis, name, { value: guarded, writable: true, configurable: true, enumerable: false });
    for (const method of ["fromBase64", "fromHex"]) {
      if (typeof original[method] === "function") {
        const intrinsic = original[method];
        defineProperty(original, method, { value: function (...args) {
          const made = apply(intrinsic, original, args);
          trackBuffer(apply(typedBuffer, made, []));
          return made;
        }, writable: true, configurable: true, enumerable: false });
      }
    }
  };
  guardConstructor("ArrayBuffer", 0);
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
    "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    if (typeof globalThis[name] === "function") guardConstructor(name, globalThis[name].BYTES_PER_ELEMENT);
  }
  // resize/transfer change or move a backing store in place of a constructor.
  for (const name of ["resize", "transfer", "transferToFixedLength"]) {
    replaceMethod(ArrayBuffer.prototype, name, (original) => function (...args) {
      const unit = unitOf(this);
      const before = unit === undefined ? 0 : apply(bufferByteLength, this, []);
      const wanted = args.length > 0 && args[0] !== undefined ? requested(args[0]) : apply(bufferByteLength, this, []);
      if (wanted > before) reserve(wanted - before);
      const result = apply(original, this, args);
      if (unit !== undefined) {
        const now = apply(bufferByteLength, this, []);  // 0 once transferred (detached)
        bufferBytes += now - before;
        unit.bytes += now - before;
      }
      if (result !== undefined) trackBuffer(result);
      return result;
    });
  }
  // toReversed/toSorted/with make a copy with the intrinsic constructor, bypassing species.
  for (const name of ["toReversed", "toSorted", "with"]) {
    replaceMethod(TypedArrayPrototype, name, (original) => function (...args) {
      reserve(apply(typedByteLength, this, []));
      const made = apply(original, this, args);
      trackBuffer(apply(typedBuffer, made, []));
      return made;
    });
  }

  // -- tools and output -------------------------------------------------------------------------
  const call = (tool, input) => {
    let payload;
    if (tool.kind === "function") {
      if (input === undefined) {
        payload = "{}";
      } else if (input !== null && typeof input === "object" && !isArray(input)) {
        try { payload = stringify(input); } catch (_) { payload = undefined; }
        if (typeof payload !== "string") payload = undefined;
      }
      if (payload === undefined) {
        return rejected(`tool \`${tool.name}\` expects a JSON object for arguments`);
      }
    } else {
      if (typeof input !== "string") return rejected(`tool \`${tool.name}\` expects a string input`);
      payload = input;
    }
    const id = nextCall;
    nextCall += 1;
    return new OriginalPromise((resolve, reject) => {
      const entry = newObject();
      entry.resolve = resolve;
      entry.reject = reject;
      pending[id] = entry;
      // The payload keeps its escapes (JSON.stringify writes a lone surrogate as \\udXXX), so the
      // host can reject it as Codex does; only the envelope is made well-formed.
      send(`{"t":"call","id":${id},"tool":${quote(tool.name)},"input":${stringify(payload)}}`);
    });
  };

  const tools = newObject();
  for (const tool of toolList) {
    defineProperty(tools, tool.name, { value: (input) => call(tool, input), enumerable: true });
  }
  visible("tools", Object.freeze(tools));
  visible("ALL_TOOLS", Object.freeze(toolList.map((t) => Object.freeze({ name: t.name, description: t.description }))));

  const store = newObject();
  for (const key of Object.keys(stored)) store[key] = stored[key];

  const textItem = (text) => ({ t: "item", item: { type: "input_text", text } });
  visible("text", (value) => { post(textItem(describe(value))); });
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
      throw new OriginalTypeError("image expects a data URL string, an { image_url } object or an MCP ImageContent block");
    }
    // Codex 0.169 fails the script with this exact text (no stack) for any other URL.
    if (!/^data:/i.test(url)) throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
    const chosen = detail ?? embedded;
    const item = { type: "input_image", image_url: url };
    if (chosen !== undefined && chosen !== null) item.detail = toString(chosen);
    post({ t: "item", item });
  });
  visible("audio", (url) => {
    if (typeof url !== "string") throw new OriginalTypeError("audio expects a data URL string");
    post({ t: "item", item: { type: "input_audio", audio_url: url } });
  });
  visible("generatedImage", (result) => {
    if (!result || typeof result.image_url !== "string") throw new OriginalTypeError("generatedImage expects { image_url }");
    const scheme = apply(toLowerCase, apply(stringSlice, result.image_url, [0, 6]), []);
    if (scheme === "https:" || apply(stringSlice, scheme, [0, 5]) === "http:") {
      throw new OriginalTypeError("generatedImage does not support HTTP(S) URLs");
    }
    post({ t: "item", item: { type: "input_image", image_url: result.image_url } });
    if (typeof result.output_hint === "string") post(textItem(result.output_hint));
  });
  visible("store", (key, value) => {
    if (typeof key !== "string") throw new OriginalTypeError("store key must be a string");
    let json;
    try { json = stringify(value); } catch (_) { json = undefined; }
    if (typeof json !== "string") {
      throw new OriginalTypeError(`store value for key ${stringify(key)} is not JSON-serializable`);
    }
    store[key] = parse(json);
    post({ t: "store", key, value: json });
  });
  visible("load", (key) => {
    if (!(key in store)) return undefined;
    return parse(stringify(store[key]));
  });
  visible("notify", (value) => { post({ t: "notify", text: describe(value) }); });
  visible("yield_control", () => { post({ t: "yield" }); });
  visible("exit", () => { if (!finished) { finished = true; post({ t: "done" }); } throw EXIT; });
  visible("setTimeout", (callback, delayMs) => {
    if (typeof callback !== "function") throw new OriginalTypeError("setTimeout expects a function");
    const id = nextTimer;
    nextTimer += 1;
    timers[id] = callback;
    const ms = +delayMs;
    post({ t: "timer", id, ms: isFinite(ms) && ms > 0 ? ms : 0 });
    return id;
  });
  visible("clearTimeout", (id) => { delete timers[id]; });

  for (const name of ["console", "Atomics", "SharedArrayBuffer", "WebAssembly"]) delete globalThis[name];

  hidden("__cx_refill", refill);
  hidden("__cx_drain", () => {
    let batch = "[";
    for (let i = 0; i < queued; i += 1) {
      if (i > 0) batch += ",";
      batch += outbox[i];
      delete outbox[i];
    }
    queued = 0;
    return batch + "]";
  });
  hidden("__cx_settle", (id, ok, value) => {
    const entry = pending[id];
    if (entry === undefined) return;
    delete pending[id];
    if (ok) entry.resolve(value); else entry.reject(value);
  });
  hidden("__cx_fire", (id) => {
    const callback = timers[id];
    if (callback === undefined) return;
    delete timers[id];
    try { apply(callback, undefined, []); } catch (_) { /* an exception in a timer callback does not end the script */ }
  });
  const AsyncFunction = (async function () {}).constructor;
  const done = (failed, error) => {
    if (finished) return;
    finished = true;
    // `throw undefined` is still a failure: Codex reports "Script error:\nundefined".
    post(failed ? { t: "done", error: errorText(error) } : { t: "done" });
  };
  hidden("__cx_run", (source) => {
    job += 1;  // the script's first job; the prelude's tokens come from an earlier one
    let main;
    try { main = new AsyncFunction(STRICT + source + SOURCE_URL); } catch (error) { done(true, error); return; }
    let running;
    try { running = apply(main, undefined, []); } catch (error) { done(true, error); return; }
    apply(promiseThen, running, [() => done(false), (error) => (error === EXIT ? done(false) : done(true, error))]);
  });
})(__CX_SIGNAL__, __CX_TOOLS__, __CX_STORE__, __CX_MEMORY_LIMIT__);
