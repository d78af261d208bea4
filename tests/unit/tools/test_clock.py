"""``clock.curr_time`` and ``clock.sleep``: gates, specs, exact outputs, waking."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest

import codex_nb as cx
from codex_nb.tools.names import ToolName
from codex_nb.tools.handlers.clock import CurrTimeTool, clock_tools

CLOCK_TOML = """
[tools.update_plan]
enabled = true
[features.current_time_reminder]
enabled = true
sleep_tool = true
"""
SPEC_JSON = """{"type":"namespace","name":"clock","description":"Tools for reading and waiting on time.","tools":[
 {"type":"function","name":"curr_time","description":"Return the current time in UTC.","strict":false,"parameters":{"type":"object","properties":{},"additionalProperties":false}},
 {"type":"function","name":"sleep","description":"Pause execution for a specified duration. The sleep ends early when new input arrives for the active turn. Returns the elapsed wall-clock time.","strict":false,"parameters":{"type":"object","properties":{"duration_ms":{"type":"number","description":"How long to sleep in milliseconds. Must be between 1 and 43200000."}},"required":["duration_ms"],"additionalProperties":false}}]}"""
WALL = re.compile(r"^Wall time: \d+\.\d{4} seconds\n(Sleep completed\.|Sleep interrupted by new input\.)$")


@pytest.fixture
def clock_session() -> cx.Session:
    return cx.Session(cx.Config.from_toml(CLOCK_TOML))


def test_gates() -> None:
    assert clock_tools(cx.Config()) == []
    only_time = cx.Session(cx.Config.from_toml("[features]\ncurrent_time_reminder = true\n"))
    assert [n for n in only_time.tool_plan().tool_names if n.startswith("clock.")] == ["clock.curr_time"]
    off = cx.Session(cx.Config.from_toml("[features.current_time_reminder]\nsleep_tool = true\n"))
    assert "clock.sleep" not in off.registry
    no_ns = cx.Session(cx.Config.from_toml(CLOCK_TOML).model_copy(update={"namespace_tools": False}))
    assert not any(n.startswith("clock.") for n in no_ns.tool_plan().tool_names)


def test_wire_spec_and_exposure(clock_session: cx.Session) -> None:
    plan = clock_session.tool_plan()
    (clock,) = [s for s in plan.specs if s.get("type") == "namespace"]
    assert json.dumps(clock, separators=(",", ":")) == json.dumps(json.loads(SPEC_JSON), separators=(",", ":"))
    assert plan.exposure("clock.curr_time") is cx.tools.ToolExposure.Direct
    assert plan.exposure("clock.sleep") is cx.tools.ToolExposure.DirectModelOnly
    names = plan.tool_names
    assert names.index("update_plan") < names.index("clock.curr_time")


async def test_curr_time_output(clock_session: cx.Session) -> None:
    res = await clock_session.call_tool("clock.curr_time", "not even json")  # arguments are not parsed
    assert re.fullmatch(r"It is \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.", res.output), res.output
    assert res.success is True


async def test_curr_time_exact_with_injected_clock() -> None:
    session = cx.Session()
    fixed = datetime(2026, 6, 17, 19, 35, 15, 999, tzinfo=timezone(timedelta(hours=2)))
    session.registry.register(CurrTimeTool(now=lambda: fixed), source="test")
    res = await session.call_tool("clock.curr_time", {})
    assert res.output == "It is 2026-06-17 17:35:15 UTC."
    assert res.result.output.code_mode_result == {"current_time": "2026-06-17 17:35:15 UTC"}


async def test_clock_failures_are_fatal() -> None:
    def broken() -> datetime:
        raise OSError("no clock")

    session = cx.Session()
    session.registry.register(CurrTimeTool(now=broken), source="test")
    res = await session.call_tool("clock.curr_time", {})
    assert res.output == "Fatal error: failed to read current time: no clock"
    external = cx.Session(
        cx.Config.from_toml(
            '[features.current_time_reminder]\nenabled = true\nsleep_tool = true\nclock_source = "external"\n'
        )
    )
    res = await external.call_tool("clock.curr_time", {})
    assert res.output == (
        "Fatal error: failed to read current time: features.current_time_reminder.clock_source "
        "is external, but no external current-time provider is available"
    )


async def test_unsupported_payload(clock_session: cx.Session) -> None:
    from codex_nb.tools.calls import run_call
    from codex_nb.tools.payload import Payload, ToolCall

    turn = clock_session._new_turn(cx.tools.ModeKind.DEFAULT)
    router = clock_session.tool_plan().router
    for name in ("curr_time", "sleep"):
        call = ToolCall(tool_name=ToolName.of(name, "clock"), call_id="t", payload=Payload("tool_search", "{}"))
        result = await run_call(call, turn, router)
        assert result.output.text == f"{name} handler received unsupported payload"


async def test_sleep_completes_with_exact_text_and_items(clock_session: cx.Session) -> None:
    res = await clock_session.call_tool("clock.sleep", {"duration_ms": 1}, call_id="z1")
    assert WALL.match(res.output) and res.output.endswith("Sleep completed.")
    wire = [e.msg.to_wire() for e in res.events]
    assert [w["type"] for w in wire] == ["item_started", "item_completed"]
    assert wire[0]["item"] == {"type": "Sleep", "id": "z1", "duration_ms": 1}
    assert list(wire[1]) == ["type", "thread_id", "turn_id", "item", "completed_at_ms"]


@pytest.mark.parametrize(
    ("arguments", "output"),
    [
        ({"duration_ms": 0}, "duration_ms must be between 1 and 43200000"),
        ({"duration_ms": 43_200_001}, "duration_ms must be between 1 and 43200000"),
        ({"duration_ms": 1.5}, "failed to parse function arguments: invalid type: floating point `1.5`, expected u64"),
        ({"duration_ms": -1}, "failed to parse function arguments: invalid value: integer `-1`, expected u64"),
        ({"duration_ms": "5"}, 'failed to parse function arguments: invalid type: string "5", expected u64'),
        ({"duration_ms": 5, "x": 1}, "failed to parse function arguments: unknown field `x`, expected `duration_ms`"),
        ({}, "failed to parse function arguments: missing field `duration_ms`"),
    ],
)
async def test_sleep_rejects_bad_durations(clock_session: cx.Session, arguments, output) -> None:
    res = await clock_session.call_tool("clock.sleep", arguments)
    assert res.output.startswith(output), res.output
    assert res.success is False
    assert res.events == []


@pytest.mark.parametrize("rep", range(20))
async def test_new_input_interrupts_a_twelve_hour_sleep(clock_session: cx.Session, rep, no_leaked_tasks) -> None:
    started = asyncio.Event()
    clock_session.subscribe(lambda e: started.set() if e.msg.type == "item_started" else None)
    model = cx.ScriptedModel(
        [
            [cx.function_call("sleep", {"duration_ms": 43_200_000}, call_id="z1", namespace="clock")],
            [cx.assistant_message("woke")],
        ],
        record_requests=True,
    )
    handle = clock_session.start_turn("wait", model=model)
    await started.wait()
    handle.steer("wake up")
    result = await handle
    assert result.status == "completed"
    out = result.outputs()["z1"]
    assert WALL.match(out) and out.endswith("\nSleep interrupted by new input.")
    assert [i["content"][0]["text"] for i in model.requests[1].items if i.get("role") == "user"] == ["wait", "wake up"]


async def test_pending_input_interrupts_at_once(clock_session: cx.Session, no_leaked_tasks) -> None:
    async def steer_then_sleep(request):
        handle.steer("already here")
        return [cx.function_call("sleep", {"duration_ms": 43_200_000}, call_id="z1", namespace="clock")]

    model = cx.ScriptedModel([steer_then_sleep, [cx.assistant_message("ok")]], record_requests=True)
    handle = clock_session.start_turn("go", model=model)
    result = await handle
    assert result.outputs()["z1"] == "Wall time: 0.0000 seconds\nSleep interrupted by new input."


@pytest.mark.parametrize("rep", range(20))
async def test_interrupt_wakes_sleep_with_aborted_text(clock_session: cx.Session, rep, no_leaked_tasks) -> None:
    started = asyncio.Event()
    clock_session.subscribe(lambda e: started.set() if e.msg.type == "item_started" else None)
    log = cx.testing.RecordingSubscriber(clock_session)
    model = cx.ScriptedModel(
        [
            [cx.function_call("sleep", {"duration_ms": 43_200_000}, call_id="z1", namespace="clock")],
            [cx.assistant_message("x")],
        ],
        allow_leftover=True,
        record_requests=True,
    )
    handle = clock_session.start_turn("wait", model=model)
    await started.wait()
    handle.interrupt()
    result = await handle
    assert re.fullmatch(r"aborted by user after \d+\.\ds", result.outputs()["z1"])
    assert "item_completed" not in log.types  # the sleep never completed
    assert [r.phase if r.phase == "start" else str(r.outcome) for r in clock_session.lifecycle_log] == [
        "start",
        "Aborted",
    ]
    assert not handle.hard_aborted


def test_utc_is_used() -> None:
    assert CurrTimeTool()._now().tzinfo is UTC


def test_current_time_reminder_is_throttled_per_thread() -> None:
    from codex_nb.protocol.items import developer_message
    from codex_nb.tools.handlers.clock import CurrentTimeReminder

    moments = iter([datetime(2026, 6, 17, 17, 35, 15, tzinfo=UTC) + timedelta(seconds=s) for s in (0, 0.5, 1.0)])
    config = cx.Config.from_toml("[features.current_time_reminder]\nenabled = true\n")
    reminder = CurrentTimeReminder(config, now=lambda: next(moments))
    text = "<current_time_reminder>It is 2026-06-17 17:35:15 UTC.</current_time_reminder>"
    assert reminder.due_item() == developer_message(text)
    assert reminder.due_item() is None  # 0.5 s later: within reminder_interval_seconds (default 1)
    assert reminder.due_item() is not None
    assert CurrentTimeReminder(cx.Config.from_toml("")).due_item() is None


async def test_turn_with_clock_gets_one_reminder_after_the_prompt() -> None:
    session = cx.Session(cx.Config.from_toml("[features]\ncurrent_time_reminder = true\n"))
    model = cx.ScriptedModel([[cx.assistant_message("hi")]], record_requests=True)
    await session.run_turn("what time is it", model=model)
    from codex_nb.protocol.items import message_text, user_message

    items = model.requests[0].items
    assert items[-2] == user_message("what time is it")
    assert message_text(items[-1]).startswith("<current_time_reminder>It is ")
