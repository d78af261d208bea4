"""Heartbeat: the running turn's activity and its duration, a stall marked, one timer per view."""

from __future__ import annotations

import asyncio
from typing import Any

import codex_nb as cx
from codex_nb.hooks import Block
from codex_nb.widgets.heartbeat import Heartbeat
from codex_nb.widgets.testing import recording_comms


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_the_heartbeat_says_what_the_turn_does_and_for_how_long() -> None:
    session = cx.Session()
    clock = Clock()
    with recording_comms():
        beat = Heartbeat(session, stall_after=30, clock=clock)
    seen: dict[str, str] = {}
    sampled = asyncio.Event()
    release = asyncio.Event()

    @session.pre_tool_use(matcher="update_plan", status_message="check-plan.sh")
    def check(hook_input: Any) -> Any:
        seen["hook"] = beat.text()
        clock.now += 0.4
        return None if hook_input.tool_input["plan"] else Block(reason="empty")

    async def slow(request: Any) -> list[Any]:
        sampled.set()
        await release.wait()
        return [cx.function_call("update_plan", {"plan": [{"step": "A", "status": "in_progress"}]})]

    def in_tool(event: Any) -> None:
        if event.msg.type == "plan_update":
            seen["tool"] = beat.text()

    session.subscribe(in_tool)
    model = cx.ScriptedModel([slow, [cx.assistant_message("done")]])
    handle = session.start_turn("go", model=model)
    await sampled.wait()
    clock.now += 12
    assert beat.text() == "waiting for the model 12 s" and not beat.stalled
    clock.now += 30
    assert beat.text() == "waiting for the model 42 s · stalled? nothing has happened for 42 s" and beat.stalled
    release.set()
    await handle
    assert seen["hook"] == "hook PreToolUse: check-plan.sh 0 s"
    assert seen["tool"] == "running tool update_plan 0 s"
    assert beat.text() == "" and beat._timer is None  # idle: no timer left
    beat.close()


async def test_one_timer_per_view_and_unchanged_text_is_not_sent() -> None:
    session = cx.Session()
    with recording_comms():
        beat = Heartbeat(session)
    release = asyncio.Event()

    async def slow(request: Any) -> list[Any]:
        await release.wait()
        return [cx.assistant_message("done")]

    handle = session.start_turn("go", model=cx.ScriptedModel([slow]))
    await asyncio.sleep(0)
    timer = beat._timer
    assert timer is not None
    redraws = beat.redraws
    timer.cancel()
    beat._tick()  # the same second: the text is unchanged, nothing is sent
    assert beat.redraws == redraws and beat._timer is not None and beat._timer is not timer
    release.set()
    await handle
    assert beat._timer is None
    beat.close()
