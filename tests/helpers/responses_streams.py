"""Responses-API streams the ResponsesModel tests serve from ``ResponsesServer`` (``Events``): an
answer streamed as text deltas, and a call the model makes while its response is still open (so a
test can interrupt a turn mid-stream)."""

from __future__ import annotations

import asyncio
from typing import Any

import codex_nb as cx


def text_events(*deltas: str, item_id: str = "msg_1") -> list[dict[str, Any]]:
    """A response streaming ``deltas`` as assistant text, as the Responses API does."""
    text = "".join(deltas)
    message = {
        "type": "message",
        "id": item_id,
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return (
        [
            {"type": "response.created", "response": {"id": "resp_t"}},
            {"type": "response.output_item.added", "output_index": 0, "item": {**message, "content": []}},
        ]
        + [
            {
                "type": "response.output_text.delta",
                "item_id": item_id,
                "output_index": 0,
                "content_index": 0,
                "delta": d,
            }
            for d in deltas
        ]
        + [
            {"type": "response.output_item.done", "output_index": 0, "item": message},
            {
                "type": "response.completed",
                "response": {
                    "id": "resp_t",
                    "usage": {
                        "input_tokens": 7,
                        "input_tokens_details": {"cached_tokens": 3},
                        "output_tokens": 5,
                        "output_tokens_details": {"reasoning_tokens": 2},
                        "total_tokens": 12,
                    },
                },
            },
        ]
    )


def held_call_events() -> list[dict[str, Any]]:
    """A response calling ``wait_here``; with ``Events(..., hold_after=2)`` the stream stays open
    after the call's item, while the call runs."""
    return [
        {"type": "response.created", "response": {"id": "r1"}},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": cx.function_call("wait_here", {}, call_id="w1"),
        },
        {"type": "response.completed", "response": {"id": "r1"}},
    ]


def add_wait_here(session: cx.Session) -> asyncio.Event:
    """Give ``session`` the ``wait_here`` tool, which blocks until the turn is interrupted; the event
    returned is set when the call starts."""
    started = asyncio.Event()

    @session.tool
    async def wait_here() -> str:
        "Blocks until the turn is interrupted."
        started.set()
        await asyncio.Event().wait()
        return "unreachable"

    return started
