"""What a streaming model yields while it samples, and Codex's model-output events.

A model may offer ``stream(request)`` beside ``sample(request)``: an async iterator of
``ModelStreamEvent``. The turn loop records and routes each ``OutputItemDone`` at once
(so a tool call starts while the response is still streaming, as in Codex), publishes
every ``EventMsg`` it is handed as it is, and reads token usage from
``ResponseCompleted``. The event messages below carry Codex's core ``EventMsg`` wire
names (``codex-rs/protocol/src/protocol.rs``): ``agent_message_delta``,
``agent_reasoning_delta``, ``agent_reasoning``, ``agent_reasoning_section_break``,
``token_count`` and ``stream_error``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .events import AgentMessageDelta, EventMsg


class TokenUsage(BaseModel):
    """Codex ``TokenUsage``: the token counts of one response (or a sum of them)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    reasoning_output_tokens: int = 0
    total_tokens: int = 0

    @classmethod
    def from_responses_usage(cls, usage: dict[str, Any] | None) -> TokenUsage | None:
        """Parse the ``usage`` object of a Responses API ``response.completed`` event."""
        if not isinstance(usage, dict):
            return None
        input_details = usage.get("input_tokens_details") or {}
        output_details = usage.get("output_tokens_details") or {}
        return cls(
            input_tokens=_count(usage.get("input_tokens")),
            cached_input_tokens=_count(input_details.get("cached_tokens")),
            output_tokens=_count(usage.get("output_tokens")),
            reasoning_output_tokens=_count(output_details.get("reasoning_tokens")),
            total_tokens=_count(usage.get("total_tokens")),
        )

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            **{
                name: min(getattr(self, name) + getattr(other, name), MAX_TOKEN_COUNT)
                for name in type(self).model_fields
            }
        )


MAX_TOKEN_COUNT = 2**53 - 1
"""The largest token count kept: a server's bigger figure is capped here (the widgets'
JavaScript counts exactly only up to 2**53)."""


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return 0
    return min(value, MAX_TOKEN_COUNT)


class TokenUsageInfo(BaseModel):
    """Codex ``TokenUsageInfo``: the thread's running total and the last response's usage.

    The same event carries every source's usage: codex_nb's own runtime and the real Codex
    (``thread/tokenUsage/updated``) fill both figures; an ACP agent reports the tokens in its
    context (``usage_update``: ``last_token_usage.total_tokens`` only, no breakdown) apart from
    its turn's usage (the prompt's answer: ``total_token_usage``), so a figure it has not
    reported in that message is None, never a made-up zero. The tokens in the context window
    are ``last_token_usage.total_tokens``, as Codex counts them.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    total_token_usage: TokenUsage | None
    last_token_usage: TokenUsage | None
    model_context_window: int | None = None


class TokenCount(EventMsg):
    """``token_count``: sent after every completed response that reported usage."""

    type: Literal["token_count"] = "token_count"
    info: TokenUsageInfo | None = None
    rate_limits: dict[str, Any] | None = None


class AgentReasoningDelta(EventMsg):
    """``agent_reasoning_delta``: a piece of a reasoning summary as it streams."""

    type: Literal["agent_reasoning_delta"] = "agent_reasoning_delta"
    delta: str


class AgentReasoning(EventMsg):
    """``agent_reasoning``: one complete reasoning summary part."""

    type: Literal["agent_reasoning"] = "agent_reasoning"
    text: str


class AgentReasoningSectionBreak(EventMsg):
    """``agent_reasoning_section_break``: a new reasoning summary part begins."""

    type: Literal["agent_reasoning_section_break"] = "agent_reasoning_section_break"
    item_id: str = ""
    summary_index: int = 0


class StreamError(EventMsg):
    """``stream_error``: the model stream failed and is retried (``Reconnecting... 1/5``).

    Text streamed before the failure belongs to an abandoned attempt: consumers drop it.
    """

    type: Literal["stream_error"] = "stream_error"
    message: str
    codex_error_info: str | None = None
    additional_details: str | None = None


@dataclass(frozen=True, kw_only=True)
class OutputItemDone:
    """One completed output item (``response.output_item.done``), as a wire dict."""

    item: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ResponseCompleted:
    """``response.completed``: the response id and its token usage, if reported."""

    response_id: str | None = None
    usage: TokenUsage | None = None
    extra: dict[str, Any] = field(default_factory=dict)


__all__ = [
    "AgentMessageDelta",
    "AgentReasoning",
    "AgentReasoningDelta",
    "AgentReasoningSectionBreak",
    "ModelStreamEvent",
    "OutputItemDone",
    "ResponseCompleted",
    "StreamError",
    "TokenCount",
    "TokenUsage",
    "TokenUsageInfo",
]

ModelStreamEvent = OutputItemDone | ResponseCompleted | EventMsg
