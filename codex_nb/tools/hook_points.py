"""The contract between the dispatch pipeline and a hook engine (spec 03 §9).

The pipeline asks ``ToolHooks.pre_tool_use`` before lifecycle start and
``post_tool_use`` after a successful handler. It only sees typed outcomes; how hooks
are discovered, trusted and run lives in ``codex_nb.hooks``. ``NoHooks`` is the
engine used when the ``hooks`` feature is off or nothing is configured.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol

from .invocation import ToolInvocation

_UNSET: Any = object()


class HookRequest:
    """Everything a hook's stdin JSON is built from.

    ``tool_input`` is parsed from the call's arguments on first use only: most calls
    match no hook, and parsing the arguments again for nothing was a large share of a
    dispatch's cost.
    """

    def __init__(self, *, invocation: ToolInvocation, tool_name: str, tool_use_id: str,
                 tool_response: Any = None, tool_input: Any = _UNSET) -> None:
        self.invocation = invocation
        self.tool_name = tool_name
        self.tool_use_id = tool_use_id
        self.tool_response = tool_response
        if tool_input is not _UNSET:
            self.__dict__["tool_input"] = tool_input

    @cached_property
    def tool_input(self) -> Any:
        return self.invocation.tool.hook_tool_input(self.invocation.payload_text)


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
    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome: ...

    async def post_tool_use(self, request: HookRequest) -> PostToolUseOutcome: ...


class NoHooks:
    """No hooks configured: every call continues untouched."""

    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome:
        return PreToolUseOutcome()

    async def post_tool_use(self, request: HookRequest) -> PostToolUseOutcome:
        return PostToolUseOutcome()
