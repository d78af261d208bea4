"""``McpServers``: a session's configured MCP servers, their tools in the registry, their status.

Each server's tools are one registry source, ``mcp:{name}``, registered with
``replace_source`` so a ``tools/list_changed`` refresh swaps the whole catalog at once:
the step being planned keeps the snapshot it took, the next step sees the new tools.
With tool search on (the default, as in Codex 0.169 for models that support it) every
MCP tool is Deferred: the model finds it with ``tool_search``; otherwise Direct.

Failures never raise into the notebook: a server that does not start is ``failed``
with its reason (and contributes no tools), one that dies later is ``crashed`` (its
tools stay and answer ``Transport closed`` until ``restart(name)``). Every status
change is reported through ``on_status`` (the session's event stream gets a
``warning`` event for failures). A tool that cannot be shown (bad schema, repeated
name, a name another source owns) is skipped and the server's other tools stay: each
such problem is reported once through ``on_warning`` and kept in ``warnings``.
Tool names are Codex's, computed over every server at once (``catalog``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import ConfigError
from ..tools.exposure import ToolExposure
from .tool_list import build_catalog
from .config import McpServerConfig, parse_mcp_servers
from .connection import McpConnection
from .resources import resource_tools
from .tool import McpTool

_MAX_REPORTED = 1000  # distinct warnings remembered per server, so a hostile server cannot grow the set


RESOURCES_SOURCE = "mcp:resources"
"""The registry source of list_mcp_resources / list_mcp_resource_templates / read_mcp_resource."""


class McpServers:
    """A session's MCP servers (``[mcp_servers.NAME]`` in its config) as tool sources.

    ``async with cx.McpServers.attach(session) as servers:`` starts every enabled server, puts
    its tools in the session's registry and stops them at the end; ``servers.status()`` gives
    each server's state (``ready``, ``failed``, ``crashed``, ...), ``servers[name].error`` the
    reason of a failure and ``servers.warnings`` the tools that were skipped.
    """

    def __init__(
        self,
        registry: Any,
        servers: Iterable[McpServerConfig],
        *,
        tool_search: bool = True,
        on_status: Callable[[McpConnection], None] | None = None,
        on_warning: Callable[[str, str], None] | None = None,
        elicitor: Any = None,
    ) -> None:
        self.registry = registry
        self.exposure = ToolExposure.Deferred if tool_search else ToolExposure.Direct
        self._on_status = on_status
        self._on_warning = on_warning
        self.warnings: dict[str, list[str]] = {}
        """Per server: what is wrong with its current tool listing (skipped tools, cut descriptions)."""
        self._reported: dict[str, set[str]] = {}
        self._registered: dict[str, list[tuple[str, str, str]]] = {}
        self.connections: dict[str, McpConnection] = {}
        self.invalid: dict[str, str] = {}
        """Servers whose table did not parse (session start only): name -> the reason; shown as ``failed``."""
        self._start_task: asyncio.Future[None] | None = None
        self.startup_reported = False
        """The session-start report (``mcp_startup_complete``) has gone out: later status changes are not startup."""
        for config in servers:
            if config.name in self.connections:
                raise ConfigError(f"MCP server {config.name!r} is configured twice")
            self.connections[config.name] = McpConnection(
                config,
                on_tools_changed=self._register,
                on_status=self._status_changed,
                on_warning=self._warn,
                elicitation_callback=None if elicitor is None else elicitor.for_server(config.name),
            )

    @classmethod
    def attach(
        cls, session: Any, servers: Iterable[McpServerConfig] | None = None, *, tool_search: bool | None = None
    ) -> McpServers:
        """Servers for ``session`` (its ``[mcp_servers]`` unless ``servers`` is given); call ``await .start()``.

        A session starts its config's servers itself (``session.mcp_servers``): with no arguments this
        returns those, and ``start()`` waits for their startup. Given ``servers`` or ``tool_search``,
        this replaces them, if their startup has not begun yet (in the cell that made the session).
        Failures become ``warning`` events on the session's stream; the servers' elicitations
        are asked in the session's prompts (``mcp.elicitation.Elicitor``)."""
        own: McpServers | None = getattr(session, "mcp_servers", None)
        if own is not None:
            if servers is None and tool_search is None:
                return own
            if own.begun:
                raise ConfigError(
                    "this session already started the [mcp_servers] of its config; to choose the servers "
                    "yourself, create it with cx.Session(config, mcp_servers=False) and then call "
                    "McpServers.attach(session, ...)"
                )
        manager = cls.for_session(session, servers, tool_search=tool_search)
        if own is not None:
            session.replace_mcp_servers(manager)
        return manager

    @classmethod
    def for_session(
        cls,
        session: Any,
        servers: Iterable[McpServerConfig] | None = None,
        *,
        tool_search: bool | None = None,
        on_status: Callable[[McpConnection], None] | None = None,
    ) -> McpServers:
        """Servers reporting to ``session``'s event stream (``attach`` without the session's own check)."""
        config = session.config
        if servers is None:
            servers = parse_mcp_servers(config.extra if isinstance(config.extra, dict) else {})
        if tool_search is None:
            tool_search = bool(config.namespace_tools) and _search_tool_feature(config)

        from ..protocol.events import WarningEvent

        def report(connection: McpConnection) -> None:
            if connection.status in ("failed", "crashed") and connection.error:
                session.bus.emit(WarningEvent(message=connection.error), id=f"mcp:{connection.config.name}")
            if on_status is not None:
                on_status(connection)

        def warn(server: str, message: str) -> None:
            session.bus.emit(WarningEvent(message=message), id=f"mcp:{server}")

        from ..protocol.capabilities import capabilities_of
        from .mcp_elicitation import Elicitor

        elicitor = Elicitor(session) if capabilities_of(session).answers else None
        return cls(
            session.registry, servers, tool_search=tool_search, on_status=report, on_warning=warn, elicitor=elicitor
        )

    def __getitem__(self, name: str) -> McpConnection:
        try:
            return self.connections[name]
        except KeyError:
            raise KeyError(f"no MCP server named {name!r}; configured: {sorted(self.connections)}") from None

    def status(self) -> dict[str, str]:
        """Each configured server's state by name: ``ready``, ``failed``, ``crashed``, ..."""
        return {**{name: c.status for name, c in self.connections.items()}, **dict.fromkeys(self.invalid, "failed")}

    def errors(self) -> dict[str, str]:
        """Why each failed or crashed server is down."""
        out = {n: c.error for n, c in self.connections.items() if c.error and c.status in ("failed", "crashed")}
        return {**out, **self.invalid}

    def __repr__(self) -> str:
        rows = [
            f"  {n}: {c.status}, {len(c.tools)} tools"
            + (f" -- {c.error}" if c.error else "")
            + "".join(f"\n    warning: {w}" for w in self.warnings.get(n, ()))
            for n, c in self.connections.items()
        ]
        rows += [f"  {n}: failed -- {reason}" for n, reason in self.invalid.items()]
        return "McpServers(\n" + "\n".join(rows) + "\n)"

    @property
    def begun(self) -> bool:
        """``start()`` has been entered (the servers' processes may be running)."""
        return self._start_task is not None

    async def start(self) -> None:
        """Start every enabled server concurrently and register the tools of those that came up.

        Idempotent: a second call waits for the first startup (the session's own, at session start)."""
        if self._start_task is None:
            self._start_task = asyncio.ensure_future(self._start_all())
        await asyncio.shield(self._start_task)

    async def _start_all(self) -> None:
        if self.connections and "list_mcp_resources" not in self.registry:
            self.registry.replace_source(RESOURCES_SOURCE, resource_tools(self.connections))
        enabled = [c for c in self.connections.values() if c.config.enabled]
        await asyncio.gather(*(c.start() for c in enabled))
        self._register_safely([c.config.name for c in enabled if c.status == "ready"])

    async def restart(self, name: str) -> McpConnection:
        """Start a ``failed`` or ``crashed`` server again and register its tools if it comes up."""
        connection = self[name]
        await connection.restart()
        if connection.status == "ready":
            self._register_safely([name])
        return connection

    async def stop(self) -> None:
        """Stop every server: its process, or its HTTP session (a close during startup ends the startup too)."""
        task = self._start_task
        if task is not None and not task.done():  # a close during startup ends the startup too
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        await asyncio.gather(*(c.stop() for c in self.connections.values()))

    async def __aenter__(self) -> McpServers:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def source(self, name: str) -> str:
        """The registry source that holds server ``name``'s tools (``mcp:{name}``)."""
        return f"mcp:{name}"

    def _register(self, connection: McpConnection) -> None:
        self._register_all([connection.config.name])

    def _register_safely(self, servers: list[str]) -> None:
        try:
            self._register_all(servers)
        except Exception as err:  # noqa: BLE001 -- a server's tool list must never raise into the notebook
            for server in servers:
                self._warn(
                    server, f"MCP server `{server}`: its tools could not be registered: {type(err).__name__}: {err}"
                )

    def _register_all(self, changed: Iterable[str]) -> None:
        """Re-name every listed server's tools and replace the sources of ``changed`` servers, plus any
        whose names moved (a server that came up can make another's namespace collide)."""
        changed = set(changed)
        listed = [c for c in self.connections.values() if c.config.name in changed or c.config.name in self._registered]
        catalog = build_catalog(listed, exposure=self.exposure)
        replaced = []
        for connection in listed:
            server = connection.config.name
            tools = catalog.tools.get(server, [])
            names = [(t.tool_name.namespace, t.name, t.raw_name) for t in tools]
            self.warnings[server] = catalog.warnings.get(server, [])
            if server not in changed and self._registered.get(server) == names:
                continue
            self._registered[server] = names
            self._replace(server, tools)
            replaced.append(server)
        for server in replaced:
            for message in self.warnings.get(server, ()):
                self._warn(server, message)

    def _replace(self, server: str, tools: list[McpTool]) -> None:
        """``replace_source``, minus tools whose names another source (user tools, another server) owns."""
        source = self.source(server)
        kept = []
        for tool in tools:
            owner = self.registry.get(tool.tool_name)
            if owner is not None and owner.source != source:
                message = (
                    f"MCP server `{server}`: skipped tool {tool.raw_name!r}: its name "
                    f"{tool.tool_name.dotted!r} is already registered by {owner.source!r}"
                )
                self.warnings.setdefault(server, []).append(message)
                continue
            kept.append(tool)
        self.registry.replace_source(source, kept)

    def _warn(self, server: str, message: str) -> None:
        """Report ``message`` once per server (a refresh that lists the same bad tool stays quiet)."""
        reported = self._reported.setdefault(server, set())
        if message in reported:
            return
        if len(reported) < _MAX_REPORTED:
            reported.add(message)
        if self._on_warning is not None:
            self._on_warning(server, message)

    def _status_changed(self, connection: McpConnection) -> None:
        if self._on_status is not None:
            self._on_status(connection)


def _search_tool_feature(config: Any) -> bool:
    """``[features] search_tool`` (on unless set to false)."""
    features = config.extra.get("features", {}) if isinstance(config.extra, dict) else {}
    value = features.get("search_tool", True) if isinstance(features, dict) else True
    return value is not False
