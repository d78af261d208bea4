"""Sources: adapters that bring a conversation in from outside the kernel's own turn loop.

Model providers (the Responses API), the Codex app-server client, ACP agents,
recorded rollouts and MCP servers live here. Each one stands on ``tools/``,
``events/`` and ``frontend/`` (it reuses ``EventBus`` and ``FrontendRequests``) and
implements the ``Model`` protocol (``protocol.model``) or ``events.source.EventSource``.
"""
