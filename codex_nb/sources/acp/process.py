"""The agent subprocess: its own process group, a stderr tail, and a certain end.

An ACP agent is a long-lived child that may start children of its own (Codex runs
shell commands), so it gets a new session/process group and every ending signals the
whole group: ``close()`` (stdin EOF, then SIGTERM, then SIGKILL) and, at interpreter
exit (kernel shutdown), a synchronous SIGKILL of every group still alive. Agents need
not exit on stdin EOF (codex-acp does not), so on Linux the agent also gets
``PR_SET_PDEATHSIG``: a kernel that is killed outright takes its agent with it.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import logging
import os
import shutil
import signal
import sys
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

log = logging.getLogger("codex_nb.acp.process")

STREAM_LIMIT = 50 * 1024 * 1024
"""Longest line (one JSON-RPC message) read from the agent, as the ACP SDK's default."""

_LIVE: weakref.WeakSet[AgentProcess] = weakref.WeakSet()
_AT_EXIT: list[bool] = []


def _kill_all_at_exit() -> None:
    for proc in list(_LIVE):
        proc.kill_group()


def _track(proc: AgentProcess) -> None:
    if not _AT_EXIT:  # registered on first use: importing codex_nb has no side effects
        atexit.register(_kill_all_at_exit)
        _AT_EXIT.append(True)
    _LIVE.add(proc)


PR_SET_PDEATHSIG = 1


def _parent_death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGKILL the child when its parent thread dies."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong]
    # Loaded before the fork: the child only makes one C call.
    return lambda: prctl(PR_SET_PDEATHSIG, signal.SIGKILL) and None


class AgentProcess:
    """One running agent: ``stdin``/``stdout`` for the protocol, stderr kept as a tail."""

    def __init__(self, process: asyncio.subprocess.Process, command: str, *, stderr_lines: int) -> None:
        self.process = process
        self.command = command
        self.pid = process.pid
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=stderr_lines)
        self._stderr_task = asyncio.create_task(self._pump_stderr(), name=f"acp-stderr-{self.pid}")
        _track(self)

    @classmethod
    async def spawn(cls, command: str, args: Sequence[str], *, env: Mapping[str, str], cwd: str | Path | None,
                    stderr_lines: int = 200) -> AgentProcess:
        resolved = shutil.which(command, path=env.get("PATH")) if os.sep not in command else command
        if resolved is None or not os.path.exists(resolved):
            raise FileNotFoundError(
                f"ACP agent command {command!r} was not found (PATH={env.get('PATH', '')!r}); pass the full path "
                f"of the agent executable, e.g. .../node_modules/.bin/codex-acp")
        process = await asyncio.create_subprocess_exec(
            resolved, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=dict(env), cwd=None if cwd is None else str(cwd),
            start_new_session=True, limit=STREAM_LIMIT, preexec_fn=_parent_death_signal())
        return cls(process, command, stderr_lines=stderr_lines)

    async def _pump_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        while True:
            try:
                line = await stream.readline()
            except (ValueError, asyncio.LimitOverrunError):  # one huge line: keep its start
                line = b"<stderr line too long, cut>\n"
            if not line:
                return
            text = line.decode("utf-8", errors="replace").rstrip("\n")
            self.stderr_tail.append(text)
            log.debug("%s[%s] stderr: %s", self.command, self.pid, text)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def stderr_text(self, lines: int = 20) -> str:
        return "\n".join(list(self.stderr_tail)[-lines:])

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit code once the process ended (stderr read to its end), or None."""
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        return self.process.returncode

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the agent's whole process group (also after the leader exited)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    async def close(self, *, grace: float = 2.0) -> int | None:
        """End the agent: EOF on stdin, then SIGTERM, then SIGKILL, always the whole group."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            with contextlib.suppress(Exception):
                stdin.close()
        code = await self.wait_exit(min(grace, 0.5)) if self.returncode is None else self.returncode
        if code is None:
            self.kill_group(signal.SIGTERM)
            code = await self.wait_exit(grace)
        # children of the agent may outlive it: the group goes either way
        self.kill_group(signal.SIGKILL)
        if code is None:
            code = await self.wait_exit(grace)
        self._stderr_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._stderr_task
        _LIVE.discard(self)
        return code


def describe_exit(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"
