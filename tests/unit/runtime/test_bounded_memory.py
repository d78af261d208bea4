"""What a long session keeps: bounded record rings, no per-step history copy, no kept results."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

import codex_nb as cx

PLAN = {"plan": [{"step": "a", "status": "pending"}]}


async def test_record_rings_keep_the_latest_and_observers_see_every_record() -> None:
    session = cx.Session(record_limit=3)
    seen, facts = [], []
    session.on_lifecycle(seen.append)
    session.on_control_tool_fact(facts.append)
    for i in range(5):
        await session.call_tool("update_plan", PLAN, call_id=f"c{i}")
    assert len(seen) == 10 and len(facts) == 5  # start + finish per call, one fact per call
    assert session.lifecycle_log == seen[-3:]
    assert [f.call_id for f in session.control_tool_facts] == ["c2", "c3", "c4"]
    with pytest.raises(ValueError, match="positive int"):
        cx.Session(record_limit=0)


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 5, 6])
def test_the_ring_tells_each_record_its_phase_however_it_was_cut(limit: int) -> None:
    from codex_nb.events.bus import EventBus
    from codex_nb.runtime.call_records import CallRecords
    from codex_nb.tools.lifecycle import CallLifecycle, ToolCallOutcome
    from codex_nb.tools.names import ToolName

    records = CallRecords(EventBus("t"), limit=limit)
    seen: list[object] = []
    records.on_lifecycle(seen.append)

    def life(call_id: str) -> CallLifecycle:
        return CallLifecycle(records, thread_id="t", turn_id="u", call_id=call_id, tool_name=ToolName.of("x"))

    first, never_started, running = life("a"), life("b"), life("c")
    first.start()
    never_started.finish(ToolCallOutcome.aborted())  # a call stopped before its turn came: finish only
    first.finish(ToolCallOutcome.completed(True))
    running.start()  # still running: start only
    assert [(r.call_id, r.phase) for r in seen] == [("a", "start"), ("b", "finish"), ("a", "finish"), ("c", "start")]
    assert records.lifecycle_log == seen[-limit:]


async def test_requests_carry_the_live_history_and_are_copied_only_when_asked(session: cx.Session) -> None:
    seen = []
    plain = cx.ScriptedModel([lambda request: seen.append(request.items) or [cx.assistant_message("ok")]])
    await session.run_turn("hi", model=plain)
    assert seen[0] is session.history  # no copy of the history per step
    with pytest.raises(cx.errors.ScriptedModelError, match="record_requests=True"):
        plain.requests
    recording = cx.ScriptedModel([[cx.assistant_message("again")]], record_requests=True)
    await session.run_turn("more", model=recording)
    (request,) = recording.requests
    assert request.items == session.history[:-1] and request.items is not session.history


async def test_the_session_lets_go_of_a_finished_turn(session: cx.Session) -> None:
    handle = session.start_turn("go", model=cx.ScriptedModel([[cx.assistant_message("done")]]))
    result = await handle
    ref = weakref.ref(result)
    assert session.active_turn is None
    del handle, result
    await asyncio.sleep(0)  # one loop turn drops the loop's own wake-up reference to the task
    gc.collect()
    assert ref() is None  # only the caller held the result


async def test_a_finished_call_token_leaves_the_turn_token() -> None:
    session = cx.Session()
    turn = session._new_turn(cx.tools.ModeKind.DEFAULT)
    from codex_nb.tools.calls import run_call
    from codex_nb.tools.names import ToolName
    from codex_nb.tools.payload import Payload, ToolCall

    router = session.tool_plan().router
    for i in range(3):
        call = ToolCall(tool_name=ToolName.of("update_plan"), call_id=f"c{i}", payload=Payload.function('{"plan":[]}'))
        await run_call(call, turn, router)
    assert turn.cancel._children == {}
