"""The ``codex app-server`` subprocess: its own process group, a bounded stderr log, and
no orphans.

The child gets its own session (process group), so ending it ends whatever it spawned
(shell commands of a turn). It is ended on ``close()``, at interpreter exit (``atexit``),
at Jupyter kernel shutdown (a wrapper around the kernel's ``do_shutdown``), and if the
kernel is killed outright: on Linux the child asks for ``SIGKILL`` when its parent dies
(``PR_SET_PDEATHSIG``), and it also exits on EOF of its stdin.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import ctypes
import os
import re
import signal
import sys
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path

STDERR_MAX_LINES = 400
STDERR_MAX_LINE_CHARS = 2000
STREAM_LIMIT = 64 * 1024 * 1024
"""Largest single JSON-RPC line accepted from the server (a turn with huge items)."""

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_live_groups: set[int] = set()
_live_lock = threading.Lock()
_hooks_installed = False


class StderrLog:
    """The last ``STDERR_MAX_LINES`` lines of the server's stderr (each line capped)."""

    def __init__(self, max_lines: int = STDERR_MAX_LINES) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self.total_lines = 0

    def add(self, raw: bytes) -> None:
        text = _ANSI.sub("", raw.decode("utf-8", "replace").rstrip("\n"))
        self.total_lines += 1
        self.lines.append(text if len(text) <= STDERR_MAX_LINE_CHARS else text[:STDERR_MAX_LINE_CHARS] + " ...")

    def tail(self, n: int = 20) -> str:
        return "\n".join(list(self.lines)[-n:])


def _pdeathsig() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; EOF on stdin still ends the server
        pass


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _end_group(pgid: int) -> None:
    kill_group(pgid)
    with _live_lock:
        _live_groups.discard(pgid)


def _kill_all_live() -> None:
    with _live_lock:
        groups = list(_live_groups)
        _live_groups.clear()
    for pgid in groups:
        kill_group(pgid)


def live_process_groups() -> list[int]:
    """Process groups of app-servers this interpreter started and has not ended yet."""
    with _live_lock:
        return sorted(_live_groups)


def _install_exit_hooks() -> None:
    global _hooks_installed
    if _hooks_installed:
        return
    _hooks_installed = True
    atexit.register(_kill_all_live)
    kernel = _ipykernel()
    if kernel is not None and not getattr(kernel, "_codex_nb_shutdown_hook", False):
        original = kernel.do_shutdown

        def do_shutdown(*args, **kwargs):  # type: ignore[no-untyped-def]
            _kill_all_live()
            return original(*args, **kwargs)

        kernel.do_shutdown = do_shutdown
        kernel._codex_nb_shutdown_hook = True


def _ipykernel():  # type: ignore[no-untyped-def]
    if "ipykernel" not in sys.modules:
        return None
    try:
        from ipykernel.kernelapp import IPKernelApp

        return IPKernelApp.instance().kernel if IPKernelApp.initialized() else None
    except Exception:  # noqa: BLE001
        return None


class AppServerProcess:
    """One running ``codex app-server``; build it with ``await AppServerProcess.spawn(...)``."""

    def __init__(self, proc: asyncio.subprocess.Process, argv: list[str]) -> None:
        self.proc = proc
        self.argv = argv
        self.stderr = StderrLog()
        self.pgid = proc.pid
        self._stderr_task = asyncio.ensure_future(self._read_stderr())
        # dropped without close(): end the group when this object is collected
        self._finalizer = weakref.finalize(self, _end_group, proc.pid)

    @classmethod
    async def spawn(cls, binary: Path, args: Sequence[str] = (), *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None) -> AppServerProcess:
        _install_exit_hooks()
        argv = [str(binary), "app-server", *args]
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=dict(env) if env is not None else None, cwd=cwd, start_new_session=True, limit=STREAM_LIMIT,
            preexec_fn=_pdeathsig if sys.platform.startswith("linux") else None,
        )
        with _live_lock:
            _live_groups.add(proc.pid)
        return cls(proc, argv)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while True:
            try:
                line = await self.proc.stderr.readline()
            except (ValueError, asyncio.LimitOverrunError):  # an absurdly long line: keep reading
                continue
            if not line:
                return
            self.stderr.add(line)

    async def stderr_drained(self, timeout: float = 2.0) -> None:
        """Wait (bounded) until stderr hit EOF, so the tail holds the server's last words."""
        try:
            await asyncio.wait_for(asyncio.shield(self._stderr_task), timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            pass

    async def terminate(self, grace: float = 3.0) -> int | None:
        """End the server and its group: EOF on stdin, then SIGTERM, then SIGKILL."""
        stdin = self.proc.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                kill_group(self.pgid, sig)
            try:
                await asyncio.wait_for(self.proc.wait(), grace)
                break
            except asyncio.TimeoutError:
                continue
        self._finalizer()  # SIGKILL whatever the server left behind in its group; forget the group
        await self.stderr_drained()
        if not self._stderr_task.done():
            self._stderr_task.cancel()
        return self.proc.returncode

    def kill_now(self) -> None:
        """Synchronous hard stop (the loop may already be closed)."""
        self._finalizer()
