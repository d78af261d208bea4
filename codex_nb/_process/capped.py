"""Run a short command to its end (``codex --version``, ``codex app-server generate-json-schema``),
reading at most a fixed number of bytes from it.

``subprocess.communicate`` reads everything a program prints: a binary that prints without end
(a wrong file named as Codex, a broken build) would fill the kernel's memory before the timeout.
Here the output is raw bytes capped at ``limit``; past it the program's whole group is killed and
the result says it overflowed, so the caller can name the program and move on.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CappedRun:
    """What a capped run printed (at most ``limit`` bytes of each stream) and how it ended."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    overflowed: bool
    """True when a stream passed ``limit``: the program was killed, its output cut."""


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_capped(argv: Sequence[str], *, timeout: float, limit: int) -> CappedRun:
    """Run ``argv`` in its own process group to its end, reading at most ``limit`` bytes of each
    of stdout and stderr. Past ``limit`` or ``timeout`` the whole group is SIGKILLed; a timeout
    raises ``subprocess.TimeoutExpired``. The group is only signalled before the program is
    reaped, so its id cannot have been reused by then."""
    deadline = time.monotonic() + timeout
    with subprocess.Popen(
        [str(a) for a in argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as popen:
        assert popen.stdout is not None and popen.stderr is not None
        read = {popen.stdout.fileno(): bytearray(), popen.stderr.fileno(): bytearray()}
        overflowed = False
        try:
            with selectors.DefaultSelector() as selector:
                for fd in read:
                    selector.register(fd, selectors.EVENT_READ)
                while selector.get_map() and not overflowed:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise subprocess.TimeoutExpired(popen.args, timeout)
                    for key, _ in selector.select(left):
                        chunk = os.read(key.fd, 65536)
                        if not chunk:
                            selector.unregister(key.fd)
                            continue
                        buffer = read[key.fd]
                        buffer += chunk[: limit + 1 - len(buffer)]
                        if len(buffer) > limit:
                            overflowed = True
            if overflowed:
                _kill_group(popen.pid)
            popen.wait(max(deadline - time.monotonic(), 0.0))
        except BaseException:
            _kill_group(popen.pid)
            popen.wait()
            raise
        out, err = (bytes(read[f.fileno()][:limit]) for f in (popen.stdout, popen.stderr))
        return CappedRun(popen.returncode, out, err, overflowed)
