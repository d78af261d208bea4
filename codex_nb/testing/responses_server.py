"""A local Responses-API server on 127.0.0.1, scripted like ``ScriptedModel``.

Real HTTP and real SSE, so anything that speaks the Responses API -- the real Codex
binary, codex_nb's own Responses provider -- can run whole turns offline. Each POST to
``/v1/responses`` consumes the next script entry and streams it the way the Responses
API does (``response.created``, ``response.in_progress``, ``response.output_item.added``,
``response.output_text.delta`` for assistant text, ``response.output_item.done``,
``response.completed`` with usage). Every request body is recorded. Faults
(``HttpError``, ``CutStream``, ``Stall``, ``Garbage``, ``Raw``, ``Redirect``) are script
entries too.

Strict: a request beyond the script is answered with HTTP 500 and a message saying so,
and leaving the context manager raises ``ResponsesServerError`` for it, and for script
entries that were never used (unless ``allow_leftover=True``).

``routes`` answers the provider's other JSON endpoints Codex calls for tools it leaves to
the provider (``POST /v1/alpha/search`` for ``web.run``, ``POST /v1/images/generations``
for ``image_gen.imagegen``): each maps a path under ``/v1`` to a callable taking the JSON
body and returning the JSON answer (or an ``HttpError``); every body is kept in
``route_requests``.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from dataclasses import dataclass
from .sse_server import _NOT_JSON, HttpError, ScriptedServer, ScriptedServerError, SseHandler, Stall, estimated_tokens

Item = dict[str, Any]


class ResponsesServerError(ScriptedServerError):
    """The script and the requests the server saw do not match."""


@dataclass(frozen=True, kw_only=False)
class CutStream:
    """Stream ``after_items`` output items, then close the connection without response.completed."""

    after_items: int = 0
    items: Sequence[Item] = ()


@dataclass(frozen=True, kw_only=False)
class Garbage:
    """Answer 200 ``text/event-stream`` with these raw bytes instead of a valid stream."""

    text: str


@dataclass(frozen=True, kw_only=False)
class Events:
    """Stream these Responses-API events verbatim (dicts become ``event:``/``data:`` frames).

    For what the item scripts cannot say: reasoning-summary deltas, ``response.failed``,
    ``response.incomplete``, thousands of text deltas. With ``hold_after=N`` the server
    sends the first N events, then holds the connection open until the client hangs up
    (counted in ``ResponsesServer.disconnects``, signalled by ``disconnected``) or the
    server closes: the way to check that an interrupted client closes its stream at once.
    """

    events: Sequence[Mapping[str, Any]]
    hold_after: int | None = None


@dataclass(frozen=True, kw_only=False)
class Raw:
    """Answer with this status, these headers and these body bytes, exactly as given.

    ``body`` may be an iterable of byte chunks (written one by one, until the client
    hangs up): a compressed body (``Content-Encoding: gzip``) that inflates far beyond
    what is sent, or an endless stream. No Content-Length: the body ends with the connection.
    """

    body: bytes | Iterable[bytes]
    status: int = 200
    headers: Mapping[str, str] | None = None


@dataclass(frozen=True, kw_only=False)
class Redirect:
    """Answer with a redirect (``status``, default 307: keep the method and body) to ``location``."""

    location: str
    status: int = 307


Fault = HttpError | CutStream | Stall | Garbage | Events | Raw | Redirect
Entry = Sequence[Item] | Callable[[dict[str, Any]], Any] | Fault
Route = Callable[[dict[str, Any]], "Mapping[str, Any] | HttpError"]


def _usage(request_bytes: int, items: Sequence[Item]) -> dict[str, Any]:
    input_tokens = max(1, request_bytes // 4)
    output_tokens = estimated_tokens(list(items))
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


def _route_key(path: str) -> str:
    """``alpha/search``, ``/alpha/search`` and ``/v1/alpha/search`` name the same route."""
    path = "/" + path.split("?")[0].strip("/")
    return path if path.startswith("/v1/") else "/v1" + path


def _is_item_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(i, dict) and "type" in i for i in value)


class ResponsesServer(ScriptedServer):
    """Serve scripted Responses-API streams on ``base_url`` (``http://127.0.0.1:PORT/v1``).

    ``script`` is a list; entry *n* answers the *n*-th ``POST /v1/responses``: a list of
    output items (``cx.function_call(...)``, ``cx.assistant_message(...)``, ...), a
    callable taking the request body and returning such a list (or a fault), or a fault
    object. Use as ``with ResponsesServer(script) as srv:`` or ``async with``.
    """

    api = "POST /v1/responses"
    faults: ClassVar[tuple[type, ...]] = (HttpError, CutStream, Stall, Garbage, Events, Raw, Redirect)
    error = ResponsesServerError
    last_entry_hint = "add a final [cx.assistant_message(...)] response so the turn can end"

    def __init__(
        self,
        script: Sequence[Entry],
        *,
        allow_leftover: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        routes: Mapping[str, Route] | None = None,
        background: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        super().__init__(script, allow_leftover=allow_leftover, host=host, port=port, background=background)
        self.routes: dict[str, Route] = {_route_key(k): v for k, v in (routes or {}).items()}
        self.route_requests: list[tuple[str, dict[str, Any]]] = []
        """``(path, JSON body)`` of every request a route answered, in order."""
        self.disconnects = 0
        """How many held ``Events`` streams saw the client hang up."""
        self.disconnected = threading.Event()
        """Set each time a held ``Events`` stream sees the client hang up."""

    def _is_content(self, entry: Any) -> bool:
        return _is_item_list(entry)

    def _entry_text(self) -> str:
        return "a list of output items, a callable or a fault (HttpError/CutStream/Stall/Garbage/Events/Raw/Redirect)"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: the ``base_url`` to give ``cx.ResponsesModel`` or a Codex model
        provider (``write_codex_home`` writes it). Raises ``RuntimeError`` when it is not running."""
        return f"{self.origin}/v1"

    def write_codex_home(self, path: str | Path, **overrides: Any) -> Path:
        """Write ``config.toml`` into ``path`` pointing Codex at this server; returns ``path``.

        Keyword overrides become top-level keys (``model="gpt-5.1-codex"``) or, with a dict
        value, tables (``tools={"update_plan": {"enabled": True}}``). Retries are off so a
        fault shows at once.
        """
        from .codex_ref import codex_config_toml

        home = Path(path)
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(codex_config_toml(self.base_url, **overrides), encoding="utf-8")
        return home


class _Handler(SseHandler):
    owner: ResponsesServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        route = self.owner.routes.get(_route_key(self.path))
        if route is not None:
            self._route(route, raw)
            return
        if self.path.split("?")[0].rstrip("/") not in ("/v1/responses", "/responses"):
            self._not_served("POST")
            return
        taken = self._scripted(self._parsed(raw), _is_item_list)
        if taken is None:
            return
        try:
            self._answer(taken[0], taken[1], len(raw))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up (e.g. an interrupted turn): nothing left to send

    def _route(self, route: Route, raw: bytes) -> None:
        path = _route_key(self.path)
        body = self._parsed(raw, where=f"{path}: ")
        if body is _NOT_JSON:
            return
        with self.owner._lock:
            self.owner.route_requests.append((path, copy.deepcopy(body)))
        try:
            answer = route(body)
        except Exception as exc:  # a broken route must not kill the server
            self._server_error(f"route {path} raised {type(exc).__name__}: {exc}")
            return
        if isinstance(answer, HttpError):
            self._http_error(answer)
            return
        self._json(200, dict(answer))

    # -- answers -----------------------------------------------------------------------
    def _answer(self, index: int, entry: Any, request_bytes: int) -> None:
        response_id = f"resp_{index + 1}"
        if isinstance(entry, HttpError):
            self._http_error(entry)
            return
        if isinstance(entry, Redirect):
            self.send_response(entry.status)
            self.send_header("Location", entry.location)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if isinstance(entry, Raw):
            self._raw(entry)
            return
        if isinstance(entry, Garbage):
            self._start_stream(close=True)
            self.wfile.write(entry.text.encode())
            self.wfile.flush()
            return
        self._start_stream(close=True)
        if isinstance(entry, Events):
            self._events(entry)
            return
        self._send({"type": "response.created", "response": {"id": response_id, "status": "in_progress"}})
        self._send({"type": "response.in_progress", "response": {"id": response_id, "status": "in_progress"}})
        if isinstance(entry, Stall):
            if not self._stall(entry):
                return
            entry = list(entry.then or ())
        if isinstance(entry, CutStream):
            for output_index, item in enumerate(list(entry.items)[: entry.after_items]):
                self._item(output_index, copy.deepcopy(item))
            return
        items = [copy.deepcopy(i) for i in entry]
        for output_index, item in enumerate(items):
            self._item(output_index, item)
        self._send(
            {
                "type": "response.completed",
                "response": {"id": response_id, "status": "completed", "usage": _usage(request_bytes, items)},
            }
        )

    def _item(self, output_index: int, item: Item) -> None:
        added = copy.deepcopy(item)
        if item.get("type") == "message":
            added["content"] = []
        self._send({"type": "response.output_item.added", "output_index": output_index, "item": added})
        if item.get("type") == "message" and item.get("role") == "assistant":
            for content_index, part in enumerate(item.get("content") or []):
                if isinstance(part, dict) and part.get("type") == "output_text":
                    delta: dict[str, Any] = {
                        "type": "response.output_text.delta",
                        "output_index": output_index,
                        "content_index": content_index,
                        "delta": part.get("text", ""),
                    }
                    if "id" in item:
                        delta["item_id"] = item["id"]
                    self._send(delta)
        self._send({"type": "response.output_item.done", "output_index": output_index, "item": item})

    def _raw(self, entry: Raw) -> None:
        self.send_response(entry.status)
        for key, value in (entry.headers or {}).items():
            self.send_header(key, value)
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        chunks = [entry.body] if isinstance(entry.body, bytes) else entry.body
        for chunk in chunks:
            if self.owner._closing.is_set():
                return
            self.wfile.write(chunk)
        self.wfile.flush()

    def _events(self, entry: Events) -> None:
        events = list(entry.events)
        hold = len(events) if entry.hold_after is None else entry.hold_after
        for event in events[:hold]:
            self._send(dict(event))
        if entry.hold_after is None:
            return
        import select
        import socket

        while not self.owner._closing.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                with self.owner._lock:
                    self.owner.disconnects += 1
                self.owner.disconnected.set()
                return

    def _send(self, event: dict[str, Any]) -> None:
        self._sse(event, event["type"])


ResponsesServer.handler = _Handler

__all__ = [
    "CutStream",
    "Events",
    "Garbage",
    "Raw",
    "Redirect",
    "ResponsesServer",
    "ResponsesServerError",
]
