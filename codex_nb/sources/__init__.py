"""Adapters that bring tools and turns from outside: model providers, Codex app-server, ACP, MCP."""
