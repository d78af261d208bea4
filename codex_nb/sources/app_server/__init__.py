"""A client for the real Codex: ``codex app-server`` over JSON-RPC 2.0 on stdio."""
