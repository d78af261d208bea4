"""Responses-API stream events -> what the turn loop consumes (``ModelStreamEvent``).

One ``StreamMapper`` per attempt reads the stream's events as the JSON objects the
server sent (the SDK's ``AsyncStream`` without typed models: items keep the server's
key order and nothing is copied, so a 10,000-delta answer costs no more memory than its
final text) and returns the runtime events for each: text deltas become
``agent_message_delta``, reasoning-summary deltas ``agent_reasoning_delta`` (a new
summary part: ``agent_reasoning_section_break``), each completed output item an
``OutputItemDone`` (reasoning items add one ``agent_reasoning`` per summary part),
``response.completed`` a ``ResponseCompleted`` with usage. ``response.failed``,
``response.incomplete`` and ``error`` events raise ``ModelError`` with Codex's texts
(the server's part cut to ``MAX_PEER_TEXT``; the model redacts keys from every error).
"""

from __future__ import annotations

from typing import Any

from ..errors import ModelError
from ..protocol.model_stream import (
    AgentMessageDelta,
    AgentReasoning,
    AgentReasoningDelta,
    AgentReasoningSectionBreak,
    ModelStreamEvent,
    OutputItemDone,
    ResponseCompleted,
    TokenUsage,
)
from .limits import MAX_OUTPUT_ITEMS, MAX_SUMMARY_PARTS, clip

CONTEXT_WINDOW_EXCEEDED = (
    "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."
)
QUOTA_EXCEEDED = "Quota exceeded. Check your plan and billing details."
_FATAL_CODES = {
    "context_length_exceeded": (CONTEXT_WINDOW_EXCEEDED, "contextWindowExceeded"),
    "insufficient_quota": (QUOTA_EXCEEDED, "usageLimitExceeded"),
}
_NOTHING: tuple[ModelStreamEvent, ...] = ()


def normalize_item(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as Codex sends it back in the next request's ``input``.

    Codex re-serialises reasoning items as ``{type, id, summary, content, encrypted_content}``
    (``content`` null when absent, ``status`` dropped); other items go back as received.
    """
    if item.get("type") != "reasoning":
        return item
    out: dict[str, Any] = {"type": "reasoning"}
    if "id" in item:
        out["id"] = item["id"]
    out["summary"] = item.get("summary") or []
    out["content"] = item.get("content")
    if "encrypted_content" in item:
        out["encrypted_content"] = item["encrypted_content"]
    return out


class StreamMapper:
    """Maps one response stream; ``completed`` is set once ``response.completed`` arrived."""

    def __init__(self) -> None:
        self.completed = False
        self.items_done = 0
        self.response_id: str | None = None
        self._handlers = {
            "response.output_text.delta": self._text_delta,
            "response.reasoning_summary_text.delta": self._reasoning_delta,
            "response.reasoning_summary_part.added": self._reasoning_part,
            "response.output_item.done": self._item_done,
            "response.created": self._created,
            "response.completed": self._completed,
            "response.failed": self._failed,
            "response.incomplete": self._incomplete,
            "error": self._error,
        }

    def feed(self, event: Any) -> tuple[ModelStreamEvent, ...]:
        kind = event.get("type") if isinstance(event, dict) else None
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        return _NOTHING if handler is None else handler(event)

    # -- deltas ------------------------------------------------------------------------
    @staticmethod
    def _text_delta(event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        delta = event.get("delta")
        return (AgentMessageDelta(delta=delta),) if isinstance(delta, str) and delta else _NOTHING

    @staticmethod
    def _reasoning_delta(event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        delta = event.get("delta")
        return (AgentReasoningDelta(delta=delta),) if isinstance(delta, str) and delta else _NOTHING

    @staticmethod
    def _reasoning_part(event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        index = event.get("summary_index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 < index <= MAX_SUMMARY_PARTS:
            return _NOTHING  # the first part needs no break; an absurd index is no part at all
        return (AgentReasoningSectionBreak(item_id=str(event.get("item_id") or ""), summary_index=index),)

    # -- items -------------------------------------------------------------------------
    def _item_done(self, event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        item = event.get("item")
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise ModelError(
                f"stream disconnected before completion: output item without a type: {item!r:.200}", retryable=True
            )
        self.items_done += 1
        if self.items_done > MAX_OUTPUT_ITEMS:
            raise ModelError(
                f"the model provider sent over {MAX_OUTPUT_ITEMS} output items in one response, "
                f"codex_nb's limit; the turn stops",
                info="other",
            )
        item = normalize_item(item)
        done = OutputItemDone(item=item)
        if item["type"] != "reasoning":
            return (done,)
        texts = [part.get("text", "") for part in item.get("summary") or [] if isinstance(part, dict)]
        return (*(AgentReasoning(text=text) for text in texts if text), done)

    # -- the response ------------------------------------------------------------------
    def _created(self, event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        self.response_id = _get(event, "response", "id")
        return _NOTHING

    def _completed(self, event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        self.completed = True
        return (
            ResponseCompleted(
                response_id=_get(event, "response", "id") or self.response_id,
                usage=TokenUsage.from_responses_usage(_get(event, "response", "usage")),
            ),
        )

    @staticmethod
    def _failed(event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        code = _text(_get(event, "response", "error", "code"))
        message = _text(_get(event, "response", "error", "message"))
        if code in _FATAL_CODES:
            text, info = _FATAL_CODES[code]
            raise ModelError(text, info=info)
        if code == "invalid_prompt":
            raise ModelError(message or "the model provider rejected the prompt (invalid_prompt)", info="badRequest")
        detail = message or (f"response.failed ({code})" if code else "response.failed event received")
        raise ModelError(detail, retryable=True, info="other")

    @staticmethod
    def _incomplete(event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        reason = _text(_get(event, "response", "incomplete_details", "reason")) or "unknown"
        raise ModelError(f"Incomplete response returned, reason: {reason}", retryable=True, info="other")

    @staticmethod
    def _error(event: dict[str, Any]) -> tuple[ModelStreamEvent, ...]:
        message = (
            _text(event.get("message"))
            or _text(_get(event, "error", "message"))
            or "the model provider sent an error event"
        )
        code = _text(event.get("code")) or _text(_get(event, "error", "code"))
        if code in _FATAL_CODES:
            text, info = _FATAL_CODES[code]
            raise ModelError(text, info=info)
        raise ModelError(f"stream disconnected before completion: {message}", retryable=True, info="other")


def _text(value: Any) -> str | None:
    """A server's string, bounded; anything else (a number, a list) shown as its JSON-ish repr."""
    if value is None or value == "":
        return None
    return clip(value if isinstance(value, str) else repr(value)[:200])


def _get(data: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
