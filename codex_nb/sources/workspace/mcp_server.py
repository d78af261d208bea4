"""``NotebookMcpServer``: the notebook tools for the real Codex (and any MCP client), served from
inside the kernel.

Streamable HTTP on 127.0.0.1 only, at a port the OS picks, behind a bearer token made for this
server (``secrets.token_urlsafe``): a request without it gets 401 before the MCP layer sees it.
The HTTP server runs on a thread of its own with its own event loop (uvicorn on the kernel's loop
would install signal handlers and put the peer's I/O on the kernel's loop); every ``tools/call``
is handed to the kernel's loop and runs through the session's own pipeline, so hooks, approvals
(in the prompts widget the approvals are routed to, see ``route_prompts_to``), lifecycle records
and bounds are the same as for codex_nb's own turns.

Codex is pointed at it with ``codex_config()`` (an ``mcp_servers.<name>`` table: the URL and the
name of the environment variable holding the token, never the token itself) and ``env()``.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import secrets
import socket
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from ...errors import ConfigError
from ...tools.base import Tool

if TYPE_CHECKING:
    import mcp.types as mcp_types

TOKEN_ENV_VAR = "CODEX_NB_NOTEBOOK_MCP_TOKEN"
SERVER_NAME = "notebook"
MAX_BODY_BYTES = 4 * 1024 * 1024

Dispatch = Callable[[str, dict[str, Any]], Coroutine[Any, Any, Any]]
"""``dispatch(tool_name, arguments)`` on the kernel's loop -> an object with ``item`` and ``success``."""


class NotebookMcpServer:
    """Serve ``tools`` over MCP; each call goes through ``dispatch`` on ``loop`` (the kernel's)."""

    def __init__(self, tools: list[Tool], dispatch: Dispatch, *, name: str = SERVER_NAME) -> None:
        if not tools:
            raise ConfigError("no notebook tools to serve: turn them on with [codex_nb.notebook_tools] enabled = true")
        self.tools = {tool.name: tool for tool in tools}
        self.name = name
        self.token = secrets.token_urlsafe(32)
        self._dispatch = dispatch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._uvicorn: Any = None
        self._ready = threading.Event()
        self._error: list[BaseException] = []
        self.port = 0

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
            app = _TokenGate(self._mcp_app(), self.token)
            config = uvicorn.Config(app, log_level="warning", lifespan="on", ws="none", timeout_graceful_shutdown=2)
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
            result = await self._call(params.name, dict(params.arguments or {}))
            return _to_mcp(result)

        server: Any = Server(self.name, on_list_tools=list_tools, on_call_tool=call_tool)
        return server.streamable_http_app(host="127.0.0.1", max_request_body_size=MAX_BODY_BYTES)

    async def _call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run on the kernel's loop; a dropped request cancels the call there too."""
        assert self._loop is not None
        future: Any = asyncio.run_coroutine_threadsafe(self._dispatch(name, arguments), self._loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise


class _TokenGate:
    """ASGI: 401 unless ``Authorization: Bearer <token>`` (compared in constant time)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await send(
                    {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token\n"})
                return
        await self.app(scope, receive, send)


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
