"""MCP servers as tool sources, run with the official ``mcp`` Python SDK (Codex ``codex-rs/rmcp-client``)."""
