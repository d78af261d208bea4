"""Nothing an ACP agent or a client terminal starts outlives it: codex-acp runs each shell
command in its own session (a command ignoring SIGHUP survived the agent's close or kill
before), and a terminal command that calls ``setsid`` survived release. Terminal output is
capped on our side whatever ``outputByteLimit`` the agent asks for."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.acp.fs import ConfinedFiles
from codex_nb.acp.terminals import MAX_OUTPUT_LIMIT, Terminals
from codex_nb.testing import ResponsesServer, Stall, codex_acp_binary, write_codex_acp_home

from helpers.process_trees import ESCAPING, fifo_at, kill_leftover, read_pid, wait_dead

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")


def _stalls_after_the_command(gate: threading.Event, fifo: Path) -> list:
    def reached(_body: dict) -> Stall:
        gate.set()
        return Stall(120)

    call = cx.function_call("exec_command", {"cmd": ESCAPING.format(fifo=fifo), "yield_time_ms": 250}, call_id="c1")
    return [[call], reached]


@pytest.mark.parametrize("how", ["close", "kill"])
@pytest.mark.requires_acp_agent
async def test_a_command_that_left_the_group_ends_with_codex_acp(tmp_path: Path, how: str) -> None:
    fifo = fifo_at(tmp_path / "pid")
    gate = threading.Event()
    work = tmp_path / "work"
    work.mkdir()
    pid = None
    with ResponsesServer(_stalls_after_the_command(gate, fifo), allow_leftover=True) as srv:
        home = write_codex_acp_home(srv, tmp_path / "home", approval_policy="never", sandbox_mode="danger-full-access")
        agent = cx.AcpAgent(codex_acp_binary(), env={"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-local"})
        try:
            session = await agent.new_session(work)
            prompt = asyncio.ensure_future(session.prompt("run it"))
            pid = await asyncio.to_thread(read_pid, fifo)
            assert await asyncio.to_thread(gate.wait, 120), "codex-acp never came back to the model"
            assert os.getsid(pid) == pid  # the command left the agent's session
            if how == "kill":
                os.kill(agent.pid, signal.SIGKILL)  # the agent alone, as a crash does
                assert await asyncio.to_thread(wait_dead, pid), "the command outlived the killed agent"
        finally:
            await agent.aclose()
            await asyncio.gather(prompt, return_exceptions=True)
            if pid is not None:
                dead = await asyncio.to_thread(wait_dead, pid)
                kill_leftover(pid)
    assert dead, f"the command ({pid}) outlived codex-acp ({how})"


async def test_a_terminal_command_that_left_the_group_ends_on_release_and_close(tmp_path: Path) -> None:
    terminals = Terminals(ConfinedFiles(tmp_path), dict(os.environ))
    pids = []
    try:
        for end in ("release", "close"):
            fifo = fifo_at(tmp_path / f"pid-{end}")
            terminal_id = await terminals.create("sh", ["-c", ESCAPING.format(fifo=fifo)], None, None, None)
            pid = await asyncio.to_thread(read_pid, fifo)
            pids.append(pid)
            assert os.getsid(pid) == pid
            await (terminals.release(terminal_id) if end == "release" else terminals.close())
            assert await asyncio.to_thread(wait_dead, pid), f"a terminal's setsid child outlived {end}"
    finally:
        for pid in pids:
            kill_leftover(pid)


async def test_terminal_output_is_capped_whatever_limit_the_agent_asks(tmp_path: Path) -> None:
    terminals = Terminals(ConfinedFiles(tmp_path), dict(os.environ))
    size = 3 * MAX_OUTPUT_LIMIT
    try:
        terminal_id = await terminals.create(
            "sh", ["-c", f"head -c {size} /dev/zero | tr '\\0' a; echo end"], None, None, 10**12
        )
        assert await terminals.wait(terminal_id) == (0, None)
        terminal = terminals.get(terminal_id)
        assert terminal.truncated and len(terminal.output) == MAX_OUTPUT_LIMIT
        assert terminal.output.endswith(b"aaaaend\n")  # the tail is kept
    finally:
        await terminals.close()
