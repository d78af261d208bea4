"""A real kernel owns a real ``codex app-server``: restarting or killing the kernel leaves
no orphan, and a turn started from a cell runs in the background."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from helpers.app_server_helpers import live_members
from helpers.kernels import start_kernel
from codex_nb.testing import codex_binary

pytestmark = [pytest.mark.kernel, pytest.mark.requires_codex]

START = """
import asyncio, os, codex_nb as cx
server = cx.CodexAppServer(binary={binary!r}, codex_home={home!r},
                           env={{**os.environ, "OPENAI_API_KEY": "sk-local-test"}})
await server.start()
print("PID", server.pid)
"""


def _run(client, code: str) -> str:
    out: list[str] = []

    def hook(msg) -> None:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    reply = client.execute_interactive(textwrap.dedent(code), timeout=120, output_hook=hook)
    assert reply["content"]["status"] == "ok", "".join(out)
    return "".join(out)


def _start_server(client, home: Path) -> int:
    home.mkdir(parents=True, exist_ok=True)
    out = _run(client, START.format(binary=str(codex_binary()), home=str(home)))
    return int(out.split("PID", 1)[1].split()[0])


@pytest.mark.parametrize("now", [False, True], ids=["graceful-restart", "hard-restart"])
def test_kernel_restart_leaves_no_orphan(tmp_path: Path, now: bool) -> None:
    manager, client = start_kernel(env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        pid = _start_server(client, tmp_path / "home")
        assert pid in live_members(pid)  # Codex may still run helpers (git) in its group
        # graceful: shutdown_request -> our kernel shutdown hook; hard: SIGKILL -> PR_SET_PDEATHSIG
        manager.restart_kernel(now=now)
        client.wait_for_ready(timeout=120)
        _wait_gone(pid)
        assert live_members(pid) == []
        assert "PID" in _run(client, "print('PID', 1)")  # the new kernel works
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _wait_gone(pid: int) -> None:
    """The kernel is gone, so its child must follow; poll /proc (bounded), no fixed sleep."""
    import time

    deadline = time.monotonic() + 30
    while live_members(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
