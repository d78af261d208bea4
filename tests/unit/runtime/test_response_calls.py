"""A response's calls run in call order on the turn's own task, and a long response still
lets the loop turn: a Stop click gets in, and the calls after it are answered ``aborted``."""

from __future__ import annotations

import asyncio
from typing import Any

import codex_nb as cx
from codex_nb.protocol.model import ModelRequest
from codex_nb.runtime.session import TurnHandle
from codex_nb.tools import calls
from codex_nb.tools.lifecycle import ToolCallOutcome
from codex_nb.tools.names import ToolName
from codex_nb.tools.payload import Payload, ToolCall

PLAN = {"plan": [{"step": "a", "status": "pending"}]}


def plan_calls(count: int) -> list[dict[str, Any]]:
    return [cx.function_call("update_plan", PLAN, call_id=f"p{i}") for i in range(count)]


async def test_exclusive_calls_of_one_response_run_on_the_turn_task(session: cx.Session) -> None:
    tasks: list[asyncio.Task[Any] | None] = []
    session.subscribe(lambda e: tasks.append(asyncio.current_task()) if e.msg.type == "plan_update" else None)
    handle = session.start_turn("go", model=cx.ScriptedModel([plan_calls(20), [cx.assistant_message("ok")]]))
    result = await handle
    assert result.status == "completed" and len(tasks) == 20
    assert set(tasks) == {handle.task}  # no task per call: each update_plan ran on the turn's stack


async def test_a_model_that_answers_at_once_is_sampled_on_the_turn_task(session: cx.Session) -> None:
    seen: list[asyncio.Task[Any] | None] = []

    def respond(request: ModelRequest) -> list[dict[str, Any]]:
        seen.append(asyncio.current_task())
        return [cx.assistant_message("ok")]

    handle = session.start_turn("go", model=cx.ScriptedModel([respond]))
    assert (await handle).status == "completed"
    assert seen == [handle.task]


async def test_a_model_that_waits_is_still_cut_off_by_a_stop(session: cx.Session, no_leaked_tasks) -> None:
    waiting = asyncio.Event()

    async def never(request: ModelRequest) -> list[dict[str, Any]]:
        waiting.set()
        await asyncio.Event().wait()
        return []

    handle = session.start_turn("go", model=cx.ScriptedModel([never], allow_leftover=True))
    await waiting.wait()
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted"


async def test_a_long_response_lets_the_loop_turn_and_a_stop_gets_in(session: cx.Session) -> None:
    count = 5000  # far longer than calls.YIELD_INTERVAL at any machine speed
    plans = 0
    handle: TurnHandle | None = None

    def on_event(event: cx.events.Event) -> None:
        nonlocal plans
        if event.msg.type != "plan_update":
            return
        plans += 1
        if plans == 1:  # a Stop click arriving while the response's calls run
            asyncio.get_running_loop().call_soon(lambda: handle.interrupt() if handle else None)

    session.subscribe(on_event)
    handle = session.start_turn("go", model=cx.ScriptedModel([plan_calls(count)], allow_leftover=True))
    result = await handle
    assert result.status == "interrupted"
    assert 1 <= plans < count  # the loop turned within the response and the Stop took effect
    outputs = result.outputs()
    assert len(outputs) == count  # every call still has its output
    answered = [cid for cid, out in outputs.items() if out == "Plan updated"]
    assert answered == [f"p{i}" for i in range(plans)]  # no handler ran after the Stop; call order
    # The rest are answered "aborted by user after ...", or, past the interrupt grace period
    # (a slow machine), paired with "aborted" by history repair after the hard abort.
    assert all(str(outputs[f"p{i}"]).startswith("aborted") for i in range(plans, count))


async def test_calls_after_a_stop_never_start_their_handler(session: cx.Session) -> None:
    ran: list[str] = []

    @session.tool
    async def mark(name: str) -> str:
        """Records that it ran."""
        ran.append(name)
        return name

    turn = session._new_turn(cx.tools.ModeKind.DEFAULT)
    router = session.tool_plan().router
    turn.cancel.cancel("interrupted")
    results = await calls.run_calls_in_order(
        [ToolCall(tool_name=ToolName.of("mark"), call_id="m", payload=Payload.function('{"name":"m"}'))], turn, router
    )
    assert ran == [] and results[0] is not None
    assert results[0].output.text.startswith("aborted by user after")
    assert session.lifecycle_log[-1].outcome == ToolCallOutcome.aborted()


async def test_a_long_response_lets_go_of_each_result_once_it_is_recorded(session: cx.Session) -> None:
    import gc

    from codex_nb.tools.pipeline import CallResult

    alive: list[int] = []

    @session.tool
    async def last() -> str:
        """Counts the call results still alive, at the end of a long response."""
        gc.collect()
        # This response's own (its call ids): earlier tests in the process may still hold theirs.
        ours = set(call_ids)
        objects = gc.get_objects()
        alive.append(sum(1 for o in objects if type(o) is CallResult and o.call.call_id in ours))
        alive.append(sum(1 for o in objects if type(o) is ToolCall and o.call_id in ours))
        return "counted"

    @session.tool(parallel=True)
    async def shared(n: int) -> str:
        """Runs beside the other parallel calls."""
        await asyncio.sleep(0)
        return f"shared {n}"

    items = plan_calls(200)
    items[50:50] = [cx.function_call("shared", {"n": i}, call_id=f"s{i}") for i in range(3)]
    items.insert(10, cx.function_call("no_such_tool", {}, call_id="missing"))
    items.append(cx.function_call("last", {}, call_id="last"))
    call_ids = [i["call_id"] for i in items]
    result = await session.run_turn("go", model=cx.ScriptedModel([items, [cx.assistant_message("ok")]]))
    assert result.status == "completed"
    # The 204 earlier results and calls were recorded and let go as they finished (the old
    # run kept all of them until the last call: 204 results, 205 calls).
    assert alive[0] <= 2 and alive[1] <= 3, alive
    history = result.items[1:]
    # Every call item first, then every output, in call order: as if all were recorded at the end.
    assert [i["call_id"] for i in history[: len(items)]] == call_ids
    assert [i["call_id"] for i in history[len(items) : -1]] == call_ids
    assert [i["type"] for i in history[len(items) : -1]] == ["function_call_output"] * len(items)
    outputs = result.outputs()
    assert outputs["missing"] == "unsupported call: no_such_tool" and outputs["s1"] == "shared 1"
    assert outputs["last"] == "counted"
