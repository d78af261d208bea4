"""A real kernel shut down while a background turn's command hook runs: the hook's whole process
group (including a child it put in the background) ends with the kernel."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers.hook_processes import BACKGROUNDED, hook_pids, wait_dead
from helpers.kernels import start_kernel

pytestmark = pytest.mark.kernel

CELL = """
import json, codex_nb as cx
from codex_nb.hooks import HookEngine, parse_hooks_json
doc = {{"hooks": {{"PreToolUse": [{{"matcher": "update_plan", "hooks": [
    {{"type": "command", "command": "{command}"}}]}}]}}}}
engine = HookEngine(env={{"PATH": "/usr/bin:/bin", "SHELL": "/bin/sh"}},
                    config=parse_hooks_json(json.dumps(doc), source_path="<t>", from_file=False))
session = cx.Session(hooks=engine)
model = cx.ScriptedModel([[cx.function_call("update_plan", {{"plan": [{{"step": "x", "status": "pending"}}]}})]])
handle = session.start_turn("go", model=model)
"""


def test_kernel_shutdown_ends_a_running_hooks_process_group(tmp_path: Path) -> None:
    fifo = tmp_path / "pids"
    os.mkfifo(fifo)
    manager, client = start_kernel()
    try:
        reply = client.execute_interactive(CELL.format(command=BACKGROUNDED.format(fifo=fifo)), timeout=60)
        assert reply["content"]["status"] == "ok", reply["content"]
        shell, child = hook_pids(fifo)
        assert os.getpgid(child) == shell  # the backgrounded child is in the hook's group
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)
    assert wait_dead(shell) and wait_dead(child), "the hook's processes outlived the kernel"
