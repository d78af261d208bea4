"""Closing a session (or cancelling a hook) at every moment of a command hook's life ends the
hook's whole process group: while its pipes are still being connected (the process exists;
asyncio's create_subprocess_exec would not have returned yet), while it runs, as its shell
exits, and while its run is still unwinding. Real subprocesses; the moments are reached by
handshakes (a gated pipe connection, a FIFO), not sleeps."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.hooks.runner import ProcessGroups, run_command
from helpers.hook_processes import BACKGROUNDED, command_hook_session, hook_pids, kill_leftovers, wait_dead

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SHELL": "/bin/sh"}
PLAN = {"plan": [{"step": "x", "status": "pending"}]}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pids"
    os.mkfifo(path)
    return path


class GatedPipes:
    """The running loop's ``connect_read_pipe``, held at its first call until ``release``: the
    moment the hook's process exists but its pipes are not connected yet (inside asyncio's
    ``create_subprocess_exec``, or codex_nb's own spawn). ``started`` resolves there."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        loop = asyncio.get_running_loop()
        self._real = loop.connect_read_pipe
        self.started: asyncio.Future[None] = loop.create_future()
        self.release = asyncio.Event()
        monkeypatch.setattr(loop, "connect_read_pipe", self)

    async def __call__(self, *args, **kwargs):
        if not self.started.done():
            self.started.set_result(None)
        await self.release.wait()
        return await self._real(*args, **kwargs)


def one_plan_model() -> cx.ScriptedModel:
    return cx.ScriptedModel([[cx.function_call("update_plan", PLAN)], [cx.assistant_message("done")]])


async def all_dead(pids: list[int]) -> bool:
    return all(await asyncio.gather(*(asyncio.to_thread(wait_dead, pid, 10.0) for pid in pids)))


async def test_a_hook_cancelled_while_its_process_is_being_spawned_ends_its_group(monkeypatch, fifo, tmp_path):
    gate = GatedPipes(monkeypatch)
    run = asyncio.ensure_future(
        run_command(BACKGROUNDED.format(fifo=fifo), stdin_json="{}", cwd=str(tmp_path), env=ENV, timeout=60)
    )
    await gate.started
    pids = await asyncio.to_thread(hook_pids, fifo)
    try:
        run.cancel()  # lands before the pipes are connected, as an interrupt's hard abort can
        gate.release.set()
        with pytest.raises(asyncio.CancelledError):
            await run
        assert await all_dead(pids), "a hook cancelled mid-spawn left its process group running"
    finally:
        kill_leftovers(pids)


async def turn_at_the_gate(monkeypatch, fifo: Path, tmp_path: Path):
    """A turn whose hook process exists while its pipes wait at the gate: (gate, session, engine,
    the turn's handle, the hook's pids)."""
    gate = GatedPipes(monkeypatch)
    session = command_hook_session(tmp_path, BACKGROUNDED.format(fifo=fifo))
    engine = session.hooks
    handle = session.start_turn("go", model=one_plan_model())
    await gate.started
    return gate, session, engine, handle, await asyncio.to_thread(hook_pids, fifo)


async def test_a_turn_hard_aborted_mid_spawn_then_closed_leaves_no_hook_process(monkeypatch, fifo, tmp_path):
    gate, session, _, handle, pids = await turn_at_the_gate(monkeypatch, fifo, tmp_path)
    try:
        handle.task.cancel()  # what the interrupt's hard abort does
        gate.release.set()
        await session.aclose()
        assert handle.task.done()
        assert await all_dead(pids), "session.aclose() left the hook's process group running"
    finally:
        kill_leftovers(pids)


@pytest.mark.slow
async def test_closing_the_engine_before_a_hooks_pipes_are_connected_kills_it(monkeypatch, fifo, tmp_path):
    gate, session, engine, handle, pids = await turn_at_the_gate(monkeypatch, fifo, tmp_path)
    try:
        await engine.aclose()
        assert await all_dead(pids), "a hook that was starting when its engine closed kept running"
        gate.release.set()
        async with asyncio.timeout(30):
            result = await handle
        [run] = [e.msg.run for e in result.events if e.msg.type == "hook_completed"]
        assert run.status == "failed", run
        assert result.status == "completed"  # a failed hook fails open
        # The engine stays usable: the next turn's hook runs (and is ended by aclose again).
        again = session.start_turn("again", model=one_plan_model())
        more = await asyncio.to_thread(hook_pids, fifo)
        pids += more
        await session.aclose()
        assert again.done() and await all_dead(more)
    finally:
        kill_leftovers(pids)


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        BACKGROUNDED,  # the shell waits for its child: aclose lands while the hook runs
        "sleep 300 & echo $$ $! > {fifo}",  # the shell exits at once: aclose lands as the leader exits
    ],
    ids=["running", "leader-exiting"],
)
async def test_closing_a_session_mid_hook_ends_the_hooks_group(command, fifo, tmp_path):
    session = command_hook_session(tmp_path, command.format(fifo=fifo))
    handle = session.start_turn("go", model=one_plan_model())
    pids = await asyncio.to_thread(hook_pids, fifo)
    try:
        await session.aclose()
        assert handle.done()
        assert await all_dead(pids)
    finally:
        kill_leftovers(pids)


async def test_closing_the_groups_kills_a_run_that_is_still_unwinding(fifo, tmp_path):
    groups = ProcessGroups()
    run = asyncio.ensure_future(
        run_command(
            BACKGROUNDED.format(fifo=fifo), stdin_json="{}", cwd=str(tmp_path), env=ENV, timeout=60, groups=groups
        )
    )
    pids = await asyncio.to_thread(hook_pids, fifo)
    try:
        assert len(groups) == 1
        assert groups.close() == 1  # the run itself has not been told anything
        assert await all_dead(pids)
        raw = await run
        assert raw.exit_code == -9 and len(groups) == 0
    finally:
        kill_leftovers(pids)
