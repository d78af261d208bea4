"""A real kernel shut down while it runs an app-server turn with a command in the background,
an ACP agent and a command hook: none of them, and nothing they started (the command left
the app-server's session and ignores SIGHUP; the hook put a child in the background),
survives ``shutdown_kernel``."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.testing import ResponsesServer, Stall, codex_acp_binary, codex_binary, write_codex_acp_home

from helpers.app_server_helpers import PLAN_TOOLS
from helpers.hook_processes import BACKGROUNDED, hook_pids
from helpers.kernels import start_kernel
from helpers.process_trees import ESCAPING, fifo_at, kill_leftover, read_pid, wait_dead

pytestmark = [pytest.mark.kernel, pytest.mark.requires_codex, pytest.mark.requires_acp_agent]

CELL = """
import asyncio, json, os, codex_nb as cx
from codex_nb.hooks import HookEngine, parse_hooks_json
server = cx.CodexAppServer(binary={binary!r}, codex_home={home!r}, env={{**os.environ, "OPENAI_API_KEY": "sk-local"}})
await server.start()
thread = await server.start_thread(cwd={work!r})
turn = thread.start_turn("run it")
agent = cx.AcpAgent({acp!r}, env={{"CODEX_HOME": {acp_home!r}, "OPENAI_API_KEY": "sk-local"}})
acp_session = await agent.new_session({work!r})
doc = {{"hooks": {{"PreToolUse": [{{"matcher": "update_plan", "hooks": [
    {{"type": "command", "command": {hook!r}}}]}}]}}}}
engine = HookEngine(env={{"PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}},
                    config=parse_hooks_json(json.dumps(doc), source_path="<t>", from_file=False))
session = cx.Session(hooks=engine)
model = cx.ScriptedModel([[cx.function_call("update_plan", {{"plan": [{{"step": "x", "status": "pending"}}]}})]])
handle = session.start_turn("go", model=model)
print("PIDS", server.pid, agent.pid)
"""


def test_kernel_shutdown_ends_every_child_and_what_it_started(tmp_path: Path) -> None:
    command_fifo, hook_fifo = fifo_at(tmp_path / "command"), fifo_at(tmp_path / "hook")
    work = tmp_path / "work"
    work.mkdir()
    call = cx.function_call("exec_command", {"cmd": ESCAPING.format(fifo=command_fifo), "yield_time_ms": 250})
    pids: list[int] = []
    with (
        ResponsesServer([[call], Stall(300)], allow_leftover=True) as srv,
        ResponsesServer([], allow_leftover=True) as acp_srv,
    ):
        home = srv.write_codex_home(
            tmp_path / "home", approval_policy="never", sandbox_mode="danger-full-access", **PLAN_TOOLS
        )
        acp_home = write_codex_acp_home(acp_srv, tmp_path / "acp-home")
        manager, client = start_kernel()
        try:
            out: list[str] = []
            code = CELL.format(
                binary=str(codex_binary()),
                home=str(home),
                work=str(work),
                acp=str(codex_acp_binary()),
                acp_home=str(acp_home),
                hook=BACKGROUNDED.format(fifo=hook_fifo),
            )

            def hook(msg: dict) -> None:
                if msg["msg_type"] in ("stream", "error"):
                    out.append(msg["content"].get("text") or "\n".join(msg["content"].get("traceback", [])))

            reply = client.execute_interactive(textwrap.dedent(code), timeout=180, output_hook=hook)
            assert reply["content"]["status"] == "ok", out
            pids += [int(p) for p in "".join(out).split("PIDS", 1)[1].split()[:2]]
            pids += hook_pids(hook_fifo)
            pids.append(read_pid(command_fifo))
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=False)
        try:
            survivors = [pid for pid in pids if not wait_dead(pid)]
            assert survivors == [], f"outlived the kernel: {survivors} of {pids} (server, agent, hook x2, command)"
        finally:
            for pid in pids:
                kill_leftover(pid)
    assert len(pids) == 5 and os.getpid() not in pids
