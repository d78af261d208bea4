"""A session with one command hook, and checks on the hook's real processes: the hook writes
"$$ $!" (its shell and a child it put in the background) to a FIFO, and a pidfd tells when each
has ended."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
from pathlib import Path
from typing import Any

import codex_nb as cx
from codex_nb.hooks.engine import HookEngine
from codex_nb.config.hooks import parse_hooks_json

BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SHELL": "/bin/sh"}

# The hook's shell starts a child in the background, hands both pids over and waits for it.
BACKGROUNDED = "sleep 300 & echo $$ $! > {fifo}; wait"


def wait_dead(pid: int, timeout: float = 15.0) -> bool:
    """True once ``pid`` is gone (or a zombie), via a pidfd: no polling."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def hook_pids(fifo: Path) -> list[int]:
    with open(fifo) as reader:  # blocks until the hook has written its pids
        return [int(p) for p in reader.read().split()]


def kill_leftovers(pids: list[int]) -> None:
    """End what a failing test left behind (the group is the shell's pid)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def command_hook_session(
    tmp_path: Path, command: str, *, event: str = "PreToolUse", env: dict[str, str] = BASE_ENV, **handler: Any
) -> cx.Session:
    """A session whose engine has one (code-defined, trusted) command hook on ``update_plan``."""
    doc = {
        "hooks": {event: [{"matcher": "update_plan", "hooks": [{"type": "command", "command": command, **handler}]}]}
    }
    engine = HookEngine(env=env, config=parse_hooks_json(json.dumps(doc), source_path="<test>", from_file=False))
    return cx.Session(cwd=str(tmp_path), hooks=engine)
