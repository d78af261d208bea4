"""Run one command hook as a real subprocess (spec 03 §2).

``$SHELL -lc "<command>"`` (fallback ``/bin/sh``) with a cleared environment filled from
the session's environment snapshot, cwd = the session cwd, in its own process group
(``start_new_session``). The whole group is SIGKILLed when the hook times out, when the
caller is cancelled, and after the hook's main process exits (so forked children that
keep the pipes open cannot hang the run or outlive it). stdout/stderr are captured up to
``output_cap`` bytes each; the rest is spilled to a temp file named in a warning entry.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import tempfile
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

from ..config.hooks import DEFAULT_OUTPUT_CAP
from .events import HookOutputEntry
from .outputs import RawRun
_PIPE_GRACE_SEC = 2.0


@dataclass(frozen=True, kw_only=True)
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
        self._spill = None

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
        return HookOutputEntry(kind="warning", text=(
            f"hook {self.name} exceeded {self.cap} bytes; the remaining {self.spilled} bytes were written to "
            f"{self.spill_path}"))


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


# Every hook process group still running. A turn's cleanup kills its own groups; at interpreter
# exit (a kernel shutdown, a script ending with a background turn still running) nothing would,
# so an atexit handler kills whatever is left. A SIGKILLed kernel cannot run it: nothing can.
_LIVE_GROUPS: set[int] = set()
_atexit_registered = False


def _track_group(pid: int) -> None:
    global _atexit_registered
    if not _atexit_registered:
        atexit.register(kill_live_groups)
        _atexit_registered = True
    _LIVE_GROUPS.add(pid)


def kill_live_groups() -> int:
    """SIGKILL every hook process group codex_nb started that is still running; returns how many."""
    groups = list(_LIVE_GROUPS)
    for pid in groups:
        _kill_group(pid)
        _LIVE_GROUPS.discard(pid)
    return len(groups)


async def run_command(command: str, *, stdin_json: str, cwd: str, env: Mapping[str, str], timeout: int,
                      shell: CommandShell | None = None, output_cap: int = DEFAULT_OUTPUT_CAP) -> RawRun:
    """Run ``command``; never raises except ``CancelledError`` (after killing the group)."""
    shell = shell or CommandShell.from_env(env)
    try:
        proc = await asyncio.create_subprocess_exec(
            shell.program, *shell.args, command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=cwd, env=dict(env), start_new_session=True)
    except OSError as err:
        return RawRun(error=f"failed to spawn hook: {err}")
    _track_group(proc.pid)
    out, err_cap = _Capture("stdout", output_cap), _Capture("stderr", output_cap)
    assert proc.stdout and proc.stderr
    readers = asyncio.gather(out.drain(proc.stdout), err_cap.drain(proc.stderr))
    try:
        async with asyncio.timeout(timeout):
            await asyncio.gather(_feed(proc, stdin_json.encode()), _exited(proc))
            # The main process is done: children left in its group would hold the pipes open.
            _kill_group(proc.pid)
            await asyncio.shield(readers)
    except TimeoutError:
        return RawRun(error=f"hook timed out after {timeout}s", notes=_notes(out, err_cap))
    finally:
        await _uninterruptible(_cleanup(proc, readers))
    return RawRun(exit_code=proc.returncode, stdout=out.text(), stderr=err_cap.text(), notes=_notes(out, err_cap))


async def _uninterruptible(coro: Coroutine[Any, Any, None]) -> None:
    """Finish ``coro`` even if we are cancelled (again) meanwhile, then re-raise the cancel.

    Cleanup is bounded (SIGKILL, then at most ``_PIPE_GRACE_SEC``), and finishing it keeps
    the process reaped and its pipes closed before the caller moves on."""
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


async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
    assert proc.stdin
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
        proc.stdin.close()
        await proc.stdin.wait_closed()


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Return when the main process has exited.

    ``Process.wait()`` (Python 3.11) also waits for the pipes to close, which a forked
    child holding stdout would delay until the timeout; a pidfd reports the exit itself."""
    try:
        fd = os.pidfd_open(proc.pid)
    except ProcessLookupError:
        return  # already exited and reaped
    except (AttributeError, OSError):
        await proc.wait()  # no pidfd (non-Linux): fall back to asyncio's wait
        return
    loop = asyncio.get_running_loop()
    exited = loop.create_future()
    loop.add_reader(fd, lambda: exited.done() or exited.set_result(None))
    try:
        await exited
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def _cleanup(proc: asyncio.subprocess.Process, readers: asyncio.Future[object]) -> None:
    """Kill the group, finish reading the pipes and reap the process (always runs)."""
    # killpg also reaches the leader (pgid == pid). Not proc.kill(): Popen.send_signal polls,
    # i.e. reaps, the child behind asyncio's watcher, which then reports returncode 255.
    _kill_group(proc.pid)
    _LIVE_GROUPS.discard(proc.pid)
    try:
        async with asyncio.timeout(_PIPE_GRACE_SEC):
            await readers
    except TimeoutError:
        # A descendant escaped the process group (setsid) and still holds a pipe: stop reading.
        readers.cancel()
        with contextlib.suppress(BaseException):
            await readers
        proc._transport.close()  # type: ignore[attr-defined]  # no public API closes the pipes
    await proc.wait()


def _notes(*captures: _Capture) -> list[HookOutputEntry]:
    return [n for c in captures if (n := c.note()) is not None]
