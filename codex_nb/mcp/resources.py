"""The MCP resource helpers Codex 0.169 gives the model: ``list_mcp_resources``,
``list_mcp_resource_templates`` and ``read_mcp_resource`` (``codex-rs/core/src/tools/handlers/mcp_resource.rs``).

Specs and outputs as the binary sends them: JSON text with camelCase MCP fields, each
resource prefixed by its ``server``; errors ``unknown MCP server 'x'`` and
``resources/read failed: resources/read failed for `server` (uri): Mcp error: CODE: MESSAGE(DATA)``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..tools.arguments import parse_object
from ..tools.base import Tool
from ..tools.tool_errors import RespondToModel
from ..tools.invocation import ToolInvocation
from ..tools.payload import ToolOutput
from ..tools.schema import function_spec

if TYPE_CHECKING:
    from .connection import McpConnection

_FIRST = ("server", "uri", "uriTemplate", "name", "title", "description", "mimeType")


def _ordered(server: str, dumped: dict[str, Any]) -> dict[str, Any]:
    item = {"server": server, **dumped}
    return {**{k: item[k] for k in _FIRST if k in item}, **{k: v for k, v in item.items() if k not in _FIRST}}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _mcp_error(err: BaseException) -> str:
    error = getattr(err, "error", None)
    if error is None:
        return str(err)
    data = "" if error.data is None else f"({_json(error.data)})"
    return f"Mcp error: {error.code}: {error.message}{data}"


class _ResourceTool(Tool):
    def __init__(self, name: str, connections: dict[str, McpConnection]) -> None:
        super().__init__(name, supports_parallel=True)
        self.connections = connections  # the manager's live mapping: name -> connection

    def arguments(self, invocation: ToolInvocation) -> dict[str, Any]:
        if invocation.call.payload.kind != "function":
            raise RespondToModel(f"{self.name} handler received unsupported payload")
        return parse_object(invocation.payload_text, "McpResourceArgs", blank={})

    def session_of(self, server: str) -> Any:
        connection = self.connections.get(server)
        if connection is None:
            raise RespondToModel(f"unknown MCP server '{server}'")
        if connection._session is None:
            raise RespondToModel(
                f"MCP server '{server}' is not running ({connection.status}); restart it with restart({server!r})"
            )
        return connection._session


class _ListTool(_ResourceTool):
    """``list_mcp_resources`` / ``list_mcp_resource_templates``."""

    def __init__(
        self,
        name: str,
        servers: dict[str, McpConnection],
        *,
        what: str,
        key: str,
        method: str,
        description: str,
        cursor_hint: str,
        server_hint: str,
    ) -> None:
        super().__init__(name, servers)
        self.what, self.key, self.method = what, key, method
        self.description, self.cursor_hint, self.server_hint = description, cursor_hint, server_hint

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            self.description,
            {
                "type": "object",
                "properties": {
                    "cursor": {"type": "string", "description": self.cursor_hint},
                    "server": {"type": "string", "description": self.server_hint},
                },
                "additionalProperties": False,
            },
        )

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        from mcp.types import PaginatedRequestParams

        args = self.arguments(invocation)
        server, cursor = args.get("server"), args.get("cursor")
        if cursor is not None and server is None:
            raise RespondToModel(f"cursor can only be used together with server in {self.name}")
        names = [server] if isinstance(server, str) else [n for n, c in self.connections.items() if c.status == "ready"]
        listed: list[dict[str, Any]] = []
        next_cursor = None
        for name in names:
            session = self.session_of(name)
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            try:
                page = await getattr(session, self.method)(params=params)
            except Exception as err:  # noqa: BLE001 -- the model reads the failure
                raise RespondToModel(f"{self.what} failed for `{name}`: {_mcp_error(err)}") from None
            items = page.resources if self.key == "resources" else page.resource_templates
            listed += [_ordered(name, i.model_dump(mode="json", by_alias=True, exclude_none=True)) for i in items]
            next_cursor = page.next_cursor
        out: dict[str, Any] = {"server": server} if isinstance(server, str) else {}
        out[self.key] = listed
        if isinstance(server, str) and next_cursor:
            out["nextCursor"] = next_cursor
        return ToolOutput(body=_json(out), code_mode_result=out)


class ReadMcpResourceTool(_ResourceTool):
    def __init__(self, servers: dict[str, McpConnection]) -> None:
        super().__init__("read_mcp_resource", servers)

    def spec(self) -> dict[str, Any]:
        return function_spec(
            self.name,
            "Read a specific resource from an MCP server given the server name and resource URI.",
            {
                "type": "object",
                "properties": {
                    "server": {
                        "type": "string",
                        "description": "MCP server name exactly as configured. Must match the "
                        "'server' field returned by list_mcp_resources.",
                    },
                    "uri": {
                        "type": "string",
                        "description": "Resource URI to read. Must be one of the URIs returned by list_mcp_resources.",
                    },
                },
                "required": ["server", "uri"],
                "additionalProperties": False,
            },
        )

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        args = self.arguments(invocation)
        server, uri = args.get("server"), args.get("uri")
        if not isinstance(server, str) or not isinstance(uri, str):
            raise RespondToModel("failed to parse function arguments: missing field `server` or `uri`")
        session = self.session_of(server)
        try:
            result = await session.read_resource(uri)
        except Exception as err:  # noqa: BLE001
            raise RespondToModel(
                f"resources/read failed: resources/read failed for `{server}` ({uri}): {_mcp_error(err)}"
            ) from None
        contents = [_ordered("", c.model_dump(mode="json", by_alias=True, exclude_none=True)) for c in result.contents]
        out = {
            "server": server,
            "uri": uri,
            "contents": [{k: v for k, v in c.items() if k != "server"} for c in contents],
        }
        return ToolOutput(body=_json(out), code_mode_result=out)


def resource_tools(servers: dict[str, McpConnection]) -> list[Tool]:
    return [
        _ListTool(
            "list_mcp_resources",
            servers,
            what="resources/list",
            key="resources",
            method="list_resources",
            description=(
                "Lists resources provided by MCP servers. Resources allow servers to share data that "
                "provides context to language models, such as files, database schemas, or "
                "application-specific information. Prefer resources over web search when possible."
            ),
            cursor_hint="Opaque cursor from a previous list_mcp_resources call; omit for the first page.",
            server_hint="MCP server name. Omit to list resources from every configured server.",
        ),
        _ListTool(
            "list_mcp_resource_templates",
            servers,
            what="resources/templates/list",
            key="resourceTemplates",
            method="list_resource_templates",
            description=(
                "Lists resource templates provided by MCP servers. Parameterized resource templates "
                "allow servers to share data that takes parameters and provides context to language "
                "models, such as files, database schemas, or application-specific information. "
                "Prefer resource templates over web search when possible."
            ),
            cursor_hint=("Opaque cursor from a previous list_mcp_resource_templates call; omit for the first page."),
            server_hint="MCP server name. Omit to list resource templates from every configured server.",
        ),
        ReadMcpResourceTool(servers),
    ]
