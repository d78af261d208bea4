"""One MCP server tool as a codex_nb ``Tool``: Codex's naming, spec and search document.

Names are Codex's (``naming.model_names``: ``mcp__{server}`` and the tool's name,
sanitised, de-duplicated and fitted in 128 bytes), computed by the catalog over every
server at once and passed in. The spec's ``parameters`` is the server's ``inputSchema``
as Codex 0.169 ingests it (``tools.input_schema.parse_mcp_input_schema``), converted by
the catalog. Its ``output_schema`` (what Code Mode declares a nested call to return) is
Codex's ``CallToolResult`` envelope around the server's ``outputSchema``, or around ``{}``
when it has none.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ..protocol.serde import SerdeError, loads
from ..tools.base import Tool
from ..tools.tool_errors import RespondToModel
from ..tools.exposure import ToolExposure
from ..tools.input_schema import parse_mcp_input_schema
from ..tools.invocation import ToolInvocation
from ..tools.payload import ToolOutput
from ..tools.schema import function_spec
from ..tools.search.documents import join_parts
from .mcp_errors import McpCallFailed
from .naming import model_names, namespace_description
from .results import call_output, failure_output

if TYPE_CHECKING:
    from .connection import McpConnection


def call_tool_result_schema(structured: Any) -> dict[str, Any]:
    """Codex's output schema of every MCP tool: the result envelope with ``structured`` inside."""
    return {
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": {"type": "object"}},
            "structuredContent": structured,
            "isError": {"type": "boolean"},
            "_meta": {"type": "object"},
        },
        "required": ["content"],
        "additionalProperties": False,
    }


class McpTool(Tool):
    """Calls ``tools/call`` on its server's connection; failures are model-readable outputs."""

    def __init__(
        self,
        connection: McpConnection,
        raw: Any,
        *,
        exposure: ToolExposure,
        namespace: str | None = None,
        name: str | None = None,
        description: str | None = None,
        parameters: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> None:
        self.server = connection.config.name
        self.raw_name: str = raw.name
        self._raw = raw
        self.title: str | None = getattr(raw, "title", None) if title is None else title
        self.description = (raw.description or "") if description is None else description
        if parameters is None:
            schema = raw.input_schema if isinstance(raw.input_schema, dict) else {"type": "object"}
            parameters = parse_mcp_input_schema(schema)
        self.parameters = parameters
        if namespace is None or name is None:  # a tool built alone: Codex's names for a one-tool server
            only = model_names([(self.server, self.raw_name)])[0][0]
            namespace, name = only.namespace, only.name
        super().__init__(
            name,
            namespace=namespace,
            exposure=exposure,
            supports_parallel=True,
            namespace_description=namespace_description(connection.instructions or ""),
        )
        self.connection = connection

    def spec(self) -> dict[str, Any]:
        return function_spec(self.name, self.description, self.parameters)

    @property
    def output_schema(self) -> dict[str, Any]:
        structured = getattr(self._raw, "output_schema", None)
        return call_tool_result_schema(structured if isinstance(structured, dict) else {})

    @property
    def hook_tool_name(self) -> str:
        """Hooks see and match Codex's flat MCP name, ``mcp__server__tool``."""
        return f"{self.tool_name.namespace}__{self.name}"

    def search_document(self) -> str:
        """Codex's MCP search text: flat name, callable name, raw name, server, title, description,
        namespace description, then the input property names, sorted."""
        namespace = self.tool_name.namespace
        properties = sorted((self.parameters.get("properties") or {}).keys())
        return join_parts(
            [
                f"{namespace}__{self.name}",
                self.name,
                self.raw_name,
                self.server,
                self.title or "",
                self.description,
                self.namespace_description,
                *properties,
            ]
        )

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel(f"{self.name} handler received unsupported payload")
        text = invocation.payload_text
        try:
            arguments = loads(text) if text.strip() else None
        except SerdeError as err:
            raise RespondToModel(f"err: {err}") from None
        if arguments is not None and not isinstance(arguments, dict):
            raise RespondToModel("err: MCP tool arguments must be a JSON object")
        started = time.monotonic()
        try:
            result = await self.connection.call_tool(self.raw_name, arguments)
        except asyncio.CancelledError:
            raise  # the SDK sent notifications/cancelled for the abandoned request
        except McpCallFailed as err:
            return ToolOutput(
                body=failure_output(self.server, self.raw_name, err.reason, time.monotonic() - started), success=False
            )
        body, success = call_output(result, time.monotonic() - started)
        return ToolOutput(body=body, success=success, code_mode_result=_code_mode_result(result))


def _code_mode_result(result: Any) -> Any:
    """What a nested Code Mode call resolves to: the MCP result as JSON (content, structuredContent, isError)."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)
