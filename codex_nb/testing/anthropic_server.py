"""A local Anthropic Messages-API server on 127.0.0.1, scripted per request.

What Claude Code (and so ``claude-agent-acp``) speaks: each ``POST /v1/messages`` takes the next
script entry, a list of content blocks (``AnthropicServer.text``, ``.tool_use``, ``.thinking``),
and answers it as the real API does: an SSE stream (``message_start``, ``content_block_start``,
``content_block_delta``, ``content_block_stop``, ``message_delta`` with the stop reason,
``message_stop``) when the request asks to stream, else one JSON message;
``/v1/messages/count_tokens`` is answered with an estimate and uses no entry. Point an agent at it
with ``ANTHROPIC_BASE_URL=srv.base_url`` and any ``ANTHROPIC_API_KEY``.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

from .sse_server import HttpError, ScriptedServer, ScriptedServerError, SseHandler, Stall, estimated_tokens

Block = dict[str, Any]
_ids = itertools.count(1)


def _is_blocks(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(b, dict) and "type" in b for b in value)


class AnthropicServerError(ScriptedServerError):
    """The script and the requests the server saw do not match."""


class AnthropicServer(ScriptedServer):
    """Serve scripted Messages-API answers on ``base_url`` (``http://127.0.0.1:PORT``).

    Entry *n* answers the *n*-th ``POST /v1/messages`` (not answered by ``background``): a list
    of content blocks, a callable taking the request body and returning one, or a fault
    (``HttpError``, ``Stall``)."""

    api = "POST /v1/messages"
    error = AnthropicServerError
    last_entry_hint = "add a final [AnthropicServer.text(...)] answer so the turn can end"

    def _is_content(self, entry: Any) -> bool:
        return _is_blocks(entry)

    def _entry_text(self) -> str:
        return (
            "a list of content blocks (AnthropicServer.text/tool_use/thinking), a callable or a fault (HttpError/Stall)"
        )

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: the value of ``ANTHROPIC_BASE_URL``."""
        return self.origin

    # -- content blocks --------------------------------------------------------------
    @staticmethod
    def text(text: str) -> Block:
        """An assistant text block."""
        return {"type": "text", "text": text}

    @staticmethod
    def tool_use(name: str, input: dict[str, Any], id: str | None = None) -> Block:
        """A tool call: the agent's tool ``name`` (``Bash``, ``Write``, ``TodoWrite``...) with ``input``."""
        return {"type": "tool_use", "id": id or f"toolu_{next(_ids):04d}", "name": name, "input": input}

    @staticmethod
    def thinking(text: str) -> Block:
        """A thinking block (its signature is a placeholder; the stand-in never checks it)."""
        return {"type": "thinking", "thinking": text, "signature": "c3RhbmQtaW4="}


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tool_result`` blocks of the request's last user message: what the agent's tools returned."""
    messages = body.get("messages") or []
    content = messages[-1].get("content") if messages and isinstance(messages[-1], dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


class _Handler(SseHandler):
    owner: AnthropicServer

    def do_POST(self) -> None:
        raw, body = self._body()
        path = self.path.split("?")[0].rstrip("/")
        if path == "/v1/messages/count_tokens":  # an estimate, using no script entry
            self._json(200, {"input_tokens": estimated_tokens(raw)})
            return
        if path != "/v1/messages":
            self._not_served("POST")
            return
        taken = self._scripted(body, _is_blocks)
        if taken is None:
            return
        index, entry = taken
        try:
            self._answer(index, entry, body, len(raw))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up (a stopped turn): nothing left to send

    def _answer(self, index: int, entry: Any, body: dict[str, Any], request_bytes: int) -> None:
        if isinstance(entry, HttpError):
            self._http_error(entry)
            return
        content = list(entry.then or ()) if isinstance(entry, Stall) else list(entry)
        blocks = [copy.deepcopy(b) for b in content]
        message_id = f"msg_{index + 1}" if index >= 0 else f"msg_bg_{next(_ids)}"
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {"input_tokens": max(1, request_bytes // 4), "output_tokens": estimated_tokens(blocks)}
        model = body.get("model") or "claude-stand-in"
        if not body.get("stream"):
            if isinstance(entry, Stall) and not self._stall(entry):
                self._json(529, {"type": "error", "error": {"type": "overloaded_error", "message": "stalled"}})
                return
            self._json(
                200,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        self._start_stream()
        start: dict[str, Any] = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
        }
        self._send({"type": "message_start", "message": start})
        if isinstance(entry, Stall) and not self._stall(entry):
            return
        for index_, block in enumerate(blocks):
            self._block(index_, block)
        self._send(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            }
        )
        self._send({"type": "message_stop"})

    def _block(self, index: int, block: Block) -> None:
        kind = block["type"]
        if kind == "text":
            self._send({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
            delta: dict[str, Any] = {"type": "text_delta", "text": block.get("text", "")}
            self._send({"type": "content_block_delta", "index": index, "delta": delta})
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            self._send({"type": "content_block_start", "index": index, "content_block": start})
            partial = json.dumps(block.get("input") or {})
            self._send(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": partial},
                }
            )
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            self._send({"type": "content_block_start", "index": index, "content_block": start})
            thought = {"type": "thinking_delta", "thinking": block.get("thinking", "")}
            self._send({"type": "content_block_delta", "index": index, "delta": thought})
            signature = {"type": "signature_delta", "signature": block.get("signature", "")}
            self._send({"type": "content_block_delta", "index": index, "delta": signature})
        else:  # any other block is sent whole, as the API sends blocks without deltas
            self._send({"type": "content_block_start", "index": index, "content_block": block})
        self._send({"type": "content_block_stop", "index": index})

    def _send(self, event: dict[str, Any]) -> None:
        self._sse(event, event["type"])


AnthropicServer.handler = _Handler

__all__ = ["AnthropicServer", "AnthropicServerError", "tool_results"]
