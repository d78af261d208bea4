"""The part every scripted model stand-in shares: real HTTP on 127.0.0.1, one script entry per request.

``ResponsesServer`` (Responses API), ``AnthropicServer`` (Messages API) and ``GeminiServer``
(``streamGenerateContent``) each speak one model API; what they have in common lives here
once: the server thread and its lifecycle, the strict script (a request beyond it is an HTTP
500 and a failure, an unused entry a failure on exit), the record of every request, the
faults ``HttpError`` and ``Stall``, and the handler's helpers for JSON answers and SSE streams.

Agents also send requests that are not the turn the test scripts (Claude Code asks a small
model for a title, Gemini CLI for a loop check): ``background`` answers those without using a
script entry, and keeps them in ``background_requests``.
"""

from __future__ import annotations

import copy
import json
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from dataclasses import dataclass


class ScriptedServerError(AssertionError):
    """The script and the requests the server saw do not match."""


@dataclass(frozen=True, kw_only=False)
class HttpError:
    """Answer the request with this HTTP status, an optional body and headers (e.g. Retry-After)."""

    status: int
    body: str | Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None


@dataclass(frozen=True, kw_only=False)
class Stall:
    """Start the stream, then hold the connection silent for ``seconds`` and close it.

    With ``then`` (the entry's content), the stream resumes normally after the pause instead.
    The pause ends early when the server shuts down, so a stalled test never hangs.
    """

    seconds: float
    then: Sequence[Any] | None = None


_NOT_JSON = object()


class ScriptedServer:
    """Serve scripted answers of one model API on ``http://127.0.0.1:PORT``.

    A subclass names its API (``api``), checks its entries (``_is_content``) and answers a
    request (``_Handler._answer``); ``script`` entry *n* answers the *n*-th scripted request.
    """

    api: ClassVar[str] = "model API"
    faults: ClassVar[tuple[type, ...]] = (HttpError, Stall)
    error: ClassVar[type[AssertionError]] = ScriptedServerError
    last_entry_hint: ClassVar[str] = "add a final text answer so the turn can end"

    def __init__(
        self,
        script: Sequence[Any],
        *,
        allow_leftover: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        background: Callable[[dict[str, Any]], Any] | None = None,
    ) -> None:
        if isinstance(script, (str, bytes)) or not isinstance(script, Sequence):
            raise TypeError(f"{type(self).__name__} takes a list of script entries, each {self._entry_text()}")
        for index, entry in enumerate(script):
            if not (callable(entry) or self._is_content(entry) or isinstance(entry, self.faults)):
                raise TypeError(
                    f"script entry {index} must be {self._entry_text()}; got {type(entry).__name__}. "
                    f"Wrap a single item in a list."
                )
        self.script: list[Any] = list(script)
        self.allow_leftover = allow_leftover
        self.background = background
        """Answers requests that are not the scripted turn (a title, a loop check): a callable taking
        the body and returning an entry, or None when the request is the script's."""
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        """The request path (with its query string) of every scripted request, in order."""
        self.background_requests: list[dict[str, Any]] = []
        self.other_requests: list[tuple[str, str]] = []
        self.failures: list[str] = []
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- what a subclass says --------------------------------------------------------
    def _is_content(self, entry: Any) -> bool:
        return isinstance(entry, (list, tuple))

    def _entry_text(self) -> str:
        return "a list of output items, a callable or a fault (HttpError/Stall)"

    handler: ClassVar[type[BaseHTTPRequestHandler]]

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> Any:
        """Listen (on a free port unless ``port`` was given) and serve from a daemon thread; returns
        the server, and does nothing if it already runs. The context managers call it; call it
        yourself when the server must outlive a ``with`` block, and ``close()`` it after."""
        if self._httpd is not None:
            return self
        server = self

        class Handler(self.handler):  # type: ignore[name-defined]
            owner = server

        self._closing.clear()
        self._httpd = _Server((self._host, self._port), Handler)
        self._httpd.owner = self
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=type(self).__name__, daemon=True)
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
        """Raise the server's error for over-use, handler errors, or unused entries."""
        problems = list(self.failures)
        if not self.allow_leftover and self.remaining > 0:
            problems.append(
                f"{self.remaining} scripted response(s) were never requested; remove them, or pass allow_leftover=True"
            )
        if problems:
            raise self.error("; ".join(problems))

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()
        if exc_type is None:
            self.check()

    async def __aenter__(self) -> Any:
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
            raise RuntimeError(f"the {type(self).__name__} is not running; use it as a context manager or call start()")
        return int(self._httpd.server_address[1])

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def remaining(self) -> int:
        """Script entries not requested yet; ``check()`` fails while this is above 0 unless
        ``allow_leftover``."""
        return max(0, len(self.script) - len(self.requests))

    # -- serving -------------------------------------------------------------------------
    def _take(self, body: dict[str, Any], headers: dict[str, str], path: str = "") -> tuple[int, Any]:
        """The entry answering this request: ``(index, entry)``; ``(-1, entry)`` for a background
        answer; ``(index, None)`` when the script is used up (a failure)."""
        if self.background is not None:
            answer = self.background(copy.deepcopy(body))
            if answer is not None:
                with self._lock:
                    self.background_requests.append(body)
                return -1, answer
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            self.headers.append(headers)
            self.paths.append(path)
            if index >= len(self.script):
                message = (
                    f"{type(self).__name__} was asked for response {index + 1} but only {len(self.script)} were "
                    f"scripted; {self.last_entry_hint}"
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

    owner: ScriptedServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        self.owner._fail(f"the handler of a request from {client_address[0]} raised {error!r}")


class SseHandler(BaseHTTPRequestHandler):
    """The handler helpers every stand-in uses: JSON bodies, JSON answers, SSE streams, script entries."""

    owner: Any
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read .requests instead
        pass

    def _not_served(self, method: str) -> None:
        self.owner.other_requests.append((method, self.path))
        # "not /v1/x" for a POST, "not GET /v1/x" otherwise: Codex quotes this body in a tool's
        # output, and the conformance recordings hold that text (seed_web_run_provider_refuses)
        what = self.path if method == "POST" else f"{method} {self.path}"
        self._json(404, {"error": {"message": f"{type(self.owner).__name__} serves only {self.owner.api}, not {what}"}})

    def do_GET(self) -> None:
        self._not_served("GET")

    def _body(self) -> tuple[bytes, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return raw, self._parsed(raw)

    def _parsed(self, raw: bytes, *, where: str = "") -> Any:
        """The JSON body; else ``_NOT_JSON``, the failure kept (``where`` prefixes it) and a 400 sent."""
        try:
            return json.loads(raw or b"{}")
        except ValueError as exc:
            self.owner._fail(f"{where}request body is not JSON: {exc}")
            self._json(400, {"error": {"message": f"request body is not JSON: {exc}"}})
            return _NOT_JSON

    def _scripted(self, body: Any, is_content: Callable[[Any], bool]) -> tuple[int, Any] | None:
        """Take the entry for ``body`` and call it if it is a callable; None when an error was answered."""
        if body is _NOT_JSON:
            return None
        index, entry = self.owner._take(body, {k.lower(): v for k, v in self.headers.items()}, self.path)
        if entry is None:
            self._json(500, {"error": {"message": self.owner.failures[-1], "type": "server_error"}})
            return None
        if callable(entry) and not isinstance(entry, self.owner.faults):
            try:
                entry = entry(copy.deepcopy(body))
            except Exception as exc:  # a broken script entry must not kill the server
                self._server_error(f"script entry {index} raised {type(exc).__name__}: {exc}")
                return None
            if not (is_content(entry) or isinstance(entry, self.owner.faults)):
                self._server_error(
                    f"script entry {index} returned {type(entry).__name__}, not {self.owner._entry_text()}"
                )
                return None
        return index, entry

    def _server_error(self, message: str) -> None:
        """A broken script entry or route: the failure is kept for the test, the client gets a 500 saying why."""
        self.owner._fail(message)
        self._json(500, {"error": {"message": message, "type": "server_error"}})

    def _http_error(self, entry: HttpError) -> None:
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

    def _stall(self, entry: Stall) -> bool:
        """Hold the stream ``entry.seconds``; True when it should resume with ``entry.then``."""
        self.owner._closing.wait(entry.seconds)
        return entry.then is not None and not self.owner._closing.is_set()

    def _start_stream(self, *, close: bool = True) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if close:
            # No Content-Length: the stream ends when the connection closes.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()

    def _sse(self, data: Mapping[str, Any], event: str | None = None) -> None:
        """One SSE frame: ``event: NAME`` (when given) and ``data: JSON``."""
        head = f"event: {event}\n" if event is not None else ""
        self.wfile.write(f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n".encode())
        self.wfile.flush()

    def _json(self, status: int, body: Mapping[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def estimated_tokens(value: Any) -> int:
    """Deterministic, roughly proportional token figures: enough for clients that track token use."""
    return max(1, len(value if isinstance(value, (bytes, str)) else json.dumps(value, default=str)) // 4)


__all__ = ["HttpError", "ScriptedServer", "ScriptedServerError", "SseHandler", "Stall", "estimated_tokens"]
