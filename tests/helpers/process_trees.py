"""Helpers for tests that check nothing a program started outlives it: a command that leaves
its process group (``setsid``) and ignores SIGHUP, and hands its pid over a FIFO."""

from __future__ import annotations

import os
import select
from pathlib import Path

# The command Codex runs for the model: a child in a new session that ignores SIGHUP (what a
# killed parent's terminal hang-up would send) writes its own pid to a FIFO and sleeps.
ESCAPING = "setsid sh -c 'trap \"\" HUP; echo $$ > {fifo}; exec sleep 300' & wait"


def fifo_at(path: Path) -> Path:
    os.mkfifo(path)
    return path


def read_pid(fifo: Path, timeout: float = 120.0) -> int:
    """The pid the command wrote, without blocking forever if it never starts (opened for
    reading and writing: the open does not wait for a writer, and EOF never comes early)."""
    fd = os.open(fifo, os.O_RDWR)
    try:
        data = b""
        while not data.endswith(b"\n"):
            if not select.select([fd], [], [], timeout)[0]:
                raise TimeoutError(f"nothing wrote a pid to {fifo} within {timeout} s")
            data += os.read(fd, 64)
        return int(data)
    finally:
        os.close(fd)


def alive(pid: int) -> bool:
    """Running (not a zombie nor gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_dead(pid: int, timeout: float = 30.0) -> bool:
    """True once ``pid`` has exited (a pidfd, no polling); a zombie counts as dead."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0]) or not alive(pid)
    finally:
        os.close(fd)


def kill_leftover(pid: int) -> None:
    import contextlib
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
