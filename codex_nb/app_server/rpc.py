"""JSON-RPC 2.0 over the app-server's stdio: one JSON object per line.

Requests carry an integer id and resolve a future; a JSON-RPC error becomes an
``AppServerRpcError`` quoting the server's message; no answer within the timeout is an
``AppServerTimeout``. Notifications and server-to-client requests are handed to
callbacks on the event loop, in arrival order. When stdout ends, every pending request
fails with ``AppServerExited`` carrying the stderr tail.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Callable
from typing import Any

from ..protocol.wire import loads
from .app_server_errors import (
    AppServerError,
    AppServerExited,
    AppServerProtocolError,
    AppServerRpcError,
    AppServerTimeout,
)

log = logging.getLogger("codex_nb.app_server.rpc")

DEFAULT_TIMEOUT = 60.0
METHOD_NOT_FOUND = -32601

NotificationHandler = Callable[[str, dict[str, Any]], None]
RequestHandler = Callable[[Any, str, dict[str, Any]], None]


class JsonRpcConnection:
    """A JSON-RPC client over an asyncio (reader, writer) pair."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        on_notification: NotificationHandler,
        on_request: RequestHandler,
        on_closed: Callable[[], None],
        stderr_tail: Callable[[], str],
        returncode: Callable[[], int | None],
        validator: Any = None,
        tape: Any = None,
    ) -> None:
        self._reader = reader
        self._tape = tape
        """A cassette recorder (``sent``/``received``) that keeps every line both ways, or None."""
        self._writer = writer
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self._on_notification = on_notification
        self._on_request = on_request
        self._on_closed = on_closed
        self._stderr_tail = stderr_tail
        self._returncode = returncode
        self.validator = validator
        self.schema_errors: list[str] = []
        self.closed: AppServerError | None = None
        self.loop = asyncio.get_running_loop()
        self.received = 0
        self._task = asyncio.ensure_future(self._read_loop())

    # -- outgoing ----------------------------------------------------------------------------
    def _write(self, message: dict[str, Any]) -> None:
        if self.closed is not None:
            raise self.closed
        if self._tape is not None:
            self._tape.sent(message)
        self._writer.write((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8"))

    async def request(self, method: str, params: dict[str, Any], *, timeout: float | None = DEFAULT_TIMEOUT) -> Any:
        """Send a request and await its result."""
        self._check("client_requests", method, params, "params")
        request_id = next(self._ids)
        future: asyncio.Future[Any] = self.loop.create_future()
        self._pending[request_id] = (method, future)
        try:
            self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            # the send is inside the bound too: a stopped server stops reading, and a full pipe
            # would hold drain() forever
            async with asyncio.timeout(timeout):
                await self._writer.drain()
                result = await asyncio.shield(future)
        except TimeoutError:
            raise AppServerTimeout(
                f"codex app-server did not answer {method} within {timeout:g} s; it may be "
                f"stuck or overloaded. Pass a larger timeout, or close and restart the server."
                f"{self._tail_text()}"
            ) from None
        except (ConnectionError, BrokenPipeError) as err:
            raise self._exited(f"could not send {method}: {err}") from None
        finally:
            self._pending.pop(request_id, None)
        self._check("client_requests", method, result, "response")
        return result

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(message)

    def respond(self, request_id: Any, result: Any, *, method: str | None = None) -> None:
        """Answer a server request (dropped with a log line if the connection is gone)."""
        if method is not None:
            self._check("server_requests", method, result, "response")
        try:
            self._write({"jsonrpc": "2.0", "id": request_id, "result": result})
        except AppServerError:
            log.info("server request %s answered after the connection closed", request_id)

    def respond_error(self, request_id: Any, code: int, message: str) -> None:
        try:
            self._write({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})
        except AppServerError:
            pass

    # -- incoming ----------------------------------------------------------------------------
    async def _read_loop(self) -> None:
        try:
            while True:
                try:
                    line = await self._reader.readline()
                except (ValueError, asyncio.LimitOverrunError) as err:
                    log.error("codex app-server sent an over-long line: %s", err)
                    continue
                if not line:
                    break
                if line.strip():
                    self._dispatch(line)
        finally:
            self._close(self._exited("codex app-server closed its output"))

    def _dispatch(self, line: bytes) -> None:
        self.received += 1
        if self._tape is not None:
            self._tape.received(line)
        try:
            message = loads(line)
        except ValueError:
            log.warning("codex app-server wrote a non-JSON line to stdout: %r", line[:200])
            return
        if not isinstance(message, dict):
            log.warning("codex app-server wrote a non-object JSON line: %r", line[:200])
            return
        method = message.get("method")
        try:
            if method is None:
                self._on_response(message)
            elif "id" in message:
                params = message.get("params") or {}
                self._check("server_requests", method, params, "params")
                self._on_request(message["id"], method, params)
            else:
                params = message.get("params") or {}
                self._check("notifications", method, params, None)
                self._on_notification(method, params)
        except Exception:  # a handler bug must not stop the reader  # noqa: BLE001
            log.exception("handling %s from codex app-server failed", method or "a response")

    def _on_response(self, message: dict[str, Any]) -> None:
        rpc_id = message.get("id")
        entry = self._pending.get(rpc_id) if isinstance(rpc_id, int) else None  # our ids are ints
        if entry is None:
            log.info("response to an unknown or timed-out request id %r", message.get("id"))
            return
        method, future = entry
        if future.done():
            return
        error = message.get("error")
        if error is not None:
            future.set_exception(
                AppServerRpcError(method, int(error.get("code", 0)), str(error.get("message", "")), error.get("data"))
            )
        else:
            future.set_result(message.get("result"))

    # -- schema checks (validate=True) --------------------------------------------------------
    def _check(self, table: str, method: str, payload: Any, part: str | None) -> None:
        if self.validator is None:
            return
        type_name = self.validator.type_of(table, method, part or "params")
        if type_name is None:
            return
        errors = self.validator.errors(type_name, payload)
        if errors:
            text = f"{method} {part or 'notification'} breaks {type_name}: {'; '.join(errors[:3])}"
            self.schema_errors.append(text)
            if table == "client_requests" and part == "params":
                raise AppServerProtocolError(text)
            log.warning(text)

    # -- closing -----------------------------------------------------------------------------
    def _tail_text(self) -> str:
        tail = self._stderr_tail()
        return f"\n--- codex app-server stderr (last lines) ---\n{tail}" if tail else ""

    def _exited(self, message: str) -> AppServerExited:
        code = self._returncode()
        status = "" if code is None else f" (exit status {code})"
        return AppServerExited(message + status, returncode=code, stderr_tail=self._stderr_tail())

    def _close(self, error: AppServerError) -> None:
        if self.closed is not None:
            return
        self.closed = error
        for method, future in list(self._pending.values()):
            if not future.done():
                future.set_exception(
                    AppServerExited(f"{method} was pending when {error}", returncode=self._returncode(), stderr_tail="")
                )
        self._pending.clear()
        try:
            self._on_closed()
        except Exception:  # noqa: BLE001
            log.exception("on_closed callback failed")

    async def wait_closed(self) -> None:
        await asyncio.shield(self._task)

    def abort(self, error: AppServerError) -> None:
        self._close(error)
        if not self._task.done():
            self._task.cancel()
