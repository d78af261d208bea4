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
``warning`` event for failures).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from ...errors import ConfigError, ToolDefinitionError
from ...tools.exposure import ToolExposure
from .config import McpServerConfig, parse_mcp_servers
from .connection import McpConnection
from .resources import resource_tools
from .tool import McpTool


RESOURCES_SOURCE = "mcp:resources"
"""The registry source of list_mcp_resources / list_mcp_resource_templates / read_mcp_resource."""


class McpServers:
    def __init__(self, registry: Any, servers: Iterable[McpServerConfig], *, tool_search: bool = True,
                 on_status: Callable[[McpConnection], None] | None = None,
                 on_warning: Callable[[str, str], None] | None = None) -> None:
        self.registry = registry
        self.exposure = ToolExposure.Deferred if tool_search else ToolExposure.Direct
        self._on_status = on_status
        self._on_warning = on_warning
        self.connections: dict[str, McpConnection] = {}
        for config in servers:
            if config.name in self.connections:
                raise ConfigError(f"MCP server {config.name!r} is configured twice")
            self.connections[config.name] = McpConnection(config, on_tools_changed=self._register,
                                                          on_status=self._status_changed)

    @classmethod
    def attach(cls, session: Any, servers: Iterable[McpServerConfig] | None = None, *,
               tool_search: bool | None = None) -> McpServers:
        """Servers for ``session`` (its ``[mcp_servers]`` unless ``servers`` is given); call ``await .start()``.

        Failures become ``warning`` events on the session's stream."""
        config = session.config
        if servers is None:
            servers = parse_mcp_servers(config.extra if isinstance(config.extra, dict) else {})
        if tool_search is None:
            tool_search = bool(config.namespace_tools) and _search_tool_feature(config)

        def report(connection: McpConnection) -> None:
            if connection.status in ("failed", "crashed") and connection.error:
                from ...protocol.events import WarningEvent

                session.bus.emit(WarningEvent(message=connection.error), id=f"mcp:{connection.config.name}")

        def warn(server: str, text: str) -> None:
            from ...protocol.events import WarningEvent

            session.bus.emit(WarningEvent(message=text), id=f"mcp:{server}")

        return cls(session.registry, servers, tool_search=tool_search, on_status=report, on_warning=warn)

    def __getitem__(self, name: str) -> McpConnection:
        try:
            return self.connections[name]
        except KeyError:
            raise KeyError(f"no MCP server named {name!r}; configured: {sorted(self.connections)}") from None

    def status(self) -> dict[str, str]:
        return {name: c.status for name, c in self.connections.items()}

    def __repr__(self) -> str:
        rows = [f"  {n}: {c.status}, {len(c.tools)} tools" + (f" -- {c.error}" if c.error else "")
                for n, c in self.connections.items()]
        return "McpServers(\n" + "\n".join(rows) + "\n)"

    async def start(self) -> None:
        """Start every enabled server concurrently and register the tools of those that came up."""
        if self.connections and "list_mcp_resources" not in self.registry:
            self.registry.replace_source(RESOURCES_SOURCE, resource_tools(self.connections))
        enabled = [c for c in self.connections.values() if c.config.enabled]
        await asyncio.gather(*(c.start() for c in enabled))
        for connection in enabled:
            if connection.status == "ready":
                self._register(connection)

    async def restart(self, name: str) -> McpConnection:
        connection = self[name]
        await connection.restart()
        if connection.status == "ready":
            self._register(connection)
        return connection

    async def stop(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()))

    async def __aenter__(self) -> McpServers:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def source(self, name: str) -> str:
        return f"mcp:{name}"

    def _register(self, connection: McpConnection) -> None:
        config = connection.config
        skipped = list(connection.skipped_tools)
        tools = []
        for raw in connection.tools:
            if not config.allows(raw.name):
                continue
            try:
                tools.append(McpTool(connection, raw, exposure=self.exposure))
            except ToolDefinitionError as err:  # Codex skips a tool whose inputSchema it cannot take
                skipped.append(f"tool {raw.name[:80]!r}: {err}")
        self.registry.replace_source(self.source(config.name), tools)
        for reason in skipped:
            self._warn(config.name, f"MCP server `{config.name}`: skipped {reason}; its other tools are available")

    def _warn(self, server: str, text: str) -> None:
        if self._on_warning is not None:
            self._on_warning(server, text)

    def _status_changed(self, connection: McpConnection) -> None:
        if self._on_status is not None:
            self._on_status(connection)


def _search_tool_feature(config: Any) -> bool:
    """``[features] search_tool`` (on unless set to false)."""
    features = config.extra.get("features", {}) if isinstance(config.extra, dict) else {}
    value = features.get("search_tool", True) if isinstance(features, dict) else True
    return value is not False
