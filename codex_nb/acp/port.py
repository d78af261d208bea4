"""What a session and the client callbacks need from their ``AcpAgent``.

A protocol instead of the class keeps the imports one way (agent -> session, client)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol


class AgentPort(Protocol):
    command: str
    env: dict[str, str]
    cancel_grace: float
    terminals: bool
    elicitation: bool
    form_elicitation: bool
    sessions: dict[str, Any]
    subagent_parents: dict[str, str]
    """A subagent's session id -> the id of the session it works for (``subagent_update``)."""
    info: Any
    """The agent's ``initialize`` response (None before it answered)."""

    def _connection(self) -> Any: ...

    def _require_running(self) -> None: ...

    def can_close_sessions(self) -> bool: ...

    async def _call(self, awaitable: Awaitable[Any], method: str) -> Any: ...

    def _spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]: ...

    async def _describe_failure(self, err: BaseException, method: str) -> str: ...
