"""Sources: adapters that bring a conversation in from outside the kernel's own turn loop.

Model providers (the Responses API), the Codex app-server client, ACP agents,
recorded rollouts and MCP servers live here. Each one stands on ``tools/``,
``events/`` and ``frontend/`` (it reuses ``EventBus`` and ``FrontendRequests``) and
implements the ``Model`` protocol (``protocol.model``) or ``events.source.EventSource``.

Modules:

* ``acp/``: an ACP client: any ACP agent as an event source.
* ``app_server/``: the real ``codex app-server`` over JSON-RPC.
* ``cassettes/``: sessions recorded to a file once and replayed offline (the generic core).
* ``mcp/``: MCP servers as tool sources.
* ``npm_binary``: the native executable an npm package ships.
* ``replay``: a saved session's plan history as an event source.
* ``responses/``: a real Responses-API model provider.
* ``rpc_cassette/``: cassettes for the agents over JSON-RPC (the app-server, ACP agents).
* ``rollout``: Codex's saved sessions.
* ``rollout_lines``: bounded reading of a rollout file's lines.
* ``sessions``: a Codex home's saved sessions listed fast (``cx.codex_sessions``).
* ``workspace/``: the notebook tools (read, run and edit the live notebook).

Layer: above ``tools/`` (which it may import, with everything below), beside ``hooks/`` and
``code_mode/``; ``runtime/`` and the layers above may import it.
"""
