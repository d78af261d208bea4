"""One MCP server connection, held open by an owner task (the SDK's contexts live in one task).

``start()`` spawns the owner task, which enters the transport (stdio subprocess or
streamable HTTP) and ``ClientSession``, runs ``initialize`` and ``tools/list``, then
waits until ``stop()``. Calls run from any task on the same loop. The connection's
``status`` is what people see: ``starting``, ``ready``, ``failed`` (did not start:
bad command, garbage on stdout, startup timeout), ``crashed`` (the transport closed
after start), ``stopped``. A failed or crashed server can be ``restart()``ed.

Cancelling a call abandons its request: the SDK sends ``notifications/cancelled``.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable
from typing import Any

from .config import McpServerConfig
from .errors import McpCallFailed

Status = str  # "stopped" | "starting" | "ready" | "failed" | "crashed"


class McpConnection:
    def __init__(self, config: McpServerConfig, *, on_tools_changed: Callable[[McpConnection], None] | None = None,
                 on_status: Callable[[McpConnection], None] | None = None) -> None:
        self.config = config
        self.status: Status = "stopped"
        self.error: str | None = None
        self.instructions: str | None = None
        self.server_name: str | None = None
        self.tools: list[Any] = []
        self.skipped_tools: list[str] = []
        """Listed tools that are not valid MCP tools, each with the reason (the others are kept)."""
        self._on_tools_changed = on_tools_changed
        self._on_status = on_status
        self._session: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._stderr: Any = None
        self._refresh: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        extra = f" error={self.error!r}" if self.error else ""
        return f"<McpConnection {self.config.name} {self.status} tools={len(self.tools)}{extra}>"

    # -- lifecycle ------------------------------------------------------------------
    async def start(self) -> None:
        """Start and wait for ``initialize`` + ``tools/list`` (bounded by ``startup_timeout_sec``).

        Never raises for a broken server: ``status`` becomes ``failed`` and ``error`` says why."""
        if self._owner is not None and not self._owner.done():
            return
        self._set_status("starting")
        self.error = None
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._owner = asyncio.ensure_future(self._own(ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.config.startup_timeout_sec)
        except asyncio.TimeoutError:
            await self._cancel_owner()
            self._fail("failed", f"MCP client for `{self.config.name}` timed out after "
                                 f"{self.config.startup_timeout_sec:g} seconds while starting"
                                 f"{self._stderr_tail()}")
        except Exception as err:  # the owner reported why it could not start
            await self._cancel_owner()
            self._fail("failed", f"MCP client for `{self.config.name}` failed to start: {_describe(err)}"
                                 f"{self._stderr_tail()}")

    async def stop(self) -> None:
        if self._refresh is not None:
            self._refresh.cancel()
        if self._stop is not None:
            self._stop.set()
        owner = self._owner
        if owner is not None and not owner.done():
            try:
                await asyncio.wait_for(asyncio.shield(owner), 5)
            except (asyncio.TimeoutError, Exception):
                await self._cancel_owner()
        self._session = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self.status in ("ready", "starting"):
            self._set_status("stopped")

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def _cancel_owner(self) -> None:
        owner = self._owner
        if owner is not None and not owner.done():
            owner.cancel()
            with contextlib.suppress(BaseException):
                await owner

    async def _own(self, ready: asyncio.Future[None]) -> None:
        from .lenient import lenient_session_class

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._open_transport(stack)
                session = await stack.enter_async_context(lenient_session_class()(read, write,
                                                                                  message_handler=self._on_message))
                init = await session.initialize()
                self.instructions = init.instructions
                self.server_name = init.server_info.name
                self.tools = await self._list_tools(session)
                self._session = session
                self._set_status("ready")
                if not ready.done():
                    ready.set_result(None)
                assert self._stop is not None
                await self._stop.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as err:  # noqa: BLE001 -- a server's failure must never escape into the kernel
            if not ready.done():
                ready.set_exception(Exception(_describe(err)))
            elif self.status == "ready":
                self._fail("crashed", f"MCP server `{self.config.name}` stopped: {_describe(err)}")
        finally:
            self._session = None
            if self.status == "ready" and self._stop is not None and not self._stop.is_set():
                self._fail("crashed", f"MCP server `{self.config.name}` closed its connection{self._stderr_tail()}")

    async def _open_transport(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        config = self.config
        if config.transport == "stdio":
            import os

            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = {k: os.environ[k] for k in config.env_vars if k in os.environ}
            env.update(config.env)
            params = StdioServerParameters(command=config.command or "", args=list(config.args), env=env or None,
                                           cwd=config.cwd)
            if self._stderr is not None:
                self._stderr.close()
            # A real file: the subprocess writes its stderr here; kept after exit for the status message.
            self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
            return await stack.enter_async_context(stdio_client(params, errlog=self._stderr))
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = await stack.enter_async_context(create_mcp_http_client(headers=config.headers()))
        return await stack.enter_async_context(streamable_http_client(config.url or "", http_client=client))

    async def _list_tools(self, session: Any) -> list[Any]:
        from mcp.types import PaginatedRequestParams

        tools: list[Any] = []
        cursor = None
        while True:
            page = await (session.list_tools(params=PaginatedRequestParams(cursor=cursor)) if cursor else session.list_tools())
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                self.skipped_tools = list(getattr(session, "skipped_tools", ()))
                return tools

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            self._refresh = asyncio.ensure_future(self.refresh_tools())

    async def refresh_tools(self) -> None:
        """Re-read ``tools/list`` and hand the new catalog to the owner (``tools/list_changed``)."""
        session = self._session
        if session is None:
            return
        try:
            self.tools = await asyncio.wait_for(self._list_tools(session), self.config.tool_timeout_sec)
        except Exception as err:  # noqa: BLE001
            self.error = f"MCP server `{self.config.name}`: tools/list failed after list_changed: {_describe(err)}"
            self._notify_status()
            return
        if self._on_tools_changed is not None:
            self._on_tools_changed(self)

    # -- calls ----------------------------------------------------------------------
    async def call_tool(self, name: str, arguments: dict[str, Any] | None) -> Any:
        session = self._session
        if session is None or self.status != "ready":
            raise McpCallFailed("Transport closed")
        timeout = self.config.tool_timeout_sec
        try:
            return await asyncio.wait_for(session.call_tool(name, arguments), timeout)
        except asyncio.TimeoutError:
            raise McpCallFailed(f"timed out awaiting tools/call after {timeout:g}s") from None
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001
            from mcp.shared.exceptions import MCPError

            if isinstance(err, MCPError) and self.status == "ready" and self._session is not None \
                    and "closed" not in str(err).lower():
                raise McpCallFailed(f"Mcp error: {err}") from None
            self._transport_closed(err)
            raise McpCallFailed("Transport closed") from None

    def _transport_closed(self, err: BaseException) -> None:
        """The server is gone mid-session: mark it crashed and let the owner task clean up the process."""
        if self.status == "ready":
            self._session = None
            self._fail("crashed", f"MCP server `{self.config.name}` closed its connection ({_describe(err)})"
                                  f"{self._stderr_tail()}; restart it with restart({self.config.name!r})")
        if self._stop is not None:
            self._stop.set()

    # -- status ---------------------------------------------------------------------
    def _fail(self, status: Status, message: str) -> None:
        self.error = message
        self._set_status(status)

    def _set_status(self, status: Status) -> None:
        self.status = status
        self._notify_status()

    def _notify_status(self) -> None:
        if self._on_status is not None:
            self._on_status(self)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            lines = [line for line in self._stderr.read().splitlines() if line.strip()][-5:]
        except (OSError, ValueError):
            return ""
        return ("; server stderr:\n" + "\n".join(lines)) if lines else ""


def _describe(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in err.exceptions)
    text = str(err) or type(err).__name__
    return text if isinstance(err, Exception) and type(err).__name__ in text else f"{type(err).__name__}: {text}"
