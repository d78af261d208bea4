import { test } from "node:test";
import assert from "node:assert/strict";
import { RequestQueue } from "../notebook_bridge.js";

/** A perform whose every call waits until the test settles it. */
function controlled() {
  /** @type {{op: string, args: any, resolve: (v: any) => void, reject: (e: any) => void}[]} */
  const calls = [];
  const perform = (op, args) => new Promise((resolve, reject) => calls.push({ op, args, resolve, reject }));
  return { calls, perform };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
const run = { id: "nb-1", op: "run", args: { cell_id: "a" } };
const insert = { id: "nb-2", op: "insert", args: { index: 0, cell_type: "code", source: "x" } };
const cells = { id: "nb-3", op: "cells", args: {} };

test("changes are applied one at a time, in order; reads at once", async () => {
  const { calls, perform } = controlled();
  const sent = [];
  const queue = new RequestQueue(perform, (m) => sent.push(m));
  queue.sync([run, insert, cells]);
  const op = (/** @type {string} */ name) => calls.find((c) => c.op === name);
  assert.deepEqual(calls.map((c) => c.op).sort(), ["cells", "run"]); // the insert waits for the run
  op("run").resolve({ id: "a" });
  await tick();
  assert.deepEqual(calls.map((c) => c.op).sort(), ["cells", "insert", "run"]);
  assert.deepEqual(sent, [{ kind: "reply", id: "nb-1", ok: true, result: { id: "a" }, error: "" }]);
  op("cells").resolve([]);
  await tick();
  op("insert").reject(new Error("conflict:a"));
  await tick();
  assert.deepEqual(sent.slice(1), [
    { kind: "reply", id: "nb-3", ok: true, result: [], error: "" },
    { kind: "reply", id: "nb-2", ok: false, result: null, error: "conflict:a" },
  ]);
});

test("a stopped request the page has not started is skipped and reported", async () => {
  const { calls, perform } = controlled();
  const sent = [];
  const queue = new RequestQueue(perform, (m) => sent.push(m));
  queue.sync([run, insert]);
  queue.sync([run]); // the kernel stopped waiting for the insert
  assert.deepEqual(sent, [{ kind: "stopped", id: "nb-2", op: "insert", outcome: "skipped",
    detail: "the kernel stopped waiting before the page started it; nothing was done" }]);
  calls[0].resolve({ id: "a" });
  await tick();
  assert.deepEqual(calls.map((c) => c.op), ["run"]); // never started
  assert.equal(sent.at(-1).kind, "reply");
});

test("a stopped request already started runs to its end and the page says what it did", async () => {
  const { calls, perform } = controlled();
  const sent = [];
  const queue = new RequestQueue(perform, (m) => sent.push(m));
  queue.sync([run]);
  queue.sync([]); // Stop while the cell runs
  assert.deepEqual(sent, []);
  calls[0].resolve({ id: "a" });
  await tick();
  assert.deepEqual(sent, [{ kind: "stopped", id: "nb-1", op: "run", outcome: "finished",
    detail: "the page had started it before the kernel stopped waiting and finished it" }]);
  queue.sync([insert]); // the queue goes on
  assert.deepEqual(calls.map((c) => c.op), ["run", "insert"]);
  calls[1].reject(new Error("boom"));
  queue.sync([]);
  await tick();
  assert.deepEqual(sent.at(-1), { kind: "stopped", id: "nb-2", op: "insert", outcome: "failed", detail: "boom" });
});

test("a request is handled once however often the list is synced, and forgotten once gone", async () => {
  const { calls, perform } = controlled();
  const queue = new RequestQueue(perform, () => {});
  queue.sync([cells]);
  queue.sync([cells]);
  assert.equal(calls.length, 1);
  calls[0].resolve([]);
  await tick();
  queue.sync([]);
  assert.equal(queue.received.size, 0);
});
