"""``get_context_remaining`` and ``new_context``: the context-budget tools (``[features] token_budget``).

Codex 0.169 (``codex-rs/core/src/tools/handlers/get_context_remaining.rs``,
``new_context_window.rs``), registered in that order, both with empty parameters:

* ``get_context_remaining`` answers ``You have N tokens left in this context window.``
  where N = min(auto-compact limit, 95% of the window) - tokens used, floored at 0.
  The limit defaults to 90% of the window (``model_auto_compact_token_limit`` overrides
  it); "used" is the last response's ``total_tokens`` as the provider reported it
  (``TurnContext.context_window.last_token_usage``, set by the turn loop from the model's
  ``last_usage``; a ScriptedModel scripts it).
  Without a known window (``model_context_window``) or usage the answer is
  ``You have unknown tokens left in this context window.``
* ``new_context`` (DirectModelOnly) only records the request; before its next model
  request the turn loop starts a fresh window: history is archived
  (``session.context_window.archived_history``), the window holds the
  ``<context_window>`` fragment, and the usage is reset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import Tool
from ..tool_errors import RespondToModel
from ..exposure import ToolExposure
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec

if TYPE_CHECKING:
    from ...config import Config

GET_CONTEXT_REMAINING_DESCRIPTION = "Get the remaining tokens in the current context window."
NEW_CONTEXT_DESCRIPTION = "Start a new context window. Does not clear, reset, or otherwise affect environment state."
NEW_CONTEXT_OUTPUT = "A new context window will start without summarizing conversation history."


def token_budget_enabled(config: Config) -> bool:
    features = config.extra.get("features", {}) if isinstance(config.extra, dict) else {}
    return isinstance(features, dict) and features.get("token_budget") is True


def context_budget_tools(config: Config) -> list[Tool]:
    if not token_budget_enabled(config):
        return []
    return [NewContextTool(), GetContextRemainingTool(config)]


def _empty() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": False}


def used_tokens(usage: Any) -> int | None:
    """``total_tokens`` of a usage object or dict (Responses API ``usage``), or None."""
    if usage is None:
        return None
    total = usage.get("total_tokens") if isinstance(usage, dict) else getattr(usage, "total_tokens", None)
    return total if isinstance(total, int) and not isinstance(total, bool) else None


def tokens_left(window: int | None, auto_compact_limit: int | None, usage: Any) -> int | None:
    used = used_tokens(usage)
    if window is None or used is None:
        return None
    limit = auto_compact_limit if auto_compact_limit is not None else window * 9 // 10
    return max(0, min(limit, window * 95 // 100) - used)


class GetContextRemainingTool(Tool):
    def __init__(self, config: Config) -> None:
        super().__init__("get_context_remaining")
        extra = config.extra if isinstance(config.extra, dict) else {}
        self.window = _positive(extra.get("model_context_window"))
        self.auto_compact_limit = _positive(extra.get("model_auto_compact_token_limit"))

    def spec(self) -> dict[str, Any]:
        return function_spec("get_context_remaining", GET_CONTEXT_REMAINING_DESCRIPTION, _empty())

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel("get_context_remaining handler received unsupported payload")
        usage = invocation.turn.context_window.last_token_usage
        left = tokens_left(self.window, self.auto_compact_limit, usage)
        shown = "unknown" if left is None else str(left)
        return ToolOutput(
            body=f"You have {shown} tokens left in this context window.", code_mode_result={"tokens_left": left}
        )


class NewContextTool(Tool):
    def __init__(self) -> None:
        super().__init__("new_context", exposure=ToolExposure.DirectModelOnly)

    def spec(self) -> dict[str, Any]:
        return function_spec("new_context", NEW_CONTEXT_DESCRIPTION, _empty())

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel("new_context handler received unsupported payload")
        invocation.turn.context_window.new_context_requested = True
        return ToolOutput(body=NEW_CONTEXT_OUTPUT)


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def context_window_message(*, first: str, current: str, previous: str) -> dict[str, Any]:
    """The developer fragment a new window starts with (Codex 0.169 sends it as these content parts)."""
    parts = [
        "<context_window>",
        f"\nAgent name: /root\nFirst context window id: {first}\nCurrent context window id: {current}\n"
        f"Previous context window id: {previous}\n",
        "</context_window>",
    ]
    return {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": p} for p in parts]}
