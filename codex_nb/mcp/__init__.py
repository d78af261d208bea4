"""MCP servers as tool sources, run with the official ``mcp`` Python SDK (Codex ``codex-rs/rmcp-client``).

Modules:

* ``tool_list``: a server's listed tools, one bad tool at a time.
* ``config``: ``[mcp_servers.NAME]`` tables.
* ``connection``: one connection held open by its owner task.
* ``mcp_elicitation``: the servers' elicitations asked in the session's prompts.
* ``mcp_errors``: why an MCP call got no result.
* ``startup_events``: ``mcp_startup_update`` / ``mcp_startup_complete``, the startup a session reports.
* ``lenient``: a ``ClientSession`` that reads what Codex 0.169 accepts.
* ``manager``: ``McpServers``: a session's servers, tools and status.
* ``startup``: a session's ``[mcp_servers]`` started at session start, in the background.
* ``naming``: model-visible MCP tool names by Codex's rules.
* ``resources``: the MCP resource tools.
* ``results``: ``tools/call`` results as Codex's outputs.
* ``schema_guard``: bounds on a server's ``inputSchema``.
* ``tool``: one MCP tool as a codex_nb ``Tool``.

Layer: an adapter, with ``app_server/``, ``acp/``, ``responses/``, ``mcp/``, ``rollouts/`` and
``cassettes/`` (above ``tools/``, which it may import with everything below); ``runtime/`` and the
layers above may import it.
"""
