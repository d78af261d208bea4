"""The agent subprocess, started through codex_nb's one child-process path (``codex_nb._process``).

An ACP agent is a long-lived child that starts children of its own (Codex runs each
shell command in its own session), so everything below it ends with it: on ``close()``
(stdin EOF, then SIGTERM, then SIGKILL), when the agent dies, at interpreter exit and
kernel shutdown, and when the kernel is killed outright. Agents need not exit on stdin
EOF (codex-acp does not), so the later steps matter.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from .._process import ChildProcess, describe_exit, spawn
from ..cassettes.rpc_cassette import ReplayedProcess

log = logging.getLogger("codex_nb.acp.process")

STREAM_LIMIT = 50 * 1024 * 1024
"""Longest line (one JSON-RPC message) read from the agent, as the ACP SDK's default."""

__all__ = ["AgentProcess", "describe_exit"]


class AgentProcess:
    """One running agent: ``process.stdin``/``process.stdout`` for the protocol, stderr kept as a tail."""

    def __init__(self, process: ChildProcess | ReplayedProcess, command: str) -> None:
        self.process = process
        self.command = command
        self.pid = process.pid

    @classmethod
    async def spawn(
        cls,
        command: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | Path | None,
        stderr_lines: int = 200,
    ) -> AgentProcess:
        resolved = shutil.which(command, path=env.get("PATH")) if os.sep not in command else command
        if resolved is None or not os.path.exists(resolved):  # noqa: ASYNC240  one local stat, as shutil.which does
            raise FileNotFoundError(
                f"ACP agent command {command!r} was not found (PATH={env.get('PATH', '')!r}); pass the full path "
                f"of the agent executable, e.g. .../node_modules/.bin/codex-acp"
            )
        process = await spawn(
            [resolved, *args],
            env=env,
            cwd=None if cwd is None else str(cwd),
            limit=STREAM_LIMIT,
            stderr_lines=stderr_lines,
        )
        return cls(process, command)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def stderr_text(self, lines: int = 20) -> str:
        return self.process.stderr.tail(lines)

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit code once the process ended (stderr read to its end), or None."""
        code = await self.process.wait(None if timeout == float("inf") else timeout)
        if code is not None:
            await self.process.stderr_drained(1.0)
        return code

    def kill_group(self) -> None:
        """SIGKILL the agent and everything it started (also after the agent itself exited)."""
        self.process.kill_now()

    async def close(self, *, grace: float = 2.0) -> int | None:
        """End the agent: EOF on stdin, then SIGTERM, then SIGKILL, always the whole tree."""
        return await self.process.end(grace=grace, stdin_grace=min(grace, 0.5))
