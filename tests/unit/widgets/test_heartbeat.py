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
    assert seen["hook"] == "running hook PreToolUse: check-plan.sh 0 s"
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


async def test_a_running_command_hook_is_named_by_its_command(tmp_path: Any) -> None:
    """A command hook runs through the login shell: a slow profile makes every tool call wait on
    it, and the heartbeat must say that the wait is this hook (a real ``/bin/sh -lc`` process)."""
    from helpers.hook_processes import BASE_ENV, command_hook_session

    long = "echo " + "x" * 100
    session = command_hook_session(tmp_path, "true  # the check", env=BASE_ENV)
    with recording_comms():
        beat = Heartbeat(session)
    during: list[str] = []

    def on_hook(event: Any) -> None:
        if event.msg.type == "hook_started":
            during.append(beat.text())

    session.subscribe(on_hook)
    plan = {"plan": [{"step": "A", "status": "completed"}]}
    model = cx.ScriptedModel([[cx.function_call("update_plan", plan)], [cx.assistant_message("done")]])
    assert (await session.start_turn("go", model=model)).status == "completed"
    assert during == ["running hook PreToolUse: true # the check 0 s"]
    beat.close()

    from codex_nb.widgets.hook_runs import COMMAND_SHOWN, running_hook

    session = command_hook_session(tmp_path, long, env=BASE_ENV)
    run = type("Run", (), {"event_name": "pre_tool_use", "display_order": 0, "source_path": "<test>"})()
    shown = running_hook(run, session)
    assert shown.endswith("…") and len(shown) == len("running hook PreToolUse: ") + COMMAND_SHOWN
    assert running_hook(run, object()) == "running hook PreToolUse: <test>"  # no engine: where it came from
