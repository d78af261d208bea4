"""The hook port: the contract between the dispatch pipeline and a hook engine, so
the tools layer runs hooks at Codex's points without importing the hooks package.

The pipeline asks ``ToolHooks.pre_tool_use`` before lifecycle start and
``post_tool_use`` after a successful handler. A ``HookRequest`` carries plain facts
about the call (no invocation, no session), and the engine answers with typed
outcomes; how hooks are discovered, trusted and run lives in ``codex_nb.hooks``, an
adapter that implements this port. ``NoHooks`` serves when nothing is configured.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol

from ..protocol.events import Event, EventMsg

_UNSET: Any = object()


class HookRequest:
    """Everything a hook's stdin JSON and its started/completed events are built from.

    ``tool_input`` is parsed from the call's arguments on first use only: most calls
    match no hook, and parsing the arguments again for nothing was a large share of a
    dispatch's cost.
    """

    def __init__(
        self,
        *,
        tool_name: str,
        tool_use_id: str,
        thread_id: str,
        turn_id: str,
        cwd: str,
        model: str,
        approval_policy: str,
        emit: Callable[[EventMsg], Awaitable[Event]],
        read_input: Callable[[], Any],
        aliases: tuple[str, ...] | None = None,
        tool_response: Any = None,
        tool_input: Any = _UNSET,
    ) -> None:
        self.tool_name = tool_name
        self.tool_use_id = tool_use_id
        self.thread_id = thread_id
        self.turn_id = turn_id
        self.cwd = cwd
        self.model = model
        self.approval_policy = approval_policy
        self.emit = emit
        """Sends a hook event from the call (one cancellation point, like ``invocation.emit``)."""
        self.aliases = aliases
        self.tool_response = tool_response
        self._read_input = read_input
        if tool_input is not _UNSET:
            self.__dict__["tool_input"] = tool_input

    @cached_property
    def tool_input(self) -> Any:
        return self._read_input()


@dataclass(kw_only=True)
class PreToolUseOutcome:
    """``continue``, ``block`` (with reason) or ``rewrite`` (with the new input JSON)."""

    action: Literal["continue", "block", "rewrite"] = "continue"
    reason: str = ""
    updated_input: Any = None
    additional_contexts: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class PostToolUseOutcome:
    """A block replaces the output (success False); feedback replaces only its text."""

    block_reason: str | None = None
    feedback: str | None = None
    additional_contexts: list[str] = field(default_factory=list)


class ToolHooks(Protocol):
    """The hook port. An engine may also offer ``idle: bool`` (True when no hook can change a
    call); the pipeline then skips building requests for it at all."""

    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome: ...

    async def post_tool_use(self, request: HookRequest) -> PostToolUseOutcome: ...


class NoHooks:
    """No hooks configured: every call continues untouched."""

    idle = True

    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome:
        return PreToolUseOutcome()

    async def post_tool_use(self, request: HookRequest) -> PostToolUseOutcome:
        return PostToolUseOutcome()
