"""Code Mode execution in a real V8 isolate (mini-racer), through the session's pipeline."""

from __future__ import annotations

import asyncio
import threading
import json
import re

import pytest

import codex_nb as cx
from helpers import code_mode_sessions
from codex_nb.runtime.history import repair_history
from codex_nb.code_mode.pragma import EMPTY_SOURCE_ERROR
from codex_nb.protocol.items import assistant_message, custom_tool_call, function_call
from codex_nb.runtime.models import ScriptedModel
from codex_nb.tools.hook_points import HookRequest, PostToolUseOutcome, PreToolUseOutcome

# Code Mode's fixtures, overriding conftest's plain `session` in this module (assigned, not
# imported, so the tests' `session` parameters do not shadow an import).
make_session = code_mode_sessions.make_session
session = code_mode_sessions.session

WALL = re.compile(r"Wall time \d+\.\d seconds")


def stable(body):
    """Output body with the wall time normalised, as a list of texts."""
    items = [body] if isinstance(body, str) else [i.get("text", i) for i in body]
    return [WALL.sub("Wall time X seconds", t) if isinstance(t, str) else t for t in items]


async def run(session, source: str):
    result = await session.call_tool("exec", source, call_id="e1")
    assert result.item["type"] == "custom_tool_call_output" and result.item["call_id"] == "e1"
    return result


async def test_nested_calls_go_through_the_pipeline(session):
    records = []
    session.on_lifecycle(records.append)
    result = await run(session, "const r = await tools.echo({text: 'hi'}); text(r); text({a: [1]}); text(7)")
    assert stable(result.item["output"]) == ["Script completed\nWall time X seconds\nOutput:\n", "hi", '{"a":[1]}', "7"]
    assert result.success is True
    nested = [r for r in records if r.call_id != "e1"]
    assert [(r.phase, r.tool_name.name) for r in nested] == [("start", "echo"), ("finish", "echo")]
    assert re.fullmatch(r"exec-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", nested[0].call_id)


async def test_nested_update_plan_emits_plan_update_and_resolves_to_empty_object(session):
    result = await run(
        session,
        "const r = await tools.update_plan({plan: [{step: 'a', status: 'in_progress'}]});text(JSON.stringify(r))",
    )
    assert stable(result.item["output"])[1] == "{}"
    plan_events = [e for e in result.events if e.msg.type == "plan_update"]
    assert [e.msg.model_dump(mode="json")["plan"] for e in plan_events] == [[{"step": "a", "status": "in_progress"}]]


class BlockEcho:
    """A PreToolUse interceptor (the pipeline's ToolHooks contract) that blocks ``echo``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome:
        self.seen.append((request.tool_name, request.tool_use_id))
        if request.tool_name == "echo":
            return PreToolUseOutcome(action="block", reason="not now")
        return PreToolUseOutcome()

    async def post_tool_use(self, request: HookRequest) -> PostToolUseOutcome:
        return PostToolUseOutcome()


async def test_nested_hooks_see_exec_call_ids_and_exec_runs_none(make_session):
    hooks = BlockEcho()
    session = make_session(hooks=hooks)
    result = await run(session, "try { await tools.echo({text: 'x'}) } catch (e) { text(typeof e); text(e) }")
    assert stable(result.item["output"])[1:] == ["string", "Tool call blocked by PreToolUse hook: not now. Tool: echo"]
    assert [name for name, _ in hooks.seen] == ["echo"]  # no hook for exec itself
    assert hooks.seen[0][1].startswith("exec-")


async def test_failing_nested_call_rejects_with_plain_string(session):
    result = await run(
        session, "try { await tools.echo({}) } catch (e) { text(e?.message === undefined); text(String(e)) }"
    )
    out = stable(result.item["output"])
    assert out[1] == "true" and out[2].startswith("failed to parse function arguments")


# An Error's text is its stack with frames in exec_main.mjs (Codex 0.169 runs the script as that
# module; conformance cm_throw_error, cm_error_in_function ...); a thrown non-Error is String(value).
@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("await tools.echo('text')", "tool `echo` expects a JSON object for arguments"),
        ("await tools.echo([1])", "tool `echo` expects a JSON object for arguments"),
        ("const a = {}; a.self = a; await tools.echo(a)", "tool `echo` expects a JSON object for arguments"),
        ("await tools.echo({n: 10n})", "tool `echo` expects a JSON object for arguments"),
        ("throw new Error('boom')", "Error: boom\n    at exec_main.mjs:1:7"),
        ("throw 'plain'", "plain"),
        ("this is not javascript(", "SyntaxError: Unexpected identifier 'is'"),
        ("import fs from 'fs'", "SyntaxError: Cannot use import statement outside a module"),
        ("await import('fs')", "Error: Not supported\n    at exec_main.mjs:1:1"),
        ("require('fs')", "ReferenceError: require is not defined\n    at exec_main.mjs:1:1"),
        ("process.exit(1)", "ReferenceError: process is not defined\n    at exec_main.mjs:1:1"),
        ("console.log('x')", "ReferenceError: console is not defined\n    at exec_main.mjs:1:1"),
        ("new SharedArrayBuffer(8)", "ReferenceError: SharedArrayBuffer is not defined\n    at exec_main.mjs:1:1"),
        ("WebAssembly.compile", "ReferenceError: WebAssembly is not defined\n    at exec_main.mjs:1:1"),
        ("tools.exec('text(1)')", "TypeError: tools.exec is not a function\n    at exec_main.mjs:1:7"),
        (
            "tools.secret = () => 1",
            "TypeError: Cannot add property secret, object is not extensible\n    at exec_main.mjs:1:14",
        ),
        (
            "globalThis.tools = {}",
            "TypeError: Cannot assign to read only property 'tools' of object '#<Object>'\n    at exec_main.mjs:1:18",
        ),
        (
            "__cx_run = null",
            "TypeError: Cannot assign to read only property '__cx_run' of object '#<Object>'\n    at exec_main.mjs:1:10",
        ),
        (
            "store('k', () => 1)",
            'TypeError: store value for key "k" is not JSON-serializable\n    at exec_main.mjs:1:1',
        ),
    ],
)
async def test_bad_scripts_fail_with_documented_errors(session, source, error):
    result = await run(session, source)
    assert stable(result.item["output"]) == ["Script failed\nWall time X seconds\nOutput:\n", f"Script error:\n{error}"]
    assert result.success is False


async def test_python_and_host_are_unreachable(session):
    source = (
        "text([typeof require, typeof process, typeof Deno, typeof fetch, typeof XMLHttpRequest, typeof console,"
        " typeof __cx_signal, typeof __cx_gc, Object.keys(globalThis).sort().join(',')].join(' '))"
    )
    result = await run(session, source)
    # __cx_gc is V8's gc() (kept by the prelude for the ArrayBuffer cap): V8 makes the global
    # non-configurable, so the name stays, bound to undefined.
    assert stable(result.item["output"])[1] == (
        "undefined undefined undefined undefined undefined undefined undefined undefined "
        "ALL_TOOLS,__cx_gc,audio,clearTimeout,exit,generatedImage,image,load,notify,setTimeout,store,text,tools,"
        "yield_control"
    )


async def test_exec_input_errors(session):
    empty = await session.call_tool("exec", "   ", call_id="e1")
    assert (empty.output, empty.success) == (EMPTY_SOURCE_ERROR, False)
    bad = await session.call_tool("exec", '// @exec: {"nope": 1}\ntext(1)', call_id="e2")
    assert bad.output == "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `nope`"


async def test_exec_with_function_payload_is_refused(make_session):
    session = make_session()
    model = ScriptedModel([[function_call("exec", {"code": "1"}, call_id="f1")], [assistant_message("ok")]])
    result = await session.run_turn("go", model=model)
    assert (
        result.outputs()["f1"] == "aborted"
    )  # Codex 0.169: a payload-kind mismatch (conformance cm_exec_as_function_call)


async def test_globals_exit_store_load_all_tools_timers(session):
    first = await run(
        session,
        "store('n', {count: 1}); text(ALL_TOOLS.map(t => t.name).sort().join(','));"
        "await new Promise(r => setTimeout(r, 5)); const t = setTimeout(() => text('never'), 0);"
        "clearTimeout(t); exit(); text('unreachable')",
    )
    assert stable(first.item["output"])[1:] == ["echo,update_plan"] or stable(first.item["output"])[1].startswith(
        "echo"
    )
    second = await run(session, "text(load('n').count + 1); text(String(load('missing')))")
    assert stable(second.item["output"])[1:] == ["2", "undefined"]


async def test_huge_output_is_truncated(session):
    result = await run(
        session, "// @exec: {\"max_output_tokens\": 10}\ntext('a'.repeat(100) + '\\n' + 'b'.repeat(100))"
    )
    out = stable(result.item["output"])
    assert out[1] == (
        "Warning: truncated output (original token count: 51)\nTotal output lines: 2\n\n"
        + "a" * 20
        + "…41 tokens truncated…"
        + "b" * 20
    )


async def test_yield_then_wait_then_terminate_runaway(session, monkeypatch):
    from codex_nb.code_mode.host import Isolate

    posted = threading.Event()
    signal = Isolate._schedule_drain

    def signalled(self: Isolate) -> None:  # the script's outbox got its first item: "before"
        posted.set()
        signal(self)

    monkeypatch.setattr(Isolate, "_schedule_drain", signalled)
    first = await run(session, '// @exec: {"yield_time_ms": 50}\ntext("before"); while (true) {}')
    assert stable(first.item["output"]) == ["Script running with cell ID 1\nWall time X seconds\nOutput:\n"]
    again = await session.call_tool("wait", {"cell_id": "1", "yield_time_ms": 20})
    assert stable(again.item["output"]) == ["Script running with cell ID 1\nWall time X seconds\nOutput:\n"]
    # terminated only once V8 ran the text() call (on a loaded machine it may not have started yet);
    # the kernel loop is free while V8 spins
    assert await asyncio.to_thread(posted.wait, 30)
    done = await session.call_tool("wait", {"cell_id": "1", "terminate": True})
    # "before" was posted synchronously before the loop: it is handed over at termination
    assert stable(done.item["output"]) == ["Script terminated\nWall time X seconds\nOutput:\n", "before"]
    assert done.success is True
    gone = await session.call_tool("wait", {"cell_id": "1"})
    assert stable(gone.item["output"]) == [
        "Script failed\nWall time X seconds\nOutput:\n",
        "Script error:\nexec cell 1 not found",
    ]


async def test_yield_control_returns_early_and_wait_gets_the_rest(session):
    source = (
        '// @exec: {"yield_time_ms": 60000}\ntext("a"); yield_control();'
        'await new Promise(r => setTimeout(r, 10)); text("b")'
    )
    first = await run(session, source)
    assert stable(first.item["output"]) == ["Script running with cell ID 1\nWall time X seconds\nOutput:\n", "a"]
    done = await session.call_tool("wait", {"cell_id": "1", "yield_time_ms": 60000})
    assert stable(done.item["output"]) == ["Script completed\nWall time X seconds\nOutput:\n", "b"]


async def test_runaway_in_promise_continuation_is_terminated(session):
    first = await run(session, '// @exec: {"yield_time_ms": 50}\nawait Promise.resolve(); while (true) {}')
    assert stable(first.item["output"])[0].startswith("Script running with cell ID 1")
    done = await session.call_tool("wait", {"cell_id": "1", "terminate": True})
    assert stable(done.item["output"]) == ["Script terminated\nWall time X seconds\nOutput:\n"]
    after = await run(session, "text('next cell runs')")
    assert stable(after.item["output"])[1] == "next cell runs"


class HoldEcho(BlockEcho):
    """A PreToolUse interceptor that holds ``echo`` until the test releases it: a script that cannot end
    before the test says so (a timer in the script raced the yield on a loaded machine)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome:
        if request.tool_name == "echo":
            await self.release.wait()
        return PreToolUseOutcome()


async def test_wait_returns_completion_and_closes_cell(make_session):
    hooks = HoldEcho()
    session = make_session(hooks=hooks)
    first = await run(session, '// @exec: {"yield_time_ms": 0}\ntext(await tools.echo({text: "late"}))')
    assert stable(first.item["output"])[0].startswith("Script running with cell ID 1")
    hooks.release.set()
    done = await session.call_tool("wait", {"cell_id": "1", "yield_time_ms": 60000})
    assert stable(done.item["output"]) == ["Script completed\nWall time X seconds\nOutput:\n", "late"]


@pytest.mark.parametrize("args", ['{"cell_id": 1}', "{}", "not json", '{"cell_id": "1", "terminate": "yes"}'])
async def test_wait_bad_arguments(session, args):
    result = await session.call_tool("wait", args)
    assert result.success is False and result.output.startswith("failed to parse function arguments")


async def test_wall_time_limit_terminates(make_session):
    session = make_session(max_wall_time_s=0.2)
    result = await run(session, "while (true) {}")
    assert stable(result.item["output"]) == [
        "Script terminated\nWall time X seconds\nOutput:\n",
        "Script error:\nexec cell exceeded the wall time limit of 0.2 seconds",
    ]


@pytest.mark.slow
async def test_memory_limit(make_session):
    session = make_session(memory_limit_bytes=32 * 1024 * 1024)
    result = await run(session, "const a = []; while (true) { a.push(new Array(100000).fill(1)) }")
    assert stable(result.item["output"]) == [
        "Script failed\nWall time X seconds\nOutput:\n",
        "Script error:\nJavaScript memory limit reached (33554432 bytes)",
    ]
    after = await run(session, "text('still fine')")
    assert stable(after.item["output"])[1] == "still fine"


async def test_interrupt_terminates_cells_and_aborts_nested_calls(make_session):
    session = make_session()
    started, never = asyncio.Event(), asyncio.Event()

    @session.tool
    async def block() -> str:
        "Blocks until cancelled."
        started.set()
        await never.wait()
        return "unreachable"

    records = []
    session.on_lifecycle(records.append)
    model = ScriptedModel([[custom_tool_call("exec", "await tools.block({})", call_id="e1")]])
    handle = session.start_turn("go", model=model)
    await started.wait()
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted"
    finder = session.planner.finalizers[0]
    assert finder.runtime(session.config.code_mode).active_cell_ids == []
    nested = [r for r in records if r.phase == "finish" and r.tool_name.name == "block"]
    assert [str(r.outcome) for r in nested] == ["Aborted"]


async def test_runaway_script_is_interrupted_and_kernel_stays_responsive(make_session):
    session = make_session()
    started = asyncio.Event()

    @session.tool
    async def ready() -> str:
        "Signals the test."
        started.set()
        return "ok"

    model = ScriptedModel([[custom_tool_call("exec", "await tools.ready({}); while (true) {}", call_id="e1")]])
    handle = session.start_turn("go", model=model)
    await started.wait()
    for _ in range(3):
        await asyncio.sleep(0)
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted"
    assert session.planner.finalizers[0].runtime(session.config.code_mode).active_cell_ids == []


async def test_scripted_turn_with_exec(session):
    model = ScriptedModel(
        [
            [custom_tool_call("exec", "text(await tools.echo({text: 'from script'}))", call_id="e1")],
            [assistant_message("done")],
        ]
    )
    result = await session.run_turn("go", model=model)
    assert result.status == "completed"
    assert stable(result.outputs()["e1"]) == ["Script completed\nWall time X seconds\nOutput:\n", "from script"]
    assert json.loads(json.dumps(result.items))  # wire-serialisable


async def test_interrupting_a_later_turn_terminates_cells_from_earlier_turns(session):
    """As in Codex, an interrupt terminates every active cell, not only this turn's."""
    source = '// @exec: {"yield_time_ms": 60000}\nyield_control(); await new Promise(r => setTimeout(r, 600000))'
    first = cx.ScriptedModel([[cx.custom_tool_call("exec", source, call_id="e1")], [cx.assistant_message("ok")]])
    assert (await session.run_turn("start a long script", model=first)).status == "completed"
    runtime = session.planner.finalizers[0].runtime(session.config.code_mode)
    assert runtime.active_cell_ids == ["1"]

    started, never = asyncio.Event(), asyncio.Event()

    @session.tool
    async def hold() -> str:
        "Holds the second turn open."
        started.set()
        await never.wait()
        return "unreachable"

    second = cx.ScriptedModel([[cx.function_call("hold", {}, call_id="h")]])
    handle = session.start_turn("something else", model=second)
    await started.wait()
    assert handle.interrupt()
    assert (await handle).status == "interrupted"
    await asyncio.gather(*list(runtime._tasks))  # the termination the interrupt started
    assert runtime.active_cell_ids == []


async def test_notify_injects_an_extra_exec_output_into_the_conversation(session):
    source = 'notify("halfway"); text("done")'
    model = cx.ScriptedModel(
        [[cx.custom_tool_call("exec", source, call_id="e1")], [cx.assistant_message("ok")]], record_requests=True
    )
    await session.run_turn("go", model=model)
    exec_outputs = [i for i in model.requests[1].items if i.get("call_id") == "e1" and i["type"].endswith("output")]
    # Codex 0.169 records the notification after the exec output of the step (conformance cm_notify)
    assert stable(exec_outputs[0]["output"])[1:] == ["done"]
    assert exec_outputs[1] == {"type": "custom_tool_call_output", "call_id": "e1", "name": "exec", "output": "halfway"}
    assert repair_history(session.history) == session.history
