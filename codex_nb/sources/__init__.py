"""Adapters for real event sources: model providers, the Codex app-server, ACP agents, rollouts."""
