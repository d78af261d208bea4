"""Every MCP server's listed tools turned into ``McpTool``s, one bad tool at a time.

A server's ``tools/list`` is untrusted input: a tool whose schema cannot be converted,
whose name repeats, or whose description is huge must not take the other tools (or the
notebook) down with it. ``build_catalog`` names all servers' tools together (Codex
names them across servers: two servers can share a namespace after sanitising), skips
each tool that cannot be shown with a warning naming the server, the tool and the
reason, and cuts over-long descriptions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from .._records import record
from ..tools.exposure import ToolExposure
from ..errors import ToolDefinitionError
from ..tools.input_schema import parse_mcp_input_schema
from .naming import model_names
from .schema_guard import check_input_schema
from .tool import McpTool

if TYPE_CHECKING:
    from .connection import McpConnection

MAX_TOOL_DESCRIPTION_CHARS = 64 * 1024
"""A tool description or title longer than this is cut (with ``\\n[truncated]``) and a warning says so.
Codex 0.169 sends descriptions whole; this bound is ours, far above any real tool's."""
_TRUNCATED = "\n[truncated]"


@record(kw_only=True)
class Catalog:
    """The tools to register per server, and what was wrong with the rest."""

    tools: dict[str, list[McpTool]] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)

    def warn(self, server: str, message: str) -> None:
        self.warnings.setdefault(server, []).append(message)


def skipped_tool(server: str, tool: str, reason: str) -> str:
    return f"MCP server `{server}`: skipped tool {tool!r}: {reason}; its other tools are available"


def build_catalog(connections: Iterable[McpConnection], *, exposure: ToolExposure) -> Catalog:
    """Tools of every connection that has a listing (ready, or crashed with its last listing)."""
    catalog = Catalog()
    listed: dict[tuple[str, str], tuple[McpConnection, Any]] = {}
    order: list[tuple[str, str]] = []
    for connection in connections:
        server = connection.config.name
        catalog.tools[server] = []
        for reason in connection.skipped_tools:  # tools the listing itself could not carry
            catalog.warn(server, f"MCP server `{server}`: skipped {reason}; its other tools are available")
        for raw in connection.tools:
            if not connection.config.allows(raw.name):
                continue
            order.append((server, raw.name))
            listed.setdefault((server, raw.name), (connection, raw))  # Codex keeps the first of a repeated name
    named, skipped = model_names(order)
    for dup in skipped:
        catalog.warn(dup.server, skipped_tool(dup.server, dup.raw_name, dup.reason))
    by_raw = {(n.server, n.raw_name): n for n in named}
    for key, (connection, raw) in listed.items():  # the server's listing order, as registered before
        name = by_raw[key]
        tool = _tool(connection, raw, name.namespace, name.name, exposure, catalog)
        if tool is not None:
            catalog.tools[name.server].append(tool)
    return catalog


def _tool(
    connection: McpConnection, raw: Any, namespace: str, name: str, exposure: ToolExposure, catalog: Catalog
) -> McpTool | None:
    server = connection.config.name
    schema = raw.input_schema if isinstance(raw.input_schema, dict) else {"type": "object"}
    reason = check_input_schema(schema)
    if reason is None:
        try:
            parameters = parse_mcp_input_schema(schema)
        except ToolDefinitionError as err:  # Codex leaves out a tool whose inputSchema it refuses
            reason = str(err)
        except Exception as err:  # noqa: BLE001 -- the guard's net: any conversion failure skips this tool only
            reason = f"its inputSchema cannot be converted ({type(err).__name__}: {err})"
    if reason is not None:
        catalog.warn(server, skipped_tool(server, raw.name, reason))
        return None
    description = _bounded(catalog, server, raw.name, "description", raw.description or "")
    title = getattr(raw, "title", None)
    if title is not None:
        title = _bounded(catalog, server, raw.name, "title", title)
    return McpTool(
        connection,
        raw,
        exposure=exposure,
        namespace=namespace,
        name=name,
        description=description,
        parameters=parameters,
        title=title,
    )


def _bounded(catalog: Catalog, server: str, tool: str, field: str, text: str) -> str:
    """``text`` cut to ``MAX_TOOL_DESCRIPTION_CHARS`` (it feeds the spec and the search index), with a warning."""
    if len(text) <= MAX_TOOL_DESCRIPTION_CHARS:
        return text
    catalog.warn(
        server,
        f"MCP server `{server}`: the {field} of tool {tool!r} has {len(text):,} characters; only "
        f"the first {MAX_TOOL_DESCRIPTION_CHARS:,} are shown to the model",
    )
    return text[: MAX_TOOL_DESCRIPTION_CHARS - len(_TRUNCATED)] + _TRUNCATED
