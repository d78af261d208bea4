"""MCP servers as tool sources: ``McpServers`` (also ``cx.McpServers``) starts the ``[mcp_servers]``
of a config with the official ``mcp`` SDK and puts their tools in a session.
"""

from .sources.mcp.manager import McpServers

__all__ = [
    "McpServers",
]
