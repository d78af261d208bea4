"""Every child process codex_nb starts, and its certain end.

One spawn path for the Codex app-server, ACP agents, ACP terminals and command hooks.
On Linux each program runs below a small supervisor (``supervisor.py``): the program gets
its own process group, and everything it starts, even what calls ``setsid`` and ignores
SIGHUP (Codex runs shell commands that way), stays below the supervisor and ends with
the program, with ``end()``, at interpreter exit, at Jupyter kernel shutdown, and when
the kernel is killed outright (the supervisor's parent-death signal).

Why this mechanism: a process group does not hold a command that calls ``setsid``; a
cgroup would, but needs a writable cgroup v2 tree, which a user's Jupyter rarely has;
making the kernel itself a child subreaper would leave every orphan of unrelated code
in the kernel a zombie (see ``supervisor.py``). A subreaper in a dedicated process works
for any user on Linux 3.4+. Elsewhere (no ``prctl``) the program is started directly in
its own process group and only that group is signalled: a command that leaves the group
can outlive it there.

Every wait is bounded: ``end()`` closes stdin, waits, sends SIGTERM, waits, SIGKILLs the
whole tree, waits, and as a last resort SIGKILLs the supervisor and the program's group.

Modules:

* ``capped``: a short command (``codex --version``) run with its output read up to a cap.
* ``children``: the live children, ended with the kernel (atexit and kernel shutdown).
* ``npm_binary``: the native executable an npm package ships (Codex, codex-acp).
* ``supervisor``: the Linux subreaper each program runs below, so its whole tree ends with it.
* ``tail``: a bounded, de-coloured tail of a child's stderr for error messages.

Layer: the bottom, with ``protocol/`` and ``errors``; it imports no higher codex_nb layer, and every
layer may import it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from . import children
from .tail import StderrTail

__all__ = ["ChildProcess", "StderrTail", "describe_exit", "live_children", "spawn"]

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
SUPERVISED = sys.platform.startswith("linux") and bool(sys.executable)
"""Linux with a Python to run the supervisor: commands that leave the group end too."""
STARTUP_TIMEOUT = 30.0
"""How long the supervisor may take to report the program's pid (a loaded machine)."""
DEFAULT_LIMIT = 64 * 1024

Stdin = Literal["pipe", "devnull"]
Stderr = Literal["tail", "stdout", "pipe"]


def _signal(pid: int, sig: int, *, group: bool = False) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        (os.killpg if group else os.kill)(pid, sig)


def _hard_kill(popen: subprocess.Popen[bytes], program: int | None, supervised: bool) -> None:
    """SIGKILL the whole tree now, without waiting (also at interpreter exit)."""
    if supervised:
        if popen.returncode is not None:
            return  # the supervisor ended its tree before it exited; its pid may be reused now
        _signal(popen.pid, signal.SIGUSR1)
        _signal(popen.pid, signal.SIGCONT)
        if program is not None:
            _signal(program, signal.SIGKILL, group=True)
    elif program is not None:
        _signal(program, signal.SIGKILL, group=True)  # also after the leader exited: what it left


class ChildProcess:
    """One program codex_nb started; make it with ``await spawn(...)``.

    ``pid`` is the program's own pid (its process group id); ``returncode`` is its exit
    status once it ended (negative: the signal that killed it)."""

    def __init__(self, popen: subprocess.Popen[bytes], argv: list[str], *, supervised: bool, stderr_lines: int) -> None:
        self.popen = popen
        self.argv = argv
        self.supervised = supervised
        self.pid = popen.pid
        self.stderr = StderrTail(stderr_lines)
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr_stream: asyncio.StreamReader | None = None
        self._program: int | None = None if supervised else popen.pid
        self._transports: list[asyncio.BaseTransport] = []
        self._stderr_task: asyncio.Task[None] | None = None
        self._exited: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._watcher = asyncio.ensure_future(self._watch_exit())
        children.register(popen.pid, self)

    # -- facts -----------------------------------------------------------------------------
    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    @property
    def supervisor_pid(self) -> int | None:
        return self.popen.pid if self.supervised else None

    # -- start -----------------------------------------------------------------------------
    async def _handshake(self, status: int) -> None:
        """Read the program's pid (or its exec error) from the supervisor."""
        data = b""
        os.set_blocking(status, False)
        try:
            async with asyncio.timeout(STARTUP_TIMEOUT):
                while not data.endswith(b"\n"):
                    await _readable(status)
                    try:
                        chunk = os.read(status, 64)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        break
                    data += chunk
        finally:
            os.close(status)
        text = data.decode().strip()
        if text.startswith("E "):
            errno = int(text[2:])
            raise OSError(errno, os.strerror(errno), self.argv[0])
        if not text.isdigit():
            raise OSError(
                f"the process supervisor for {self.argv[0]} ended before starting it (exit status {self.popen.poll()})"
            )
        self.pid = self._program = int(text)

    async def _connect(self, *, limit: int, stderr: Stderr) -> None:
        loop = asyncio.get_running_loop()
        if self.popen.stdin is not None:
            transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, self.popen.stdin)
            self._transports.append(transport)
            self.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        if self.popen.stdout is not None:
            self.stdout = await self._reader(self.popen.stdout, limit)
        if self.popen.stderr is not None:
            stream = await self._reader(self.popen.stderr, limit)
            if stderr == "tail":
                self._stderr_task = asyncio.ensure_future(self._pump_stderr(stream))
            else:
                self.stderr_stream = stream

    async def _reader(self, pipe: object, limit: int) -> asyncio.StreamReader:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=limit, loop=loop)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
        self._transports.append(transport)
        return reader

    async def _pump_stderr(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self.stderr.feed(chunk)
        self.stderr.finish()

    async def _watch_exit(self) -> None:
        try:
            fd = os.pidfd_open(self.popen.pid)
        except (AttributeError, OSError):  # no pidfd (not Linux): a thread waits
            await asyncio.get_running_loop().run_in_executor(None, self.popen.wait)
        else:
            try:
                await _readable(fd)
            finally:
                os.close(fd)
            self.popen.wait()  # it has exited: this only reaps
        finally:
            if not self._exited.done():
                self._exited.set_result(None)

    # -- waiting and ending --------------------------------------------------------------
    async def wait(self, timeout: float | None = None) -> int | None:
        """The exit status once the program ended, or None if ``timeout`` passed first."""
        try:
            await asyncio.wait_for(asyncio.shield(self._exited), timeout)
        except asyncio.TimeoutError:
            return None
        return self.returncode

    async def stderr_drained(self, timeout: float = 2.0) -> None:
        """Wait (bounded) until stderr hit EOF, so the tail holds the program's last words."""
        if self._stderr_task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), timeout)

    def close_stdin(self) -> None:
        if self.stdin is not None and not self.stdin.is_closing():
            with contextlib.suppress(Exception):
                self.stdin.close()
        elif self.stdin is None and self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()

    def terminate(self) -> None:
        """SIGTERM to the program and everything it started (SIGCONT too, so a stopped one acts)."""
        if self.returncode is not None:
            return
        if self.supervised:
            _signal(self.popen.pid, signal.SIGTERM)
            _signal(self.popen.pid, signal.SIGCONT)
        elif self._program is not None:
            _signal(self._program, signal.SIGTERM, group=True)
            _signal(self._program, signal.SIGCONT, group=True)

    def kill_now(self) -> None:
        """SIGKILL the program and everything it started; returns at once (the loop may be gone)."""
        _hard_kill(self.popen, self._program, self.supervised)

    async def end(self, *, grace: float = 2.0, stdin_grace: float | None = None, gentle: bool = True) -> int | None:
        """End the program and its tree: close stdin, wait (``stdin_grace``, default
        ``grace``), SIGTERM, wait, SIGKILL, wait (each at most ``grace`` seconds), then the
        last resort; ``gentle=False`` starts at SIGKILL."""
        self.close_stdin()
        steps = [self.terminate, self.kill_now, self._last_resort]
        if gentle and await self.wait(grace if stdin_grace is None else stdin_grace) is not None:
            steps = []
        elif not gentle:
            steps = steps[1:]
        for step in steps:
            step()
            if await self.wait(grace) is not None:
                break
        await self._finish()
        return self.returncode

    def _last_resort(self) -> None:
        """The supervisor did not end its tree (stopped, hung): SIGKILL it and the program's group."""
        if self.returncode is None:
            _signal(self.popen.pid, signal.SIGKILL)
            if self._program is not None:
                _signal(self._program, signal.SIGKILL, group=True)

    async def _finish(self) -> None:
        await self.stderr_drained()
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._stderr_task
        for transport in self._transports:
            transport.close()
        if self.returncode is not None:
            children.unregister(self.popen.pid)
            for pipe in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()

    def __repr__(self) -> str:
        state = "running" if self.returncode is None else describe_exit(self.returncode)
        return f"<ChildProcess {Path(self.argv[0]).name} pid {self.pid} {state}>"


async def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stdin: Stdin = "pipe",
    stderr: Stderr = "tail",
    limit: int = DEFAULT_LIMIT,
    stderr_lines: int = 400,
    on_start: Callable[[ChildProcess], object] | None = None,
) -> ChildProcess:
    """Start ``argv`` (stdout is always a pipe) and return once it runs; an exec failure
    raises ``OSError`` as ``subprocess`` would. Cancelling this ends whatever started.
    ``on_start`` gets the child as soon as it exists (before the first await), so an owner
    closing meanwhile can end it."""
    argv = [str(a) for a in argv]
    supervised = SUPERVISED
    status_r = status_w = -1
    if supervised:
        status_r, status_w = os.pipe()
        command = [sys.executable, "-I", "-S", SUPERVISOR, str(status_w), str(os.getpid()), "--", *argv]
    else:
        command = argv
    try:
        popen = subprocess.Popen(  # noqa: ASYNC220  fork+exec only, no wait: the pipes are read via loop.add_reader
            command,
            stdin=subprocess.PIPE if stdin == "pipe" else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if stderr == "stdout" else subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            start_new_session=True,
            pass_fds=(status_w,) if supervised else (),
        )
    except BaseException:
        if supervised:
            os.close(status_r)
        raise
    finally:
        if supervised:
            os.close(status_w)
    child = ChildProcess(popen, argv, supervised=supervised, stderr_lines=stderr_lines)
    if on_start is not None:
        on_start(child)
    try:
        if supervised:
            await child._handshake(status_r)
        await child._connect(limit=limit, stderr=stderr)
    except BaseException:
        child.kill_now()
        await asyncio.shield(child.wait(STARTUP_TIMEOUT))
        await child._finish()
        raise
    return child


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


def live_children() -> list[ChildProcess]:
    """Children codex_nb started that have not been ended yet."""
    return [c for c in children.live() if isinstance(c, ChildProcess)]


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
