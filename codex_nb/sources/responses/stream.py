"""Responses-API stream events -> what the turn loop consumes (``ModelStreamEvent``).

One ``StreamMapper`` per attempt reads the SDK's typed stream events (attribute access
only: no copies of the text, so a 10,000-delta answer costs no more memory than its
final text) and returns the runtime events for each: text deltas become
``agent_message_delta``, reasoning-summary deltas ``agent_reasoning_delta`` (a new
summary part: ``agent_reasoning_section_break``), each completed output item an
``OutputItemDone`` (reasoning items add one ``agent_reasoning`` per summary part),
``response.completed`` a ``ResponseCompleted`` with usage. ``response.failed``,
``response.incomplete`` and ``error`` events raise ``ModelError`` with Codex's texts.
"""

from __future__ import annotations

from typing import Any

from ...errors import ModelError
from ...protocol.model_stream import (
    AgentMessageDelta,
    AgentReasoning,
    AgentReasoningDelta,
    AgentReasoningSectionBreak,
    ModelStreamEvent,
    OutputItemDone,
    ResponseCompleted,
    TokenUsage,
)

CONTEXT_WINDOW_EXCEEDED = ("Codex ran out of room in the model's context window. Start a new thread or clear "
                           "earlier history before retrying.")
QUOTA_EXCEEDED = "Quota exceeded. Check your plan and billing details."
_FATAL_CODES = {"context_length_exceeded": (CONTEXT_WINDOW_EXCEEDED, "contextWindowExceeded"),
                "insufficient_quota": (QUOTA_EXCEEDED, "usageLimitExceeded")}
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
        handler = self._handlers.get(getattr(event, "type", None))
        return _NOTHING if handler is None else handler(event)

    # -- deltas ------------------------------------------------------------------------
    @staticmethod
    def _text_delta(event: Any) -> tuple[ModelStreamEvent, ...]:
        delta = event.delta
        return (AgentMessageDelta(delta=delta),) if isinstance(delta, str) and delta else _NOTHING

    @staticmethod
    def _reasoning_delta(event: Any) -> tuple[ModelStreamEvent, ...]:
        delta = event.delta
        return (AgentReasoningDelta(delta=delta),) if isinstance(delta, str) and delta else _NOTHING

    @staticmethod
    def _reasoning_part(event: Any) -> tuple[ModelStreamEvent, ...]:
        index = getattr(event, "summary_index", 0) or 0
        if index <= 0:
            return _NOTHING  # the first part needs no break
        return (AgentReasoningSectionBreak(item_id=str(getattr(event, "item_id", "") or ""),
                                           summary_index=int(index)),)

    # -- items -------------------------------------------------------------------------
    def _item_done(self, event: Any) -> tuple[ModelStreamEvent, ...]:
        raw = event.item
        item = raw.to_dict() if hasattr(raw, "to_dict") else dict(raw)
        if not isinstance(item.get("type"), str):
            raise ModelError(f"stream disconnected before completion: output item without a type: {item!r:.200}",
                             retryable=True)
        self.items_done += 1
        item = normalize_item(item)
        done = OutputItemDone(item=item)
        if item["type"] != "reasoning":
            return (done,)
        texts = [part.get("text", "") for part in item.get("summary") or [] if isinstance(part, dict)]
        return (*(AgentReasoning(text=text) for text in texts if text), done)

    # -- the response ------------------------------------------------------------------
    def _created(self, event: Any) -> tuple[ModelStreamEvent, ...]:
        self.response_id = getattr(getattr(event, "response", None), "id", None)
        return _NOTHING

    def _completed(self, event: Any) -> tuple[ModelStreamEvent, ...]:
        response = getattr(event, "response", None)
        usage = getattr(response, "usage", None)
        usage_dict = usage.to_dict() if hasattr(usage, "to_dict") else usage
        self.completed = True
        return (ResponseCompleted(response_id=getattr(response, "id", None) or self.response_id,
                                  usage=TokenUsage.from_responses_usage(usage_dict)),)

    @staticmethod
    def _failed(event: Any) -> tuple[ModelStreamEvent, ...]:
        error = getattr(getattr(event, "response", None), "error", None)
        code = getattr(error, "code", None) if error is not None else None
        message = getattr(error, "message", None) if error is not None else None
        if code in _FATAL_CODES:
            text, info = _FATAL_CODES[code]
            raise ModelError(text, info=info)
        if code == "invalid_prompt":
            raise ModelError(message or "the model provider rejected the prompt (invalid_prompt)", info="badRequest")
        detail = message or (f"response.failed ({code})" if code else "response.failed event received")
        raise ModelError(detail, retryable=True, info="other")

    @staticmethod
    def _incomplete(event: Any) -> tuple[ModelStreamEvent, ...]:
        details = getattr(getattr(event, "response", None), "incomplete_details", None)
        reason = getattr(details, "reason", None) or "unknown"
        raise ModelError(f"Incomplete response returned, reason: {reason}", retryable=True, info="other")

    @staticmethod
    def _error(event: Any) -> tuple[ModelStreamEvent, ...]:
        message = getattr(event, "message", None) or "the model provider sent an error event"
        code = getattr(event, "code", None)
        if code in _FATAL_CODES:
            text, info = _FATAL_CODES[code]
            raise ModelError(text, info=info)
        raise ModelError(f"stream disconnected before completion: {message}", retryable=True, info="other")
