"""Run one command hook as a real subprocess (spec 03 §2).

``$SHELL -lc "<command>"`` (fallback ``/bin/sh``) with a cleared environment filled from
the session's environment snapshot, cwd = the session cwd, in its own process group
(``start_new_session``). The whole group is SIGKILLed when the hook times out, when the
caller is cancelled, when its owner's ``ProcessGroups`` is closed, and after the hook's main process exits (so forked children
that keep the pipes open cannot hang the run or outlive it). stdout/stderr are captured up to
``output_cap`` bytes each; the rest is spilled to a temp file named in a warning entry.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
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


class ProcessGroups:
    """The hook process groups one owner (a ``HookEngine``) has running, so closing the owner
    ends them even when the run that started one is still unwinding elsewhere.

    A group is known from the moment its process exists (``run_command`` registers it before
    its first await). The owner stays usable after ``close()``: later runs start normally."""

    def __init__(self) -> None:
        self._pids: set[int] = set()

    def add(self, pid: int) -> None:
        self._pids.add(pid)

    def discard(self, pid: int) -> None:
        self._pids.discard(pid)

    def __len__(self) -> int:
        return len(self._pids)

    def close(self) -> int:
        """SIGKILL every group still running; returns how many."""
        pids, self._pids = self._pids, set()
        for pid in pids:
            _kill_group(pid)
        return len(pids)


def kill_live_groups() -> int:
    """SIGKILL every hook process group codex_nb started that is still running; returns how many."""
    groups = list(_LIVE_GROUPS)
    for pid in groups:
        _kill_group(pid)
        _LIVE_GROUPS.discard(pid)
    return len(groups)


async def run_command(command: str, *, stdin_json: str, cwd: str, env: Mapping[str, str], timeout: int,
                      shell: CommandShell | None = None, output_cap: int = DEFAULT_OUTPUT_CAP,
                      groups: ProcessGroups | None = None) -> RawRun:
    """Run ``command``; never raises except ``CancelledError`` (after killing the group)."""
    shell = shell or CommandShell.from_env(env)
    try:
        # Spawned here and registered before the first await. asyncio's create_subprocess_exec
        # returns only once it has connected the pipes: a cancel landing before that made asyncio
        # kill just the leader, and a kernel shutdown then never let it return, so a child the
        # hook had put in the background lived on in a group nobody knew of.
        proc = subprocess.Popen([shell.program, *shell.args, command], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=dict(env),
                                start_new_session=True)
    except OSError as err:
        return RawRun(error=f"failed to spawn hook: {err}")
    _track_group(proc.pid)
    if groups is not None:
        groups.add(proc.pid)
    out, err_cap = _Capture("stdout", output_cap), _Capture("stderr", output_cap)
    pipes = _Pipes()
    try:
        await pipes.read(proc, out, err_cap)
        async with asyncio.timeout(timeout):
            await asyncio.gather(_feed(proc, stdin_json.encode()), _exited(proc))
            # The main process is done: children left in its group would hold the pipes open.
            _kill_group(proc.pid)
            await asyncio.shield(pipes.readers)
    except TimeoutError:
        return RawRun(error=f"hook timed out after {timeout}s", notes=_notes(out, err_cap))
    finally:
        await _uninterruptible(_cleanup(proc, pipes, groups))
    return RawRun(exit_code=proc.returncode, stdout=out.text(), stderr=err_cap.text(), notes=_notes(out, err_cap))


class _Pipes:
    """The hook's stdout and stderr, read through asyncio into their captures."""

    def __init__(self) -> None:
        self.transports: list[asyncio.BaseTransport] = []
        self.readers: asyncio.Future[Any] | None = None

    async def read(self, proc: subprocess.Popen[bytes], out: _Capture, err: _Capture) -> None:
        loop = asyncio.get_running_loop()
        streams = []
        for pipe in (proc.stdout, proc.stderr):
            stream = asyncio.StreamReader()
            transport, _ = await loop.connect_read_pipe(lambda s=stream: asyncio.StreamReaderProtocol(s), pipe)
            self.transports.append(transport)
            streams.append(stream)
        self.readers = asyncio.gather(out.drain(streams[0]), err.drain(streams[1]))

    def close(self) -> None:
        for transport in self.transports:
            transport.close()


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


async def _ready(fd: int, *, write: bool = False) -> None:
    """Wait until ``fd`` is readable (or writable)."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    add, remove = (loop.add_writer, loop.remove_writer) if write else (loop.add_reader, loop.remove_reader)
    add(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await ready
    finally:
        remove(fd)


async def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin
    fd = proc.stdin.fileno()
    os.set_blocking(fd, False)
    view = memoryview(data)
    try:
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                await _ready(fd, write=True)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the hook does not read its input: that is its business
    finally:
        proc.stdin.close()


async def _exited(proc: subprocess.Popen[bytes]) -> None:
    """Return when the main process has exited (not necessarily reaped).

    A pidfd reports the exit itself, not the pipes closing, which a forked child holding
    stdout would delay until the timeout."""
    try:
        fd = os.pidfd_open(proc.pid)
    except ProcessLookupError:
        return  # already exited and reaped
    except (AttributeError, OSError):
        await asyncio.get_running_loop().run_in_executor(None, proc.wait)  # no pidfd (non-Linux)
        return
    try:
        await _ready(fd)
    finally:
        os.close(fd)


async def _cleanup(proc: subprocess.Popen[bytes], pipes: _Pipes, groups: ProcessGroups | None) -> None:
    """Kill the group, finish reading the pipes and reap the process (always runs)."""
    _kill_group(proc.pid)  # killpg also reaches the leader (pgid == pid)
    _LIVE_GROUPS.discard(proc.pid)  # before the reap below, after which the pid may be reused
    if groups is not None:
        groups.discard(proc.pid)
    if pipes.readers is not None:
        try:
            async with asyncio.timeout(_PIPE_GRACE_SEC):
                await pipes.readers
        except TimeoutError:
            # A descendant escaped the process group (setsid) and still holds a pipe: stop reading.
            pipes.readers.cancel()
            with contextlib.suppress(BaseException):
                await pipes.readers
    pipes.close()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    await _exited(proc)
    proc.wait()  # it has exited: this only reaps


def _notes(*captures: _Capture) -> list[HookOutputEntry]:
    return [n for c in captures if (n := c.note()) is not None]
