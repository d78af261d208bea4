"""A local Gemini-API server on 127.0.0.1, scripted per request.

What Gemini CLI speaks: each ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` (or
``:generateContent``) takes the next script entry, a list of parts (``GeminiServer.text``,
``.function_call``, ``.thought``), and answers it as the real API does: SSE ``data:`` frames of
``GenerateContentResponse`` (text split in chunks, the last carrying ``finishReason`` and
``usageMetadata``), or one JSON response. ``:countTokens`` is answered with an estimate and uses
no entry. Point Gemini CLI at it with ``GOOGLE_GEMINI_BASE_URL=srv.base_url`` and any
``GEMINI_API_KEY``.
"""

from __future__ import annotations

import copy
from typing import Any

from .sse_server import HttpError, ScriptedServer, ScriptedServerError, SseHandler, Stall, estimated_tokens

Part = dict[str, Any]


def _is_parts(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(p, dict) for p in value) and len(value) > 0


class GeminiServerError(ScriptedServerError):
    """The script and the requests the server saw do not match."""


class GeminiServer(ScriptedServer):
    """Serve scripted ``generateContent`` answers on ``base_url`` (``http://127.0.0.1:PORT``).

    Entry *n* answers the *n*-th generate request (not answered by ``background``): a list of
    parts, a callable taking the request body and returning one, or a fault (``HttpError``,
    ``Stall``). ``request_models`` lists the model named in each scripted request's path."""

    api = "POST /v1beta/models/MODEL:streamGenerateContent and :generateContent"
    error = GeminiServerError
    last_entry_hint = "add a final [GeminiServer.text(...)] answer so the turn can end"

    def _is_content(self, entry: Any) -> bool:
        return _is_parts(entry)

    def _entry_text(self) -> str:
        return "a list of parts (GeminiServer.text/function_call/thought), a callable or a fault (HttpError/Stall)"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: the value of ``GOOGLE_GEMINI_BASE_URL``."""
        return self.origin

    # -- parts -------------------------------------------------------------------------
    @staticmethod
    def text(text: str) -> Part:
        """A model text part."""
        return {"text": text}

    @staticmethod
    def function_call(name: str, args: dict[str, Any]) -> Part:
        """A call of the agent's tool ``name`` (``run_shell_command``, ``write_file``, ``write_todos``...)."""
        return {"functionCall": {"name": name, "args": args}}

    @staticmethod
    def thought(text: str) -> Part:
        """A thought-summary part."""
        return {"text": text, "thought": True}


def function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``functionResponse`` parts of the request's last content: what the agent's tools returned."""
    contents = body.get("contents") or []
    parts = contents[-1].get("parts") if contents and isinstance(contents[-1], dict) else None
    if not isinstance(parts, list):
        return []
    return [p["functionResponse"] for p in parts if isinstance(p, dict) and "functionResponse" in p]


class _Handler(SseHandler):
    owner: GeminiServer

    def do_POST(self) -> None:
        raw, body = self._body()
        path = self.path.split("?")[0]
        method = path.rsplit(":", 1)[-1] if ":" in path else ""
        if "/models/" not in path or method not in ("streamGenerateContent", "generateContent", "countTokens"):
            self._not_served("POST")
            return
        if method == "countTokens":
            self._json(200, {"totalTokens": estimated_tokens(raw)})
            return
        taken = self._scripted(body, _is_parts)
        if taken is None:
            return
        try:
            self._answer(taken[1], len(raw), stream=method == "streamGenerateContent")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up (a stopped turn): nothing left to send

    def _answer(self, entry: Any, request_bytes: int, *, stream: bool) -> None:
        if isinstance(entry, HttpError):
            self._http_error(entry)
            return
        content = list(entry.then or ()) if isinstance(entry, Stall) else list(entry)
        parts = [copy.deepcopy(p) for p in content]
        prompt_tokens = max(1, request_bytes // 4)
        output_tokens = estimated_tokens(parts)
        usage = {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": prompt_tokens + output_tokens,
        }
        if not stream:
            if isinstance(entry, Stall) and not self._stall(entry):
                self._json(503, {"error": {"code": 503, "message": "stalled", "status": "UNAVAILABLE"}})
                return
            self._json(200, self._response(parts, finish=True, usage=usage))
            return
        self._start_stream()
        if isinstance(entry, Stall) and not self._stall(entry):
            return
        # One frame per part, as the API streams them; the last frame says why the answer ended.
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            self._sse(self._response([part], finish=last, usage=usage if last else None))

    @staticmethod
    def _response(parts: list[Part], *, finish: bool, usage: dict[str, Any] | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = "STOP"
        answer: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-stand-in"}
        if usage is not None:
            answer["usageMetadata"] = usage
        return answer


GeminiServer.handler = _Handler

__all__ = ["GeminiServer", "GeminiServerError", "function_responses"]
