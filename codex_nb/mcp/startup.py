"""A session's ``[mcp_servers]`` started the way Codex starts a thread's: at session start, in the background.

Codex 0.169 launches every enabled server when the thread starts, each bounded by its
``startup_timeout_sec``, and a turn waits for that startup before its first sampling step
(so the model's first tool list already holds the servers that came up). A server that
does not come up is ``failed`` with the reason and the thread carries on; so is a server
whose table does not parse here (a missing ``command``, an unknown key): one bad table never
fails the session. Progress is reported as ``mcp_startup_update`` and ``mcp_startup_complete``
events (``events``) besides the ``warning`` a failure already gives.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .config import McpServerConfig, parse_mcp_server
from .connection import McpConnection
from .startup_events import McpStartupComplete, McpStartupFailure, McpStartupStatus, McpStartupUpdate
from .manager import McpServers

_STATES = {"starting": "starting", "ready": "ready", "failed": "failed"}


def configured_servers(config: Any) -> tuple[list[McpServerConfig], dict[str, str]]:
    """The config's servers that parse, and why each of the others does not."""
    extra = config.extra if isinstance(getattr(config, "extra", None), dict) else {}
    table = extra.get("mcp_servers", {})
    if not isinstance(table, dict):
        return [], {"mcp_servers": f"[mcp_servers] must be a table of servers, got {type(table).__name__}"}
    good: list[McpServerConfig] = []
    bad: dict[str, str] = {}
    for name, raw in list(table.items())[:1000]:
        try:
            good.append(parse_mcp_server(str(name), raw))
        except ConfigError as err:
            bad[str(name)] = str(err)
    return good, bad


def session_servers(session: Any) -> McpServers | None:
    """The manager a session starts at creation (None when its config names no server)."""
    servers, invalid = configured_servers(session.config)
    if not servers and not invalid:
        return None
    from ..protocol.events import WarningEvent

    def update(server: str, state: str, error: str | None = None) -> None:
        status = McpStartupStatus(state=state, error=error)  # type: ignore[arg-type]
        session.bus.emit(McpStartupUpdate(server=server, status=status), id=f"mcp:{server}")

    def on_status(connection: McpConnection) -> None:
        state = _STATES.get(connection.status)
        if state is not None and not manager.startup_reported:
            update(connection.config.name, state, connection.error if state == "failed" else None)

    manager = McpServers.for_session(session, servers, on_status=on_status)
    manager.invalid = invalid
    for name, reason in invalid.items():
        session.bus.emit(WarningEvent(message=f"MCP server `{name}` was not started: {reason}"), id=f"mcp:{name}")
    return manager


async def start_session_servers(session: Any, manager: McpServers) -> None:
    """Start ``manager``'s servers, then report ``mcp_startup_complete`` (once)."""
    for name, reason in manager.invalid.items():
        session.bus.emit(
            McpStartupUpdate(server=name, status=McpStartupStatus(state="failed", error=reason)), id=f"mcp:{name}"
        )
    cancelled = True
    try:
        await manager.start()
        cancelled = False
    finally:
        if not manager.startup_reported:
            manager.startup_reported = True
            status = manager.status()
            errors = manager.errors()
            failed = [
                McpStartupFailure(server=n, error=errors.get(n, "did not start"))
                for n, s in status.items()
                if s == "failed"
            ]
            ready = [n for n, s in status.items() if s == "ready"]
            rest = [n for n, s in status.items() if s not in ("ready", "failed")] if cancelled else []
            session.bus.emit(McpStartupComplete(ready=ready, failed=failed, cancelled=rest), id="mcp:startup")
