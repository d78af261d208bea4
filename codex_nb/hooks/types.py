"""Typed hook inputs and decisions for in-process (notebook) hooks.

A Python hook receives a ``PreToolUseInput`` / ``PostToolUseInput`` with exactly the
fields of a command hook's stdin JSON (``to_json()`` *is* that JSON) and returns ``None``,
one of the decisions below, or the same dict a command hook would print. A decision is
converted to that dict, so both kinds of hook share one set of rules and messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal


@dataclass(frozen=True, kw_only=True)
class _ToolHookInput:
    session_id: str
    turn_id: str
    transcript_path: str | None
    cwd: str
    model: str
    permission_mode: str
    tool_name: str
    tool_input: Any
    tool_use_id: str
    agent_id: str | None = None
    agent_type: str | None = None
    if TYPE_CHECKING:  # each subclass sets it, as a field with its one value (not a field here: field order)
        hook_event_name: Literal["PreToolUse", "PostToolUse"]

    def to_json(self) -> dict[str, Any]:
        """The JSON a command hook reads on stdin, in Codex field order."""
        out: dict[str, Any] = {"session_id": self.session_id, "turn_id": self.turn_id}
        if self.agent_id is not None:
            out["agent_id"] = self.agent_id
        if self.agent_type is not None:
            out["agent_type"] = self.agent_type
        out.update(
            transcript_path=self.transcript_path,
            cwd=self.cwd,
            hook_event_name=self.hook_event_name,
            model=self.model,
            permission_mode=self.permission_mode,
            tool_name=self.tool_name,
            tool_input=self.tool_input,
        )
        if isinstance(self, PostToolUseInput):
            out["tool_response"] = self.tool_response
        out["tool_use_id"] = self.tool_use_id
        return out


@dataclass(frozen=True, kw_only=True)
class PreToolUseInput(_ToolHookInput):
    """What a PreToolUse hook sees (same fields as its stdin JSON)."""

    hook_event_name: Literal["PreToolUse"] = "PreToolUse"


@dataclass(frozen=True, kw_only=True)
class PostToolUseInput(_ToolHookInput):
    """What a PostToolUse hook sees: the PreToolUse fields plus ``tool_response``."""

    tool_response: Any = None
    hook_event_name: Literal["PostToolUse"] = "PostToolUse"


HookInput = PreToolUseInput | PostToolUseInput


def _specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookEventName": event, **{k: v for k, v in fields.items() if v is not None}}


@dataclass(frozen=True, kw_only=True)
class Block:
    """Block the call (PreToolUse) or replace the tool result with ``reason`` (PostToolUse)."""

    reason: str
    additional_context: str | None = None
    system_message: str | None = None

    def to_output(self, event: str) -> dict[str, Any]:
        """The JSON a command hook would print for this decision on ``event`` (``PreToolUse`` or
        ``PostToolUse``): a ``permissionDecision`` of ``deny`` with ``reason`` before the call,
        ``decision: block`` after it."""
        out: dict[str, Any] = {}
        if self.system_message is not None:
            out["systemMessage"] = self.system_message
        if event == "PreToolUse":
            out["hookSpecificOutput"] = _specific(
                event,
                permissionDecision="deny",
                permissionDecisionReason=self.reason,
                additionalContext=self.additional_context,
            )
            return out
        out.update(decision="block", reason=self.reason)
        if self.additional_context is not None:
            out["hookSpecificOutput"] = _specific(event, additionalContext=self.additional_context)
        return out


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    """PreToolUse only: run the call with ``updated_input`` as its arguments."""

    updated_input: Any
    additional_context: str | None = None
    system_message: str | None = None

    def to_output(self, event: str) -> dict[str, Any]:
        """The JSON a command hook would print: ``permissionDecision: allow`` with ``updatedInput``.
        Raises ``ValueError`` for any ``event`` but ``PreToolUse``."""
        if event != "PreToolUse":
            raise ValueError("Rewrite is only supported by PreToolUse hooks")
        out: dict[str, Any] = {
            "hookSpecificOutput": _specific(
                event,
                permissionDecision="allow",
                updatedInput=self.updated_input,
                additionalContext=self.additional_context,
            )
        }
        if self.system_message is not None:
            out["systemMessage"] = self.system_message
        return out


@dataclass(frozen=True, kw_only=True)
class AddContext:
    """Add ``text`` to the conversation as a developer message; the call goes on."""

    text: str
    system_message: str | None = None

    def to_output(self, event: str) -> dict[str, Any]:
        """The JSON a command hook would print for ``event``: ``additionalContext`` in its
        ``hookSpecificOutput``."""
        out: dict[str, Any] = {"hookSpecificOutput": _specific(event, additionalContext=self.text)}
        if self.system_message is not None:
            out["systemMessage"] = self.system_message
        return out


@dataclass(frozen=True, kw_only=True)
class Stop:
    """PostToolUse ``continue:false``: the output text is replaced by ``reason``, else
    ``stop_reason``, else ``PostToolUse hook stopped execution``; success is kept."""

    stop_reason: str | None = None
    reason: str | None = None

    def to_output(self, event: str) -> dict[str, Any]:
        """The JSON a command hook would print: ``continue: false`` with ``stopReason`` and
        ``reason`` when set (``event`` does not change it)."""
        out: dict[str, Any] = {"continue": False}
        if self.stop_reason is not None:
            out["stopReason"] = self.stop_reason
        if self.reason is not None:
            out["reason"] = self.reason
        return out


HookDecision = Block | Rewrite | AddContext | Stop
