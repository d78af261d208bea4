"""``NotebookMcpServer``: the notebook tools for the real Codex (and any MCP client), served from
inside the kernel.

Streamable HTTP on 127.0.0.1 only, at a port the OS picks, behind a bearer token made for this
server (``secrets.token_urlsafe``, remembered in ``codex_nb._secrets`` so that no cassette writes
it): a request without it gets 401 before the MCP layer sees it.
The HTTP server runs on a thread of its own with its own event loop (uvicorn on the kernel's loop
would install signal handlers and put the peer's I/O on the kernel's loop); every ``tools/call``
is handed to the kernel's loop and runs through the session's own pipeline, so hooks, approvals
(in the prompts widget the approvals are routed to, see ``route_prompts_to``), lifecycle records
and bounds are the same as for codex_nb's own turns.

Everything a peer sends is bounded: a request body at 4 MiB, the tool calls running at once
(``max_calls``: one more gets a JSON-RPC error that says so, code ``BUSY``, at once instead of
queueing behind the others) and the HTTP requests in flight (``max_requests``, the open event
streams included: one more gets ``503`` with a JSON-RPC error body and ``Retry-After``); uvicorn's
own ``limit_concurrency`` (``SPARE_CONNECTIONS`` + ``MAX_WAITING`` more than that) bounds the open
connections as a last resort.
Connecting needs no token, so a connection waiting for a request head (a new one, or a kept-alive
one between requests) is what anyone can hold: it gets ``header_timeout`` seconds to send a whole
head, and at most ``MAX_WAITING`` new ones wait at once (one more closes the oldest of them); a
request without the token is answered ``401`` and its connection closed. Idle
connections thus never fill the budget above, and the token holder's requests get through while
someone holds sockets open.

Codex is pointed at it with ``codex_config()`` (an ``mcp_servers.<name>`` table: the URL and the
name of the environment variable holding the token, never the token itself) and ``env()``.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import socket
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from ..._secrets import mint_token
from ...errors import ConfigError
from ..base import Tool

if TYPE_CHECKING:
    import mcp.types as mcp_types

TOKEN_ENV_VAR = "CODEX_NB_NOTEBOOK_MCP_TOKEN"
SERVER_NAME = "notebook"
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_CALLS = 8
"""Tool calls one server runs at once; each may hold a thread (``run_code``) or wait for the page."""
MAX_REQUESTS = 32
"""HTTP requests one server has in flight (a client's open event stream is one)."""
SPARE_CONNECTIONS = 64
"""Open connections beyond ``max_requests`` (idle keep-alive ones) before uvicorn answers a bare 503."""
HEADER_TIMEOUT = 10.0
"""Seconds a connection has to send a whole request head (from connecting, or from its last answer)."""
MAX_WAITING = 64
"""New connections (no request yet) waiting for a request head at once; one more closes the oldest."""
BUSY = -32000
"""JSON-RPC error code (the implementation-defined server range) of a call over ``max_calls``."""

Dispatch = Callable[[str, dict[str, Any]], Coroutine[Any, Any, Any]]
"""``dispatch(tool_name, arguments)`` on the kernel's loop -> an object with ``item`` and ``success``."""


class NotebookMcpServer:
    """Serve ``tools`` over MCP; each call goes through ``dispatch`` on ``loop`` (the kernel's)."""

    def __init__(
        self,
        tools: list[Tool],
        dispatch: Dispatch,
        *,
        name: str = SERVER_NAME,
        max_calls: int = MAX_CALLS,
        max_requests: int = MAX_REQUESTS,
        header_timeout: float = HEADER_TIMEOUT,
    ) -> None:
        if max_calls < 1 or max_requests < 1:
            raise ConfigError(f"max_calls and max_requests must be at least 1, got {max_calls} and {max_requests}")
        if not tools:
            raise ConfigError("no notebook tools to serve: turn them on with [codex_nb.notebook_tools] enabled = true")
        self.tools = {tool.name: tool for tool in tools}
        self.name = name
        self.token = mint_token()  # remembered: no cassette writes it, whatever its characters
        self._dispatch = dispatch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._uvicorn: Any = None
        self._ready = threading.Event()
        self._error: list[BaseException] = []
        self.port = 0
        self.max_calls = max_calls
        self.max_requests = max_requests
        self.header_timeout = header_timeout
        self.in_flight = 0
        """Tool calls running now (read and written on the server thread only)."""
        self.refused = 0
        """Calls and requests turned away by the limits since the server started."""
        self.dropped = 0
        """Connections closed for sending no request head in time, or to make room for a new one."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    # -- what Codex needs ------------------------------------------------------------------
    def codex_config(self) -> dict[str, Any]:
        """Codex config overrides (``CodexAppServer(config=...)``): the server, its token by env var."""
        prefix = f"mcp_servers.{self.name}"
        return {
            f"{prefix}.url": self.url,
            f"{prefix}.bearer_token_env_var": TOKEN_ENV_VAR,
            f"{prefix}.default_tools_approval_mode": "approve",  # the approvals are codex_nb's own
        }

    def acp_config(self) -> Any:
        """The server as an ACP ``session/new`` MCP server (``AcpAgent.new_session(mcp_servers=[...])``):
        streamable HTTP with the bearer token as a header. The ACP agent must offer HTTP MCP servers
        (``agent.capabilities.mcp_capabilities.http``; codex-acp does)."""
        from acp.schema import HttpHeader, HttpMcpServer

        return HttpMcpServer(
            type="http",
            name=self.name,
            url=self.url,
            headers=[HttpHeader(name="Authorization", value=f"Bearer {self.token}")],
        )

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for the Codex process: ``base`` plus the token variable."""
        import os

        return {**(os.environ if base is None else base), TOKEN_ENV_VAR: self.token}

    # -- lifetime ----------------------------------------------------------------------------
    async def start(self) -> NotebookMcpServer:
        """Bind 127.0.0.1 and serve on the server thread; returns once it accepts connections."""
        self._loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, args=(sock,), name="codex-nb-notebook-mcp", daemon=True)
        self._thread.start()
        await asyncio.to_thread(self._ready.wait, 30)
        if self._error:
            raise RuntimeError(f"the notebook MCP server did not start: {self._error[0]}")
        return self

    async def aclose(self) -> None:
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)
            self._thread = None

    async def __aenter__(self) -> NotebookMcpServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _serve(self, sock: socket.socket) -> None:
        import uvicorn

        try:
            app = _TokenGate(
                self._mcp_app(),
                self.token,
                max_requests=self.max_requests,
                on_refused=self._count_refused,
                drain_timeout=self.header_timeout,
            )
            config = uvicorn.Config(
                app,
                log_level="warning",
                lifespan="on",
                ws="none",
                http=_head_deadline_protocol(self),
                timeout_graceful_shutdown=2,
                # a last resort counting connections too (idle keep-alive ones): the gate answers more clearly first
                limit_concurrency=self.max_requests + SPARE_CONNECTIONS + MAX_WAITING,
            )
            self._uvicorn = uvicorn.Server(config)  # off the main thread, serve() leaves the signals alone
            sock.listen(64)  # connections wait in the backlog until uvicorn accepts them
        except BaseException as err:  # noqa: BLE001  reported by start()
            self._error.append(err)
            sock.close()
            return
        finally:
            self._ready.set()
        try:
            asyncio.run(self._uvicorn.serve(sockets=[sock]))
        finally:
            sock.close()

    # -- MCP ---------------------------------------------------------------------------------
    def _mcp_app(self) -> Any:
        import mcp.types as types
        from mcp.server.lowlevel import Server
        from mcp.shared.exceptions import MCPError

        async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(
                tools=[
                    types.Tool(name=name, description=spec["description"], input_schema=spec["parameters"])
                    for name, spec in ((n, t.spec()) for n, t in self.tools.items())
                ]
            )

        async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name not in self.tools:
                return _error_result(f"unknown tool {params.name!r}; this server has {', '.join(self.tools)}")
            if self.in_flight >= self.max_calls:
                self._count_refused()
                raise MCPError(
                    code=BUSY,
                    message=(
                        f"too many notebook tool calls at once: this server runs at most {self.max_calls} "
                        f"and {self.in_flight} are running; wait for one to finish, then call {params.name} again"
                    ),
                    data={"limit": self.max_calls, "running": self.in_flight},
                )
            self.in_flight += 1
            try:
                result = await self._call(params.name, dict(params.arguments or {}))
            finally:
                self.in_flight -= 1
            return _to_mcp(result)

        server: Any = Server(self.name, on_list_tools=list_tools, on_call_tool=call_tool)
        return server.streamable_http_app(host="127.0.0.1", max_request_body_size=MAX_BODY_BYTES)

    def _count_refused(self) -> None:
        self.refused += 1

    async def _call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run on the kernel's loop; a dropped request cancels the call there too."""
        assert self._loop is not None
        future: Any = asyncio.run_coroutine_threadsafe(self._dispatch(name, arguments), self._loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise


def _head_deadline_protocol(server: NotebookMcpServer) -> type[Any]:
    """uvicorn's h11 protocol, each connection given ``server.header_timeout`` to send a request head
    and at most ``MAX_WAITING`` new ones (no request yet) waiting at once, the oldest closed first.
    A kept-alive connection has had an authorised request (a refused one is closed with its answer),
    so it is only timed, never closed to make room (the server thread's loop only: no lock)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    timers: dict[H11Protocol, asyncio.TimerHandle] = {}
    new: dict[H11Protocol, None] = {}  # insertion order: the oldest first

    def drop(conn: H11Protocol) -> None:
        release(conn)
        server.dropped += 1
        conn.transport.close()

    def release(conn: H11Protocol) -> None:
        new.pop(conn, None)
        timer = timers.pop(conn, None)
        if timer is not None:
            timer.cancel()

    def wait(conn: H11Protocol, *, first: bool) -> None:
        release(conn)
        if first:
            while len(new) >= MAX_WAITING:
                drop(next(iter(new)))
            new[conn] = None
        timers[conn] = conn.loop.call_later(server.header_timeout, drop, conn)

    class HeadDeadline(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            wait(self, first=True)

        def data_received(self, data: bytes) -> None:
            cycle = self.cycle
            super().data_received(data)
            if self.cycle is not cycle:  # a whole head arrived: the request runs
                release(self)

        def on_response_complete(self) -> None:
            cycle = self.cycle
            super().on_response_complete()
            if self.cycle is cycle and not self.transport.is_closing():  # kept alive: waits for the next head
                wait(self, first=False)

        def connection_lost(self, exc: Exception | None) -> None:
            release(self)
            super().connection_lost(exc)

    return HeadDeadline


class _TokenGate:
    """ASGI: 401 unless ``Authorization: Bearer <token>`` (compared in constant time); 503 with a
    JSON-RPC error body when ``max_requests`` authorised requests are already in flight."""

    def __init__(
        self,
        app: Any,
        token: str,
        *,
        max_requests: int,
        on_refused: Callable[[], None],
        drain_timeout: float = HEADER_TIMEOUT,
    ) -> None:
        self.app = app
        self.drain_timeout = drain_timeout
        self._expected = f"Bearer {token}".encode()
        self.max_requests = max_requests
        self.open = 0
        """Authorised HTTP requests in flight (the server thread's loop only: no lock)."""
        self._on_refused = on_refused

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await _drain(receive, self.drain_timeout)
                # closed with the answer: a connection without the token is never kept alive
                headers = [(b"content-type", b"text/plain"), (b"connection", b"close")]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
            if self.open >= self.max_requests:
                self._on_refused()
                await _drain(receive, self.drain_timeout)
                await _busy(send, self.max_requests)
                return
            self.open += 1
            try:
                await self.app(scope, receive, send)
            finally:
                self.open -= 1
            return
        await self.app(scope, receive, send)


async def _drain(receive: Any, timeout: float) -> None:
    """Read and drop a refused request's body (at most ``MAX_BODY_BYTES``, within ``timeout``) before
    answering it. A socket closed with bytes of the request still unread sends a TCP reset, which can
    reach the client before the answer and turn a plain 401 into a connection error on its side."""
    read = 0

    async def body() -> None:
        nonlocal read
        while read <= MAX_BODY_BYTES:
            message = await receive()
            read += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body", False):
                return

    try:
        await asyncio.wait_for(body(), timeout)
    except TimeoutError:
        pass  # a client that stalls mid-body loses its answer rather than holding the connection


async def _busy(send: Any, limit: int) -> None:
    import json

    message = (
        f"too many requests in flight to the notebook MCP server: it takes at most {limit} at once "
        "(open event streams included); retry after one has finished"
    )
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": BUSY, "message": message, "data": {"limit": limit}}}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"retry-after", b"1")]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _error_result(text: str) -> mcp_types.CallToolResult:
    import mcp.types as types

    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _to_mcp(result: Any) -> mcp_types.CallToolResult:
    """A codex_nb call result (its output item) as an MCP ``CallToolResult``."""
    import mcp.types as types

    item = result.item or {}
    body = item.get("output", result.output)
    parts = [{"type": "input_text", "text": body}] if isinstance(body, str) else list(body)
    content: list[Any] = []
    for part in parts:
        if part.get("type") == "input_image" and str(part.get("image_url", "")).startswith("data:"):
            header, _, data = part["image_url"].partition(",")
            mime = header.removeprefix("data:").split(";", 1)[0]
            base64.b64decode(data, validate=True)
            content.append(types.ImageContent(type="image", data=data, mime_type=mime))
        elif part.get("type") == "input_text":
            content.append(types.TextContent(type="text", text=str(part.get("text", ""))))
    return types.CallToolResult(content=content, is_error=result.success is False)
