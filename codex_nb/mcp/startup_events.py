"""The events a session's MCP startup reports, in Codex's core shapes.

Codex starts a thread's ``[mcp_servers]`` in the background when the thread starts and
reports each server's progress as ``mcp_startup_update`` (``{"server", "status": {"state":
"starting" | "ready" | "failed" (with "error") | "cancelled"}}``) and the end of it as
``mcp_startup_complete`` (``ready``, ``failed`` with each error, ``cancelled``): the
``McpStartupUpdateEvent`` / ``McpStartupCompleteEvent`` of codex-rs/protocol/src/protocol.rs
upstream. codex_nb emits the same two on the session's event stream.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_serializer

from ..protocol.events import EventMsg

StartupState = Literal["starting", "ready", "failed", "cancelled"]


class McpStartupStatus(BaseModel):
    """``{"state": ...}``, with ``error`` only for ``failed`` (Codex's tagged enum has no other field)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")
    state: StartupState
    error: str | None = None

    @model_serializer
    def _wire(self) -> dict[str, str]:
        return {"state": self.state} if self.error is None else {"state": self.state, "error": self.error}


class McpStartupUpdate(EventMsg):
    """``mcp_startup_update``: one server's startup state changed."""

    type: Literal["mcp_startup_update"] = "mcp_startup_update"
    server: str
    status: McpStartupStatus


class McpStartupFailure(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")
    server: str
    error: str


class McpStartupComplete(EventMsg):
    """``mcp_startup_complete``: every configured server has started, failed or been cancelled."""

    type: Literal["mcp_startup_complete"] = "mcp_startup_complete"
    ready: list[str]
    failed: list[McpStartupFailure]
    cancelled: list[str]
