"""Why an MCP call got no result."""

from __future__ import annotations


class McpCallFailed(Exception):
    """A call that got no result: timeout, dead transport, server not running."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
