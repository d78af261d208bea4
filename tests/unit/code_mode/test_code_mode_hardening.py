"""Code Mode against a hostile model: memory, tampered intrinsics, odd throws, lone surrogates, leaks."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import threading

import pytest
from py_mini_racer._context import context_count

import codex_nb as cx
from helpers import code_mode_sessions

# Code Mode's fixtures, overriding conftest's plain `session` in this module (assigned, not
# imported, so the tests' `session` parameters do not shadow an import).
make_session = code_mode_sessions.make_session
session = code_mode_sessions.session

MB = 1024 * 1024
WALL = re.compile(r"Wall time \d+\.\d seconds")


def stable(body):
    items = [body] if isinstance(body, str) else [i.get("text", i) for i in body]
    return [WALL.sub("Wall time X seconds", t) if isinstance(t, str) else t for t in items]


async def run(session, source: str):
    return await session.call_tool("exec", source, call_id="e1")


@pytest.mark.slow
@pytest.mark.parametrize(
    "allocation",
    [
        "new Uint8Array(N)",
        "new ArrayBuffer(N)",
        "new Float64Array(N / 8)",
        "new Uint8Array(N / 2).toReversed()",
        "new (class Big extends Uint8Array {})(N)",
        "new ArrayBuffer(8, {maxByteLength: 2 * N}).resize(N)",
        "new ArrayBuffer(8).transfer(N)",
        "Uint8Array.from({length: N})",
        "new Uint8Array(N / 2).slice()",
        "new Uint8Array(N / 2).buffer.slice(0)",
    ],
)
async def test_array_buffers_count_against_the_memory_limit(make_session, allocation):
    session = make_session(memory_limit_bytes=64 * MB)
    source = f"const N = {40 * MB}; const keep = []; keep.push(new Uint8Array(N)); keep.push({allocation}); text('ok')"
    result = await run(session, source)
    assert stable(result.item["output"]) == [
        "Script failed\nWall time X seconds\nOutput:\n",
        f"Script error:\nJavaScript memory limit reached ({64 * MB} bytes)",
    ]


async def test_buffers_within_the_limit_still_work(make_session):
    session = make_session(memory_limit_bytes=64 * MB)
    result = await run(
        session,
        "const a = new Uint8Array(1024); a[3] = 7; const b = a.slice(2, 4);"
        "text(String(b[1] + new Float32Array(4).length))",
    )
    assert stable(result.item["output"])[1:] == ["11"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "churn",
    [
        # one synchronous stretch: every buffer is dropped before the next is made
        "for (let i = 0; i < 20; i++) { const b = new Uint8Array(32 * MB); b[0] = i; }",
        # the same across awaits of a nested tool (each round trip is a new V8 job)
        "for (let i = 0; i < 20; i++) { const b = new ArrayBuffer(32 * MB); await tools.echo({text: 'x'}); }",
        # many small buffers: 100,000 x 4 KiB is 400 MB made, a few KiB live
        "for (let i = 0; i < 100000; i++) new Uint8Array(4096).fill(1);",
        # ... of which every 1000th is kept (small survivors must not pin the dropped ones)
        "const kept = []; for (let i = 0; i < 100000; i++) { const c = new Uint8Array(4096); if (i % 1000 === 0) kept.push(c); }",
        # 2,000 x 1 MiB in one synchronous stretch: more buffers than the liveness pool has tokens
        "for (let i = 0; i < 2000; i++) new Uint8Array(MB);",
        # a buffer dropped just before the next one is made
        "let a = new Uint8Array(40 * MB); a[0] = 1; a = null; const b = new Uint8Array(40 * MB);",
        "const f = () => new Uint8Array(40 * MB)[0]; f(); f(); f();",
        "for (let i = 0; i < 10; i++) { new ArrayBuffer(40 * MB); await new Promise((r) => setTimeout(r, 1)); }",
    ],
    ids=[
        "sync-32MiB",
        "await-tool-32MiB",
        "sync-100k-4KiB",
        "small-survivors",
        "sync-2000-1MiB",
        "drop-then-make",
        "function-scope",
        "await-timer-40MiB",
    ],
)
async def test_dropped_buffers_do_not_count_against_the_memory_limit(make_session, churn):
    session = make_session(memory_limit_bytes=64 * MB)
    result = await run(session, f"const MB = {MB}; {churn} text('ok')")
    assert stable(result.item["output"])[1:] == ["ok"], result.item["output"]


async def test_the_collector_the_cap_uses_is_out_of_the_scripts_reach(session):
    result = await run(session, "text(typeof __cx_gc + ' ' + typeof gc)")
    assert stable(result.item["output"])[1:] == ["undefined undefined"]


async def test_live_cells_are_bounded(make_session):
    session = make_session(max_live_cells=2)
    parked = '// @exec: {"yield_time_ms": 10}\nyield_control(); await new Promise(() => {})'
    for call_id in ("a", "b"):
        result = await session.call_tool("exec", parked, call_id=call_id)
        assert stable(result.item["output"])[0].startswith("Script running with cell ID")
    refused = await session.call_tool("exec", "text('one more')", call_id="c")
    assert refused.success is False
    assert refused.item["output"] == (
        "too many live exec cells (2, the limit); finish or terminate one with "
        "`wait` (`terminate: true`) before starting another: cell IDs 1, 2"
    )
    await session.call_tool("wait", {"cell_id": "1", "terminate": True}, call_id="w")
    after = await session.call_tool("exec", "text('room again')", call_id="d")
    assert stable(after.item["output"])[1:] == ["room again"]


async def run_in_turn(session, source: str) -> tuple[list, list[str]]:
    """Run ``source`` as one exec call of a scripted turn: (its output body, its notify outputs)."""
    model = cx.ScriptedModel(
        [[cx.custom_tool_call("exec", source, call_id="e1")], [cx.assistant_message("ok")]], record_requests=True
    )
    await session.run_turn("go", model=model)
    outputs = [
        i["output"]
        for i in model.requests[1].items
        if i.get("call_id") == "e1" and i["type"] == "custom_tool_call_output"
    ]
    return outputs[0], outputs[1:]  # Codex 0.169 records notifications after the step's exec output


async def test_notify_bytes_are_bounded(make_session):
    session = make_session(max_notify_bytes=10_000)
    body, notes = await run_in_turn(session, "for (let i = 0; i < 100; i++) notify('x'.repeat(1000)); text('end')")
    assert len(notes) == 11 and sum(len(text.encode()) for text in notes[:-1]) == 10_000
    assert notes[-1] == "notify output limit reached (10000 bytes); further notifications of this cell are dropped"
    assert stable(body)[1:] == ["end"]


TAMPERING = [
    'JSON.stringify = () => \'{"t":"item","item":5}\'',
    "JSON.parse = () => { throw new Error('no parse') }",
    "Array.prototype.join = () => { throw new Error('no join') }",
    "Array.prototype.push = () => { throw new Error('no push') }",
    "Object.defineProperty(Array.prototype, '0', { set() { throw new Error('no index') } })",
    "Map.prototype.get = Map.prototype.set = Map.prototype.delete = () => { throw new Error('no map') }",
    "Object.defineProperty(Object.prototype, 'item', { get() { return 5 }, set(v) {} })",
    "Function.prototype.call = Function.prototype.apply = () => { throw new Error('no call') }",
    "Promise.prototype.then = () => { throw new Error('no then') }",
    "String = () => 'forged'; Number = () => NaN; Array.isArray = () => true",
    "RegExp.prototype.exec = () => { throw new Error('no regex') }",
    "Reflect.apply = Reflect.construct = () => { throw new Error('no reflect') }",
    "Object.create = () => { throw new Error('no create') }",
    "WeakRef.prototype.deref = () => 1; WeakMap.prototype.get = WeakMap.prototype.set = () => undefined;"
    " new Uint8Array(8)",
]


@pytest.fixture
def never_retrieved(caplog):
    caplog.set_level(logging.ERROR, logger="asyncio")

    def check() -> list[str]:
        gc.collect()
        return [r.getMessage() for r in caplog.records if "never retrieved" in r.getMessage()]

    return check


@pytest.mark.slow
@pytest.mark.parametrize("tamper", TAMPERING)
async def test_replacing_intrinsics_cannot_break_the_host_protocol(session, tamper, never_retrieved):
    isolates = context_count()
    source = (
        f"{tamper};\nconst r = await tools.echo({{text: 'hi'}}); text(r); store('k', 1); notify('n');"
        "generatedImage({image_url: 'data:image/png;base64,AA=='}); text(7)"
    )
    result = await run(session, source)
    assert stable(result.item["output"])[0] == "Script completed\nWall time X seconds\nOutput:\n"
    texts = [i.get("text") for i in result.item["output"][1:]]
    assert texts == ["hi", None, "7"]
    assert context_count() == isolates  # the cell's isolate was freed
    assert never_retrieved() == []


@pytest.mark.parametrize(
    "tamper",
    ["Array.prototype.join = () => { throw new Error('no join') }", "JSON.stringify = () => { throw new Error('no') }"],
)
async def test_terminating_a_tampered_cell_frees_its_isolate(session, tamper):
    isolates = context_count()
    # the script yields itself (yield_control): a short yield timer could fire before text("a") ran
    # on a loaded machine, and the output would be empty
    parked = (
        f'// @exec: {{"yield_time_ms": 60000}}\n{tamper}; text("a"); yield_control(); await new Promise(() => {{}})'
    )
    for n in range(6):
        result = await session.call_tool("exec", parked, call_id=f"e{n}")
        assert stable(result.item["output"])[:2] == [
            f"Script running with cell ID {n + 1}\nWall time X seconds\nOutput:\n",
            "a",
        ]
        done = await session.call_tool("wait", {"cell_id": str(n + 1), "terminate": True}, call_id=f"w{n}")
        assert stable(done.item["output"])[0] == "Script terminated\nWall time X seconds\nOutput:\n"
    assert context_count() == isolates  # every isolate freed (each held a V8 thread and its heap)


async def test_a_malformed_host_message_fails_the_cell_and_frees_it(session):
    """Defence in depth: even a message the prelude could never send ends the cell cleanly."""
    isolates = context_count()
    parked = '// @exec: {"yield_time_ms": 10}\nyield_control(); await new Promise(() => {})'
    await session.call_tool("exec", parked, call_id="e1")
    runtime = session.planner.finalizers[0].runtime(session.config.code_mode)
    cell = runtime._cells["1"]
    runtime._host.loop.call_soon_threadsafe(cell._on_messages, [{"t": "item", "item": 5}, {"t": "timer", "id": "x"}])
    result = await session.call_tool("wait", {"cell_id": "1"}, call_id="w1")
    assert stable(result.item["output"]) == [
        "Script failed\nWall time X seconds\nOutput:\n",
        "Script error:\nCode Mode host protocol error: malformed item message",
    ]
    assert context_count() == isolates


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("throw undefined", "undefined"),
        ("await Promise.reject(undefined)", "undefined"),
        ("throw null", "null"),
        ("await Promise.reject()", "undefined"),
    ],
)
async def test_throwing_undefined_or_null_is_a_script_error(session, source, error):
    result = await run(session, source)
    assert result.success is False
    assert stable(result.item["output"]) == ["Script failed\nWall time X seconds\nOutput:\n", f"Script error:\n{error}"]


async def test_lone_surrogates_in_text_become_replacement_characters(session):
    """Codex's V8 bridge replaces a lone surrogate with U+FFFD when it turns JS text into output."""
    body, notes = await run_in_turn(session, "text('a\\ud800b'); text(JSON.stringify('\\udc00')); notify('n\\ud800')")
    assert stable(body)[1:] == ["a\ufffdb", '"\\udc00"']
    assert notes == ["n\ufffd"]


async def test_lone_surrogate_in_nested_call_input_rejects_like_codex(session):
    result = await run(session, "try { await tools.echo({text: 'x\\ud800'}) } catch (e) { text(e) }")
    assert stable(result.item["output"])[1:] == [
        "failed to serialize JavaScript value: unexpected end of hex escape at line 1 column 17"
    ]


async def test_lone_surrogate_from_a_python_tool_reaches_the_script(session):
    @session.tool
    async def odd() -> str:
        "Returns a lone surrogate."
        return "p\ud800q"

    result = await run(session, "const r = await tools.odd({}); text(String(r.length) + r)")
    assert stable(result.item["output"])[1:] == ["3p\ufffdq"]


NESTED_INTERRUPTS = {  # script, and the moment the turn is interrupted
    "parallel-mixed": (
        "const p = [tools.slow({}), tools.boom({}), tools.sync_slow({}), tools.echo({text: 'x'}),"
        " tools.slow({})]; p.forEach((x) => x.catch(() => {})); await Promise.all(p);",
        "slow-released",
    ),
    "unawaited-failures": ("tools.boom({}); tools.boom({}); tools.slow({}); await tools.slow({});", "slow-started"),
    "in-a-timer": (
        "setTimeout(() => { tools.boom({}); tools.slow({}); }, 0);"
        " await new Promise((r) => setTimeout(r, 5)); await tools.slow({});",
        "slow-started",
    ),
    "race-reject": (
        "await Promise.race([tools.boom({}), tools.slow({}), tools.sync_slow({})]).catch(() => {});"
        " await tools.slow({});",
        "slow-started",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(NESTED_INTERRUPTS))
async def test_interrupting_nested_calls_retrieves_every_exception(make_session, name, never_retrieved):
    source, moment = NESTED_INTERRUPTS[name]
    session = make_session()
    started, release, thread_release = asyncio.Event(), asyncio.Event(), threading.Event()

    @session.tool
    async def slow() -> str:
        "Waits for the test."
        started.set()
        await release.wait()
        return "late"

    @session.tool
    async def boom() -> str:
        "Fails."
        raise RuntimeError("boom")

    @session.tool
    def sync_slow() -> str:
        "Blocks a worker thread, then fails."
        thread_release.wait(30)
        raise ValueError("late sync failure")

    handle = session.start_turn("go", model=cx.ScriptedModel([[cx.custom_tool_call("exec", source)]]))
    await started.wait()
    if moment == "slow-released":
        release.set()  # the first slow call settles while the turn is being interrupted
        await asyncio.sleep(0)
    handle.interrupt()
    result = await handle
    release.set()
    thread_release.set()
    await session.aclose()
    assert result.status == "interrupted"
    assert never_retrieved() == []
