"""One MCP server connection, held open by an owner task (the SDK's contexts live in one task).

``start()`` spawns the owner task, which enters the transport (stdio subprocess or
streamable HTTP) and ``ClientSession``, runs ``initialize`` and ``tools/list``, then
waits until ``stop()``. As in Codex, ``startup_timeout_sec`` bounds each of those steps on
its own, and the SDK's first import (seconds on a loaded machine) happens in a worker
thread before any clock starts: a server is never failed for the client's own slowness. Calls run from any task on the same loop. The connection's
``status`` is what people see: ``starting``, ``ready``, ``failed`` (did not start:
bad command, garbage on stdout, startup timeout), ``crashed`` (the transport closed
after start), ``stopped``. A failed or crashed server can be ``restart()``ed.

Cancelling a call abandons its request: the SDK sends ``notifications/cancelled``.

``notifications/tools/list_changed`` is coalesced: one refresh task re-reads
``tools/list`` while notifications keep arriving, and at most one more read is queued
behind it, however fast the server sends them. A listing is bounded as in Codex
(``MAX_TOOLS``, ``MAX_LIST_PAGES``, ``MAX_CURSOR_CHARS``): past a bound the server fails
to start with a message that names it (a refresh past it keeps the old tools).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable
from typing import Any

from .config import McpServerConfig
from .mcp_errors import McpCallFailed

Status = str  # "stopped" | "starting" | "ready" | "failed" | "crashed"

# Codex's bounds on a listing (``codex-rs/codex-mcp/src/pagination.rs``); the pinned binary does not
# start a server that lists more than 2,048 tools.
MAX_TOOLS = 2_048
"""Tools one server may list."""
MAX_LIST_PAGES = 100
"""``tools/list`` pages one listing may take (a server could hand out cursors forever)."""
MAX_CURSOR_CHARS = 64 * 1024
"""Length of one pagination cursor."""


class ListingTooLarge(Exception):
    """A ``tools/list`` beyond Codex's bounds: the server does not start (or keeps its old tools)."""


class StartupTimedOut(Exception):
    """One startup step (transport, ``initialize``, ``tools/list``) outlasted ``startup_timeout_sec``."""


_sdk_imported = False


def _import_sdk() -> None:
    from mcp.client.stdio import stdio_client  # noqa: F401
    from mcp.client.streamable_http import streamable_http_client  # noqa: F401
    from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: F401
    from mcp.shared.exceptions import MCPError  # noqa: F401
    from mcp.types import PaginatedRequestParams  # noqa: F401

    from .lenient import lenient_session_class

    lenient_session_class()


async def import_sdk() -> None:
    """Import the ``mcp`` SDK off the event loop, once: its first import took longer than a
    startup timeout on a loaded machine, and counted against the first server to start."""
    global _sdk_imported
    if not _sdk_imported:
        await asyncio.to_thread(_import_sdk)
        _sdk_imported = True


def startup_timeout_message(name: str, seconds: float) -> str:
    """Codex's words for a server that did not start in time (``codex-mcp``), on one line."""
    return (
        f"MCP client for `{name}` timed out after {seconds:g} seconds. Add or adjust "
        f"`startup_timeout_sec` in your config.toml: [mcp_servers.{name}] startup_timeout_sec = XX"
    )


class McpConnection:
    def __init__(
        self,
        config: McpServerConfig,
        *,
        on_tools_changed: Callable[[McpConnection], None] | None = None,
        on_status: Callable[[McpConnection], None] | None = None,
        on_warning: Callable[[str, str], None] | None = None,
        elicitation_callback: Any = None,
    ) -> None:
        self.config = config
        self._elicitation_callback = elicitation_callback
        """The SDK's elicitation callback (given: the client declares form and URL elicitations)."""
        self.status: Status = "stopped"
        self.error: str | None = None
        self.instructions: str | None = None
        self.server_name: str | None = None
        self.tools: list[Any] = []
        self.skipped_tools: list[str] = []
        """Listed tools that are not valid MCP tools, each with the reason (the others are kept)."""
        self._on_tools_changed = on_tools_changed
        self._on_status = on_status
        self._on_warning = on_warning
        self._session: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._stderr: Any = None
        self._refresh: asyncio.Task[None] | None = None
        self._refresh_queued = False

    def __repr__(self) -> str:
        extra = f" error={self.error!r}" if self.error else ""
        return f"<McpConnection {self.config.name} {self.status} tools={len(self.tools)}{extra}>"

    # -- lifecycle ------------------------------------------------------------------
    async def start(self) -> None:
        """Start and wait for ``initialize`` + ``tools/list`` (each bounded by ``startup_timeout_sec``).

        Never raises for a broken server: ``status`` becomes ``failed`` and ``error`` says why."""
        if self._owner is not None and not self._owner.done():
            return
        self._set_status("starting")
        self.error = None
        await import_sdk()  # before the clock: the first import is the client's cost, not the server's
        if self._owner is not None and not self._owner.done():
            return  # a concurrent start() got there during the import
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._owner = owner = asyncio.ensure_future(self._own(ready))
        try:
            # every step in the owner is bounded; the owner ending without an answer is a failure too
            await asyncio.wait([ready, owner], return_when=asyncio.FIRST_COMPLETED)
            if not ready.done():
                raise RuntimeError("the connection task ended before the server started")
            ready.result()
        except StartupTimedOut:
            await self._cancel_owner()
            self._fail(
                "failed",
                startup_timeout_message(self.config.name, self.config.startup_timeout_sec) + self._stderr_tail(),
            )
        except Exception as err:  # the owner reported why it could not start
            await self._cancel_owner()
            self._fail(
                "failed", f"MCP client for `{self.config.name}` failed to start: {_describe(err)}{self._stderr_tail()}"
            )

    async def stop(self) -> None:
        refresh, self._refresh, self._refresh_queued = self._refresh, None, False
        if refresh is not None and not refresh.done():
            refresh.cancel()
            await asyncio.wait([refresh])  # reaps it without swallowing a cancellation of stop() itself
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
                async with self._step():
                    read, write = await self._open_transport(stack)
                options: dict[str, Any] = {"message_handler": self._on_message}
                if self._elicitation_callback is not None:
                    options["elicitation_callback"] = self._elicitation_callback
                session = await stack.enter_async_context(lenient_session_class()(read, write, **options))
                async with self._step():
                    init = await session.initialize()
                self.instructions = init.instructions
                self.server_name = init.server_info.name
                async with self._step():
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
                kind = next((k for k in (ListingTooLarge, StartupTimedOut) if _leaves(err, k)), Exception)
                ready.set_exception(kind(_describe(err)))
            elif self.status == "ready":
                self._fail("crashed", f"MCP server `{self.config.name}` stopped: {_describe(err)}")
        finally:
            self._session = None
            if self.status == "ready" and self._stop is not None and not self._stop.is_set():
                self._fail("crashed", f"MCP server `{self.config.name}` closed its connection{self._stderr_tail()}")

    @contextlib.asynccontextmanager
    async def _step(self) -> Any:
        """One startup step, bounded by ``startup_timeout_sec`` as Codex bounds each (in this task:
        the SDK's cancel scopes must be left in the task that entered them)."""
        try:
            async with asyncio.timeout(self.config.startup_timeout_sec):
                yield
        except TimeoutError:
            raise StartupTimedOut(startup_timeout_message(self.config.name, self.config.startup_timeout_sec)) from None

    async def _open_transport(self, stack: contextlib.AsyncExitStack) -> tuple[Any, Any]:
        config = self.config
        if config.transport == "stdio":
            import os

            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = {k: os.environ[k] for k in config.env_vars if k in os.environ}
            env.update(config.env)
            params = StdioServerParameters(
                command=config.command or "", args=list(config.args), env=env or None, cwd=config.cwd
            )
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

        name = self.config.name
        tools: list[Any] = []
        cursor = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await (session.list_tools(params=params) if params else session.list_tools())
            tools.extend(page.tools)
            if len(tools) > MAX_TOOLS:
                raise ListingTooLarge(
                    f"MCP server `{name}` lists more than {MAX_TOOLS:,} tools (Codex's limit); "
                    f"use enabled_tools to pick the ones you need and ask the server to list fewer"
                )
            cursor = page.next_cursor
            if not cursor:
                self.skipped_tools = list(getattr(session, "skipped_tools", ()))
                return tools
            if len(cursor) > MAX_CURSOR_CHARS:
                raise ListingTooLarge(
                    f"MCP server `{name}` sent a tools/list cursor of {len(cursor):,} characters "
                    f"(the limit is {MAX_CURSOR_CHARS:,})"
                )
            if cursor in seen:
                raise ListingTooLarge(
                    f"MCP server `{name}` repeated the tools/list cursor {cursor[:40]!r}; its listing would never end"
                )
            seen.add(cursor)
        raise ListingTooLarge(
            f"MCP server `{name}`: tools/list takes more than {MAX_LIST_PAGES} pages (Codex's "
            f"limit); the listing is refused"
        )

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            return
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            self._request_refresh()

    def _request_refresh(self) -> None:
        """Coalesce: one refresh task at a time; notifications during it queue exactly one more read."""
        if self._refresh is not None and not self._refresh.done():
            self._refresh_queued = True
            return
        self._refresh_queued = False
        self._refresh = asyncio.ensure_future(self._refresh_loop())

    async def _refresh_loop(self) -> None:
        while True:
            await self.refresh_tools()
            if not self._refresh_queued:
                return
            self._refresh_queued = False

    async def refresh_idle(self) -> None:
        """Wait until no ``tools/list_changed`` refresh is running or queued."""
        while self._refresh is not None and not self._refresh.done():
            await asyncio.wait([self._refresh])  # a refresh cancelled by stop() ends the wait, not the waiter

    async def refresh_tools(self) -> None:
        """Re-read ``tools/list`` and hand the new catalog to the owner (``tools/list_changed``)."""
        session = self._session
        if session is None:
            return
        try:
            self.tools = await asyncio.wait_for(self._list_tools(session), self.config.tool_timeout_sec)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001
            self.error = f"MCP server `{self.config.name}`: tools/list failed after list_changed: {_describe(err)}"
            self._notify_status()
            return
        if self._on_tools_changed is not None:
            try:
                self._on_tools_changed(self)
            except Exception as err:  # noqa: BLE001 -- a task's exception would only reach the loop's log
                self._warn(
                    f"MCP server `{self.config.name}`: its new tool list could not be registered: {_describe(err)}"
                )

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

            if (
                isinstance(err, MCPError)
                and self.status == "ready"
                and self._session is not None
                and "closed" not in str(err).lower()
            ):
                raise McpCallFailed(f"Mcp error: {err}") from None
            self._transport_closed(err)
            raise McpCallFailed("Transport closed") from None

    def _transport_closed(self, err: BaseException) -> None:
        """The server is gone mid-session: mark it crashed and let the owner task clean up the process."""
        if self.status == "ready":
            self._session = None
            self._fail(
                "crashed",
                f"MCP server `{self.config.name}` closed its connection ({_describe(err)})"
                f"{self._stderr_tail()}; restart it with restart({self.config.name!r})",
            )
        if self._stop is not None:
            self._stop.set()

    # -- status ---------------------------------------------------------------------
    def _fail(self, status: Status, message: str) -> None:
        self.error = message
        self._set_status(status)

    def _set_status(self, status: Status) -> None:
        self.status = status
        self._notify_status()

    def _warn(self, message: str) -> None:
        if self._on_warning is not None:
            self._on_warning(self.config.name, message)

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


def _leaves(err: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``err``, or an exception inside it (task groups wrap them), is a ``kind``."""
    if isinstance(err, BaseExceptionGroup):
        return any(_leaves(e, kind) for e in err.exceptions)
    return isinstance(err, kind)


def _describe(err: BaseException) -> str:
    if isinstance(err, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in err.exceptions)
    if isinstance(err, ListingTooLarge):
        return str(err)
    text = str(err) or type(err).__name__
    return text if isinstance(err, Exception) and type(err).__name__ in text else f"{type(err).__name__}: {text}"
