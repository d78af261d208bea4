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
import json
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


Item = dict[str, Any]


class ResponsesServerError(AssertionError):
    """The script and the requests the server saw do not match."""


@dataclass(frozen=True, kw_only=False)
class HttpError:
    """Answer the request with this HTTP status, an optional body and headers (e.g. Retry-After)."""

    status: int
    body: str | Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None


@dataclass(frozen=True, kw_only=False)
class CutStream:
    """Stream ``after_items`` output items, then close the connection without response.completed."""

    after_items: int = 0
    items: Sequence[Item] = ()


@dataclass(frozen=True, kw_only=False)
class Stall:
    """Send response.created, then hold the connection silent for ``seconds`` and close it.

    With ``then`` (a list of items), the stream resumes normally after the pause instead.
    The pause ends early when the server shuts down, so a stalled test never hangs.
    """

    seconds: float
    then: Sequence[Item] | None = None


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


def _sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


def _usage(request_bytes: int, items: Sequence[Item]) -> dict[str, Any]:
    # Deterministic, roughly proportional figures: enough for clients that track token use.
    input_tokens = max(1, request_bytes // 4)
    output_tokens = max(1, len(json.dumps(list(items))) // 4)
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }


_NOT_JSON = object()


def _route_key(path: str) -> str:
    """``alpha/search``, ``/alpha/search`` and ``/v1/alpha/search`` name the same route."""
    path = "/" + path.split("?")[0].strip("/")
    return path if path.startswith("/v1/") else "/v1" + path


def _is_item_list(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(i, dict) and "type" in i for i in value)


class ResponsesServer:
    """Serve scripted Responses-API streams on ``base_url`` (``http://127.0.0.1:PORT/v1``).

    ``script`` is a list; entry *n* answers the *n*-th ``POST /v1/responses``: a list of
    output items (``cx.function_call(...)``, ``cx.assistant_message(...)``, ...), a
    callable taking the request body and returning such a list (or a fault), or a fault
    object. Use as ``with ResponsesServer(script) as srv:`` or ``async with``.
    """

    def __init__(
        self,
        script: Sequence[Entry],
        *,
        allow_leftover: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        routes: Mapping[str, Route] | None = None,
    ) -> None:
        if isinstance(script, (str, bytes)) or not isinstance(script, Sequence):
            raise TypeError("ResponsesServer takes a list of script entries, each a list of output items or a fault")
        for index, entry in enumerate(script):
            if not (callable(entry) or _is_item_list(entry) or isinstance(entry, Fault)):
                raise TypeError(
                    f"script entry {index} must be a list of output items, a callable or a fault "
                    f"(HttpError/CutStream/Stall/Garbage/Events/Raw/Redirect); got {type(entry).__name__}. "
                    f"Wrap a single item in a list."
                )
        self.script: list[Entry] = list(script)
        self.allow_leftover = allow_leftover
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        """The request path (with its query string) of every recorded POST, in order."""
        self.other_requests: list[tuple[str, str]] = []
        self.routes: dict[str, Route] = {_route_key(k): v for k, v in (routes or {}).items()}
        self.route_requests: list[tuple[str, dict[str, Any]]] = []
        """``(path, JSON body)`` of every request a route answered, in order."""
        self.failures: list[str] = []
        self.disconnects = 0
        """How many held ``Events`` streams saw the client hang up."""
        self.disconnected = threading.Event()
        """Set each time a held ``Events`` stream sees the client hang up."""
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> ResponsesServer:
        """Listen (on a free port unless ``port`` was given) and serve from a daemon thread; returns
        the server, and does nothing if it already runs. The context managers call it; call it
        yourself when the server must outlive a ``with`` block, and ``close()`` it after."""
        if self._httpd is not None:
            return self
        server = self

        class Handler(_Handler):
            owner = server

        self._closing.clear()
        self._httpd = _Server((self._host, self._port), Handler)
        self._httpd.owner = self
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="ResponsesServer", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and join the server thread (held streams end); idempotent. It does not
        ``check()`` the script: leaving the context manager does both."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._closing.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def check(self) -> None:
        """Raise ``ResponsesServerError`` for over-use, handler errors, or unused entries."""
        problems = list(self.failures)
        if not self.allow_leftover and self.remaining > 0:
            problems.append(
                f"{self.remaining} scripted response(s) were never requested; remove them, or pass allow_leftover=True"
            )
        if problems:
            raise ResponsesServerError("; ".join(problems))

    def __enter__(self) -> ResponsesServer:
        return self.start()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()
        if exc_type is None:
            self.check()

    async def __aenter__(self) -> ResponsesServer:
        return self.start()

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        import asyncio

        await asyncio.to_thread(self.close)
        if exc_type is None:
            self.check()

    # -- facts -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        """The TCP port the server listens on. Raises ``RuntimeError`` when it is not running."""
        if self._httpd is None:
            raise RuntimeError("the ResponsesServer is not running; use it as a context manager or call start()")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: the ``base_url`` to give ``cx.ResponsesModel`` or a Codex model
        provider (``write_codex_home`` writes it). Raises ``RuntimeError`` when it is not running."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def remaining(self) -> int:
        """Script entries not requested yet; ``check()`` fails while this is above 0 unless
        ``allow_leftover``."""
        return max(0, len(self.script) - len(self.requests))

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

    # -- serving -------------------------------------------------------------------------
    def _take(self, body: dict[str, Any], headers: dict[str, str], path: str = "") -> tuple[int, Entry | None]:
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            self.headers.append(headers)
            self.paths.append(path)
            if index >= len(self.script):
                message = (
                    f"ResponsesServer was asked for response {index + 1} but only {len(self.script)} were "
                    f"scripted; add a final [cx.assistant_message(...)] response so the turn can end"
                )
                self.failures.append(message)
                return index, None
            return index, self.script[index]

    def _fail(self, message: str) -> None:
        with self._lock:
            self.failures.append(message)


class _Server(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` that prints nothing: its ``handle_error`` writes a traceback to stderr,
    which in a kernel lands in whatever cell runs at that moment (nbval then sees a stray stderr
    output). A client that hangs up mid-request is normal (a cut stream retried, a turn stopped);
    any other error in a handler is a failure that ``check()`` reports."""

    owner: ResponsesServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        self.owner._fail(f"the handler of a request from {client_address[0]} raised {error!r}")


class _Handler(BaseHTTPRequestHandler):
    owner: ResponsesServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read .requests instead
        pass

    def do_GET(self) -> None:
        self.owner.other_requests.append(("GET", self.path))
        self._json(404, {"error": {"message": f"ResponsesServer serves only POST /v1/responses, not GET {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        route = self.owner.routes.get(_route_key(self.path))
        if route is not None:
            self._route(route, raw)
            return
        if self.path.split("?")[0].rstrip("/") not in ("/v1/responses", "/responses"):
            self.owner.other_requests.append(("POST", self.path))
            self._json(404, {"error": {"message": f"ResponsesServer serves only POST /v1/responses, not {self.path}"}})
            return
        body = self._parsed(raw)
        if body is _NOT_JSON:
            return
        index, entry = self.owner._take(body, {k.lower(): v for k, v in self.headers.items()}, self.path)
        if entry is None:
            self._json(500, {"error": {"message": self.owner.failures[-1], "type": "server_error"}})
            return
        if callable(entry) and not isinstance(entry, Fault):
            try:
                entry = entry(copy.deepcopy(body))
            except Exception as exc:  # a broken script entry must not kill the server
                self._server_error(f"script entry {index} raised {type(exc).__name__}: {exc}")
                return
            if not (_is_item_list(entry) or isinstance(entry, Fault)):
                self._server_error(
                    f"script entry {index} returned {type(entry).__name__}, not a list of items or a fault"
                )
                return
        try:
            self._answer(index, entry, len(raw))
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
            self._answer(-1, answer, len(raw))
            return
        self._json(200, dict(answer))

    def _parsed(self, raw: bytes, *, where: str = "") -> Any:
        """The JSON body; else ``_NOT_JSON``, the failure kept (``where`` prefixes it) and a 400 sent."""
        try:
            return json.loads(raw or b"{}")
        except ValueError as exc:
            self.owner._fail(f"{where}request body is not JSON: {exc}")
            self._json(400, {"error": {"message": f"request body is not JSON: {exc}"}})
            return _NOT_JSON

    def _server_error(self, message: str) -> None:
        """A broken script entry or route: the failure is kept for the test, the client gets a 500 saying why."""
        self.owner._fail(message)
        self._json(500, {"error": {"message": message, "type": "server_error"}})

    # -- answers -----------------------------------------------------------------------
    def _answer(self, index: int, entry: Any, request_bytes: int) -> None:
        response_id = f"resp_{index + 1}"
        if isinstance(entry, HttpError):
            body = entry.body
            if body is None:
                body = {"error": {"message": f"scripted HTTP {entry.status}", "type": "server_error"}}
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(entry.status)
            self.send_header("Content-Type", "application/json" if not isinstance(body, str) else "text/plain")
            for key, value in (entry.headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
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
            self.owner._closing.wait(entry.seconds)
            if entry.then is None or self.owner._closing.is_set():
                return
            entry = list(entry.then)
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

    def _start_stream(self, *, close: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if close:
            # No Content-Length: the stream ends when the connection closes.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

    def _send(self, event: dict[str, Any]) -> None:
        self.wfile.write(_sse(event))
        self.wfile.flush()

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


__all__ = [
    "CutStream",
    "Events",
    "Garbage",
    "HttpError",
    "Raw",
    "Redirect",
    "ResponsesServer",
    "ResponsesServerError",
    "Stall",
]
