"""The real Codex runs each shell command in its own session, so a command that ignores SIGHUP
survived a killed or closed app-server before: now the app-server runs below codex_nb's
supervisor and the command ends with it. And a stopped (SIGSTOP) app-server: Stop ends the
turn within the interrupt timeout, saying why, and the server is killed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest

import codex_nb as cx

from helpers.app_server_helpers import Reached, live_members, real_codex
from helpers.process_trees import ESCAPING, fifo_at, kill_leftover, read_pid, wait_dead

pytestmark = [
    pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc"),
    pytest.mark.requires_codex,
]

FULL_ACCESS = {"approval_policy": "never", "sandbox_mode": "danger-full-access"}


def command_call(fifo: Path) -> dict:
    return cx.function_call("exec_command", {"cmd": ESCAPING.format(fifo=fifo), "yield_time_ms": 250}, call_id="c1")


async def _running_command(server: cx.CodexAppServer, tmp_path: Path, fifo: Path, sampling: Reached):
    thread = await server.start_thread(cwd=tmp_path)
    handle = thread.start_turn("run it")
    pid = await asyncio.to_thread(read_pid, fifo)
    await sampling.wait()  # the command runs in the background, the turn waits for the model
    assert os.getsid(pid) == pid and os.getpgid(pid) != server.pid  # it left the server's group
    return handle, pid


@pytest.mark.parametrize("how", ["kill", "close"])
async def test_a_command_that_left_the_group_ends_with_the_app_server(tmp_path: Path, how: str) -> None:
    fifo = fifo_at(tmp_path / "pid")
    sampling = Reached()
    pid = None
    try:
        async with real_codex([[command_call(fifo)], sampling], tmp_path / "home", **FULL_ACCESS) as (server, _):
            handle, pid = await _running_command(server, tmp_path, fifo, sampling)
            if how == "kill":
                os.kill(server.pid, signal.SIGKILL)  # the server alone, as a crash or the OOM killer does
                result = await handle
                assert result.status == "failed" and "exited unexpectedly" in result.error
        assert await asyncio.to_thread(wait_dead, pid), f"the command ({pid}) outlived the app-server ({how})"
    finally:
        if pid is not None:
            kill_leftover(pid)


async def test_stop_of_a_stopped_app_server_ends_the_turn_within_the_bound(tmp_path: Path) -> None:
    sampling = Reached()
    async with real_codex([sampling], tmp_path / "home") as (server, _):
        server.interrupt_timeout = 2.0
        thread = await server.start_thread(cwd=tmp_path)
        controls = cx.TurnControls(thread)
        handle = thread.start_turn("go")
        await sampling.wait()
        pid = server.pid
        os.kill(pid, signal.SIGSTOP)
        try:
            assert controls.stop(request_id="s1") == {"id": "s1", "outcome": "interrupting"}
            async with asyncio.timeout(60):  # the bound under test is 2 s; this only keeps a regression finite
                result = await handle
        finally:
            with contextlib.suppress(ProcessLookupError):  # a failing run must not leave it stopped
                os.kill(pid, signal.SIGCONT)
        assert result.status == "interrupted"
        assert "did not end turn" in result.error and "within 2 s" in result.error and "killed" in result.error
        assert controls.status == "interrupted"
        with pytest.raises(cx.app_server.AppServerExited, match="did not end turn"):
            thread.start_turn("again")
    assert live_members(pid) == []


@pytest.fixture
def shell():
    from helpers.ipython_shell import codex_shell

    yield from codex_shell()


async def test_unloading_the_extension_with_a_stopped_app_server_ends_within_the_bound(shell, tmp_path: Path) -> None:
    from codex_nb import extension

    sampling = Reached()
    async with real_codex([sampling], tmp_path / "home") as (server, _):
        server.interrupt_timeout = 2.0
        shell.user_ns["thread"] = await server.start_thread(cwd=tmp_path)
        shell.run_cell_magic("codex", "--source thread", "go")
        (running,) = extension.agent(shell).turns
        await sampling.wait()
        await running.handle.started  # Codex answered turn/start: the turn is running (not starting)
        pid = server.pid
        os.kill(pid, signal.SIGSTOP)
        try:
            shell.run_line_magic("unload_ext", "codex_nb")
            async with asyncio.timeout(60):  # the bound under test is 2 s; this only keeps a regression finite
                await extension.wait_closed()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        result = await running.handle
    assert result.status == "interrupted" and "did not end turn" in result.error
    assert live_members(pid) == []


async def test_a_stop_before_codex_answers_turn_start_ends_within_the_bound(tmp_path: Path) -> None:
    """Stopped before it read ``turn/start``, the server never answers it: a Stop then must not wait
    for the turn id forever. The server is killed after ``interrupt_timeout`` and the turn ends
    interrupted, saying so."""
    async with real_codex([], tmp_path / "home") as (server, _):
        server.interrupt_timeout = 1.0
        thread = await server.start_thread(cwd=tmp_path)
        pid = server.pid
        os.kill(pid, signal.SIGSTOP)
        try:
            handle = thread.start_turn("go")
            await asyncio.sleep(0)  # the turn's task has sent turn/start
            assert not handle.turn_id and handle.interrupt()
            async with asyncio.timeout(60):  # the bound under test is 1 s; this only keeps a regression finite
                result = await handle
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert result.status == "interrupted" and "did not answer turn/start within 1 s" in (result.error or "")
    assert [e.msg.message for e in result.events if e.msg.type == "error"] == [result.error]
    assert live_members(pid) == []
