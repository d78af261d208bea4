"""Checks on a command hook's real processes for the tests: the hook writes "$$ $!" (its shell and
a child it put in the background) to a FIFO, and a pidfd tells when each has ended."""

from __future__ import annotations

import contextlib
import os
import select
import signal
from pathlib import Path

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
