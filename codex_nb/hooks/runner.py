"""Run one command hook as a real subprocess, the way Codex runs it.

``$SHELL -lc "<command>"`` (fallback ``/bin/sh``) with a cleared environment filled from
the session's environment snapshot, cwd = the session cwd, started through codex_nb's one
child-process path (``codex_nb._process``): its own process group, and everything it starts
(also what calls ``setsid``) is SIGKILLed when the hook times out, when the caller is
cancelled, when its owner's ``ProcessGroups`` is closed, at kernel shutdown, and after the
hook's main process exits (so forked children that keep the pipes open cannot hang the run
or outlive it). stdout/stderr are captured up to
``output_cap`` bytes each; the rest is spilled to a temp file named in a warning entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Coroutine, Mapping
from typing import Any, BinaryIO

from .._records import record
from .._process import ChildProcess, spawn
from ..config.hooks import DEFAULT_OUTPUT_CAP
from .hook_events import HookOutputEntry
from .outputs import RawRun

_PIPE_GRACE_SEC = 2.0


@record(frozen=True, kw_only=True)
class CommandShell:
    """How a command string is run: ``[program, *args, command]``."""

    program: str
    args: tuple[str, ...] = ("-lc",)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CommandShell:
        shell = env.get("SHELL") or ""
        if not (os.path.isabs(shell) and os.access(shell, os.X_OK)):
            shell = "/bin/sh"
        return cls(program=shell)


class _Capture:
    """Read a stream to EOF, keeping ``cap`` bytes and spilling the rest to a temp file."""

    def __init__(self, name: str, cap: int) -> None:
        self.name, self.cap = name, cap
        self.kept = bytearray()
        self.spilled = 0
        self.spill_path: str | None = None
        self._spill: BinaryIO | None = None

    async def drain(self, stream: asyncio.StreamReader) -> None:
        try:
            while chunk := await stream.read(65536):
                room = self.cap - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]
                    chunk = chunk[room:]
                if chunk:
                    self._write_spill(chunk)
        finally:
            if self._spill is not None:
                self._spill.close()

    def _write_spill(self, chunk: bytes) -> None:
        if self._spill is None:
            fd, self.spill_path = tempfile.mkstemp(prefix=f"codex_nb_hook_{self.name}_", suffix=".log")
            self._spill = os.fdopen(fd, "wb")
        self._spill.write(chunk)
        self.spilled += len(chunk)

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")

    def note(self) -> HookOutputEntry | None:
        if self.spill_path is None:
            return None
        return HookOutputEntry(
            kind="warning",
            text=(
                f"hook {self.name} exceeded {self.cap} bytes; the remaining {self.spilled} bytes were written to "
                f"{self.spill_path}"
            ),
        )


class ProcessGroups:
    """The hook processes one owner (a ``HookEngine``) has running, so closing the owner ends
    them even when the run that started one is still unwinding elsewhere.

    A process is known from the moment it exists (``run_command`` registers it right after
    its spawn). The owner stays usable after ``close()``: later runs start normally."""

    def __init__(self) -> None:
        self._children: set[ChildProcess] = set()

    def add(self, child: ChildProcess) -> None:
        self._children.add(child)

    def discard(self, child: ChildProcess) -> None:
        self._children.discard(child)

    def __len__(self) -> int:
        return len(self._children)

    def close(self) -> int:
        """SIGKILL every hook process still running, with all it started; returns how many."""
        children, self._children = self._children, set()
        for child in children:
            child.kill_now()
        return len(children)


async def run_command(
    command: str,
    *,
    stdin_json: str,
    cwd: str,
    env: Mapping[str, str],
    timeout: int,
    shell: CommandShell | None = None,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    groups: ProcessGroups | None = None,
) -> RawRun:
    """Run ``command``; never raises except ``CancelledError`` (after ending its processes)."""
    shell = shell or CommandShell.from_env(env)
    try:
        # codex_nb's one spawn path: its own process group, everything it starts (also after
        # setsid) ends with it, at kernel shutdown too, and a cancel mid-spawn ends it as well
        child = await spawn(
            [shell.program, *shell.args, command],
            env=env,
            cwd=cwd,
            stderr="pipe",
            on_start=None if groups is None else groups.add,
        )
    except OSError as err:
        return RawRun(error=f"failed to spawn hook: {err}")
    out, err_cap = _Capture("stdout", output_cap), _Capture("stderr", output_cap)
    assert child.stdout is not None and child.stderr_stream is not None
    readers = asyncio.gather(out.drain(child.stdout), err_cap.drain(child.stderr_stream))
    try:
        async with asyncio.timeout(timeout):
            await asyncio.gather(_feed(child, stdin_json.encode()), child.wait())
            # The main process is done: whatever it left behind would hold the pipes open.
            child.kill_now()
            await asyncio.shield(readers)
    except TimeoutError:
        return RawRun(error=f"hook timed out after {timeout}s", notes=_notes(out, err_cap))
    finally:
        await _uninterruptible(_cleanup(child, readers, groups))
    return RawRun(exit_code=child.returncode, stdout=out.text(), stderr=err_cap.text(), notes=_notes(out, err_cap))


async def _uninterruptible(coro: Coroutine[Any, Any, None]) -> None:
    """Finish ``coro`` even if we are cancelled (again) meanwhile, then re-raise the cancel.

    Cleanup is bounded (SIGKILL, then at most ``_PIPE_GRACE_SEC`` per wait), and finishing it
    keeps the process reaped and its pipes closed before the caller moves on."""
    task = asyncio.ensure_future(coro)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    task.result()
    if cancelled:
        raise asyncio.CancelledError


async def _feed(child: ChildProcess, data: bytes) -> None:
    stdin = child.stdin
    assert stdin is not None
    try:
        stdin.write(data)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the hook does not read its input: that is its business
    finally:
        child.close_stdin()


async def _cleanup(child: ChildProcess, readers: asyncio.Future[Any], groups: ProcessGroups | None) -> None:
    """End the processes, finish reading the pipes and reap (always runs)."""
    if groups is not None:
        groups.discard(child)
    try:
        async with asyncio.timeout(_PIPE_GRACE_SEC):
            await asyncio.shield(readers)
    except TimeoutError:
        pass
    if not readers.done():
        readers.cancel()
    with contextlib.suppress(BaseException):
        await readers
    await child.end(grace=_PIPE_GRACE_SEC, gentle=False)


def _notes(*captures: _Capture) -> list[HookOutputEntry]:
    return [n for c in captures if (n := c.note()) is not None]
