"""``terminal/*`` for agents, when the user enabled them (``AcpAgent(..., terminals=True)``).

Each terminal is a real subprocess started through codex_nb's one child-process path
(``codex_nb._process``), in the session's cwd or a directory inside it, with stdout and
stderr merged into one buffer capped at the agent's ``outputByteLimit`` but never above
``MAX_OUTPUT_LIMIT`` (the agent is a peer: a limit of gigabytes would be buffered
whole). The oldest output goes first, at a character boundary, as ACP specifies; the
pipe is read in chunks, so no more than the cap and one chunk is ever held.
``terminal/kill``, ``release`` and the session's end kill the command and everything it
started, also what left its process group with ``setsid``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import signal
from dataclasses import dataclass, field
from typing import Any

from .._process import ChildProcess, spawn
from .fs import ConfinedFiles, FileAccessError

DEFAULT_OUTPUT_LIMIT = 1024 * 1024
MAX_OUTPUT_LIMIT = 4 * 1024 * 1024
"""The most output one terminal keeps, whatever ``outputByteLimit`` the agent asks for."""
READ_CHUNK = 64 * 1024


@dataclass(kw_only=True, eq=False)
class _Terminal:
    process: ChildProcess
    limit: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task[None] | None = None

    def append(self, chunk: bytes) -> None:
        self.output += chunk
        excess = len(self.output) - self.limit
        if excess > 0:
            # drop whole UTF-8 characters only: skip continuation bytes after the cut
            while excess < len(self.output) and (self.output[excess] & 0xC0) == 0x80:
                excess += 1
            del self.output[:excess]
            self.truncated = True

    def exit_status(self) -> tuple[int | None, str | None] | None:
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            try:
                return None, signal.Signals(-code).name
            except ValueError:
                return None, str(-code)
        return code, None

    def kill(self) -> None:
        self.process.kill_now()


def _argv(command: str, args: list[str] | None, where: str, path: str | None) -> list[str]:
    """The process to start: ``command`` and ``args``; a command line with no args (Claude Code
    sends its Bash tool's line so) runs in the shell, as Zed's terminals run it. An executable's
    name or path alone still runs directly, and one with args is never given to a shell."""
    if os.sep in command:
        found = os.path.join(where, command)
        program = command if os.path.isfile(found) and os.access(found, os.X_OK) else None
    else:
        program = shutil.which(command, path=path)
    if not args and program is None:
        return ["/bin/sh", "-c", command]
    return [program or command, *(args or [])]


class Terminals:
    """The terminals of one session, keyed by terminal id."""

    def __init__(self, files: ConfinedFiles, env: dict[str, str]) -> None:
        self._files = files
        self._env = env
        self._ids = itertools.count(1)
        self._terminals: dict[str, _Terminal] = {}

    def _cwd(self, cwd: str | None) -> str:
        if cwd is None:
            return self._files.root
        resolved = os.path.realpath(cwd)
        if os.path.commonpath([resolved, self._files.root]) != self._files.root:
            raise FileAccessError(f"terminal cwd {cwd!r} is outside the session directory {self._files.root}")
        if not os.path.isdir(resolved):
            raise FileAccessError(f"terminal cwd {cwd!r} is not a directory", not_found=True)
        return resolved

    async def create(
        self,
        command: str,
        args: list[str] | None,
        env: list[Any] | None,
        cwd: str | None,
        output_byte_limit: int | None,
    ) -> str:
        where = self._cwd(cwd)
        merged = dict(self._env)
        merged.update({v.name: v.value for v in env or []})
        argv = _argv(command, args, where, merged.get("PATH"))
        try:
            process = await spawn(
                argv,
                env=merged,
                cwd=where,
                stdin="devnull",
                stderr="stdout",
                limit=READ_CHUNK,
            )
        except OSError as err:
            raise FileAccessError(f"cannot start {command!r}: {err.strerror or err}") from None
        limit = output_byte_limit or DEFAULT_OUTPUT_LIMIT
        terminal = _Terminal(process=process, limit=min(MAX_OUTPUT_LIMIT, max(0, limit)))
        terminal.reader = asyncio.get_running_loop().create_task(self._read(terminal))
        terminal_id = f"term-{next(self._ids)}"
        self._terminals[terminal_id] = terminal
        return terminal_id

    @staticmethod
    async def _read(terminal: _Terminal) -> None:
        stream = terminal.process.stdout
        assert stream is not None
        while chunk := await stream.read(READ_CHUNK):
            terminal.append(chunk)

    def get(self, terminal_id: str) -> _Terminal:
        terminal = self._terminals.get(terminal_id)
        if terminal is None:
            raise FileAccessError(f"unknown or released terminal {terminal_id!r}", not_found=True)
        return terminal

    async def wait(self, terminal_id: str) -> tuple[int | None, str | None]:
        terminal = self.get(terminal_id)
        await terminal.process.wait()
        if terminal.reader is not None:
            await terminal.reader
        status = terminal.exit_status()
        assert status is not None
        return status

    async def release(self, terminal_id: str) -> None:
        terminal = self._terminals.pop(terminal_id, None)
        if terminal is not None:
            await self._end(terminal)

    async def _end(self, terminal: _Terminal) -> None:
        await terminal.process.end(gentle=False)
        if terminal.reader is not None:
            terminal.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await terminal.reader

    async def close(self) -> None:
        terminals, self._terminals = list(self._terminals.values()), {}
        for terminal in terminals:
            await self._end(terminal)
