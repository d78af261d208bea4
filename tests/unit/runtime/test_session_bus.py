"""Session, event bus and turns: ordering, faulty observers, async consumers, strict model."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.protocol.events import PlanUpdate

PLAN = {"plan": [{"step": "a", "status": "pending"}]}


async def test_subscribers_run_in_order_at_emission(session: cx.Session) -> None:
    log: list[str] = []
    session.subscribe(lambda e: log.append(f"first:{e.msg.type}"))
    session.subscribe(lambda e: log.append(f"second:{e.msg.type}"))
    await session.call_tool("update_plan", PLAN)
    assert log == ["first:plan_update", "second:plan_update"]


async def test_raising_subscriber_is_detached_and_reported(session: cx.Session) -> None:
    seen: list[str] = []

    def broken(event: cx.events.Event) -> None:
        raise RuntimeError("observer bug")

    session.subscribe(broken)
    session.subscribe(lambda e: seen.append(e.msg.type))
    first = await session.call_tool("update_plan", PLAN)
    assert first.output == "Plan updated"
    assert seen == ["plan_update", "warning"]
    warning = first.events[-1].msg
    assert "raised RuntimeError: observer bug" in warning.message and "detached" in warning.message
    await session.call_tool("update_plan", PLAN)
    assert seen[-1] == "plan_update"
    assert len(session.bus.detached) == 1


async def test_unsubscribe(session: cx.Session) -> None:
    seen: list[cx.events.Event] = []
    unsubscribe = session.subscribe(seen.append)
    unsubscribe()
    await session.call_tool("update_plan", PLAN)
    assert seen == []


async def test_async_consumer_receives_events_in_order(session: cx.Session) -> None:
    received: list[str] = []
    ready = asyncio.Event()

    async def consume() -> None:
        iterator = session.events()
        ready.set()
        async for event in iterator:
            received.append(event.msg.type)
            if event.msg.type == "turn_complete":
                return

    consumer = asyncio.ensure_future(consume())
    await ready.wait()
    await asyncio.sleep(0)  # let the generator register before the turn emits
    model = cx.ScriptedModel(
        [[cx.function_call("update_plan", PLAN, call_id="c")], [cx.assistant_message("x")]], record_requests=True
    )
    await session.run_turn("go", model=model)
    await consumer
    assert received == ["turn_started", "user_message", "plan_update", "agent_message", "turn_complete"]


async def test_bounded_consumer_drops_oldest() -> None:
    session = cx.Session()
    iterator = session.events(maxsize=2).__aiter__()
    first = asyncio.ensure_future(iterator.__anext__())
    await asyncio.sleep(0)  # the consumer is registered and waiting
    for revision in range(1, 6):  # five events while the consumer cannot run (no await in between)
        session.bus.emit(PlanUpdate(plan=[]), id="t", turn_id="t", revision=revision)
    session.bus.close()
    received = [await first] + [e async for e in iterator]
    # a queue of 2 keeps the NEWEST two, in order; 1, 2 and 3 were dropped
    assert [e.revision for e in received] == [4, 5]


async def test_start_turn_returns_at_once_and_can_be_awaited(session: cx.Session) -> None:
    gate = asyncio.Event()

    @session.tool
    async def wait_for_gate() -> str:
        "Blocks until released."
        await gate.wait()
        return "released"

    model = cx.ScriptedModel(
        [[cx.function_call("wait_for_gate", {}, call_id="g")], [cx.assistant_message("ok")]], record_requests=True
    )
    handle = session.start_turn("go", model=model)
    assert not handle.done()
    with pytest.raises(cx.TurnError, match="still running"):
        session.start_turn("again", model=model)
    gate.set()
    result = await handle
    assert result.status == "completed" and result.outputs() == {"g": "released"}


async def test_scripted_model_is_strict(session: cx.Session) -> None:
    over = cx.ScriptedModel([[cx.function_call("update_plan", PLAN, call_id="c")]])
    result = await session.run_turn("go", model=over)
    assert result.status == "failed"
    assert "only 1 were scripted" in result.error
    under = cx.ScriptedModel([[cx.assistant_message("done")], [cx.assistant_message("never used")]])
    result = await session.run_turn("go", model=under)
    assert result.status == "failed" and "never used" in result.error
    with pytest.raises(cx.errors.ScriptedModelError, match="Wrap a single item in a list"):
        cx.ScriptedModel([cx.assistant_message("oops")])


async def test_history_and_result_items(session: cx.Session) -> None:
    model = cx.ScriptedModel(
        [[cx.function_call("update_plan", PLAN, call_id="c")], [cx.assistant_message("ok")]], record_requests=True
    )
    result = await session.run_turn("hello", model=model)
    assert [i["type"] for i in result.items] == ["message", "function_call", "function_call_output", "message"]
    assert result.items[0] == cx.user_message("hello")
    assert result.last_agent_message == "ok"
    assert model.requests[0].items == [cx.user_message("hello")]
    assert model.requests[0].tools == session.tool_plan().specs


async def test_bad_mode_and_model_name_the_fix(session: cx.Session) -> None:
    with pytest.raises(cx.TurnError, match="mode must be 'default' or 'plan'"):
        await session.call_tool("update_plan", PLAN, mode="turbo")
    with pytest.raises(cx.TurnError, match="async sample"):
        session.start_turn("x", model=object())  # type: ignore[arg-type]


def test_start_turn_without_loop_explains() -> None:
    with pytest.raises(cx.TurnError, match="running asyncio loop"):
        cx.Session().start_turn("x", model=cx.ScriptedModel([[cx.assistant_message("a")]], record_requests=True))


async def test_non_string_call_id_is_a_model_visible_error(session: cx.Session) -> None:
    rec = cx.testing.RecordingSubscriber(session)
    result = await session.call_tool("update_plan", PLAN, call_id=7)
    assert result.output == "invalid call_id 7: a call id must be a string"
    assert rec.events == []

    # From a model, such an item does not parse as a Responses API item: Codex drops it (checked
    # against codex 0.169.0), so the turn ends without a call, with a warning saying why.
    model = cx.ScriptedModel([[{"type": "function_call", "name": "update_plan", "arguments": "{}", "call_id": 5}]])
    turn = await session.run_turn("go", model=model)
    assert turn.status == "completed"
    assert [i["type"] for i in turn.items] == ["message"]
    assert [e.msg.message for e in rec.events if e.msg.type == "warning"] == [
        "dropped a model output item that is not a valid Responses API item (function_call has call_id 5, "
        "not a string), as Codex does"
    ]


async def test_deeply_nested_and_huge_arguments(session: cx.Session) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    result = await session.call_tool("update_plan", deep)
    assert result.output.startswith("failed to parse function arguments:")
    huge = {"plan": [{"step": "x" * 1000, "status": "pending"}] * 2000}
    result = await session.call_tool("update_plan", huge)
    assert result.output == "Plan updated" and len(result.events[0].msg.plan) == 2000


def test_repr_is_stable_enough(session: cx.Session) -> None:
    assert repr(session).startswith("<Session thread=")
    assert "0x" not in repr(session)


async def test_latest_plan_is_the_last_plan_update_of_the_thread(session: cx.Session) -> None:
    assert session.latest_plan() is None
    await session.call_tool("update_plan", PLAN)
    second = await session.call_tool("update_plan", {"plan": [{"step": "b", "status": "completed"}]})
    latest = session.latest_plan()
    assert latest is second.events[0] and latest.revision == 2


def test_session_is_an_event_source(session: cx.Session) -> None:
    assert isinstance(session, cx.events.EventSource)
    assert not isinstance(object(), cx.events.EventSource)


async def test_aclose_ends_the_turn_requests_and_consumers_and_is_idempotent() -> None:
    session = cx.Session()
    asked = asyncio.Event()
    session.frontend_requests.add_listener(lambda: asked.set() if session.frontend_requests.pending else None)
    session.frontend_requests.attach(type("Shown", (), {"alive": True, "ready": True})())
    session.config.default_mode_request_user_input = True
    question = {
        "questions": [{"id": "q", "header": "H", "question": "Go?", "options": [{"label": "Yes", "description": "go"}]}]
    }
    model = cx.ScriptedModel(
        [[cx.function_call("request_user_input", question, call_id="q1")], [cx.assistant_message("never")]],
        allow_leftover=True,
        record_requests=True,
    )
    consumed: list[str] = []
    listening = asyncio.Event()

    async def consume() -> None:
        iterator = session.events().__aiter__()
        nxt = asyncio.ensure_future(iterator.__anext__())
        await asyncio.sleep(0)  # the generator is registered with the bus now
        listening.set()
        try:
            while True:
                consumed.append((await nxt).msg.type)
                nxt = asyncio.ensure_future(iterator.__anext__())
        except StopAsyncIteration:
            return

    consumer = asyncio.ensure_future(consume())
    await listening.wait()
    handle = session.start_turn("go", model=model)
    await asked.wait()
    async with session:
        pass
    result = await handle
    assert result.status == "interrupted"
    assert session.frontend_requests.pending == []
    await consumer  # the consumer ended with the bus
    assert consumed[0] == "turn_started" and consumed[-1] == "turn_aborted"
    await session.aclose()  # a second close is a no-op
    assert session.closed
    with pytest.raises(cx.TurnError, match="closed"):
        session.start_turn("again", model=model)


async def test_scripted_items_are_copied_at_every_level(session: cx.Session) -> None:
    message = cx.assistant_message("done")
    script = [[message]]
    result = await session.run_turn("go", model=cx.ScriptedModel(script))
    recorded = result.items[-1]
    assert recorded == message
    assert recorded is not message
    assert recorded["content"] is not message["content"]
    assert recorded["content"][0] is not message["content"][0]
    recorded["content"][0]["text"] = "changed"
    assert message["content"][0]["text"] == "done"  # the script is never changed through history
