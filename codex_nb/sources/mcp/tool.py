"""One MCP server tool as a codex_nb ``Tool``: Codex's naming, spec and search document.

Names are Codex's (``naming.model_names``: ``mcp__{server}`` and the tool's name,
sanitised, de-duplicated and fitted in 128 bytes), computed by the catalog over every
server at once and passed in. The spec's ``parameters`` is the server's ``inputSchema``
in Codex's JSON-schema form (known keywords only, properties sorted; titles and
defaults dropped), converted by the catalog after ``schema_guard`` accepted it.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from ...protocol.serde import SerdeError, loads
from ...tools.base import Tool
from ...tools.errors import RespondToModel
from ...tools.exposure import ToolExposure
from ...tools.invocation import ToolInvocation
from ...tools.payload import ToolOutput
from ...tools.schema import function_spec, normalize_schema
from ...tools.search.documents import join_parts
from .errors import McpCallFailed
from .naming import model_names, namespace_description
from .results import call_output, failure_output

if TYPE_CHECKING:
    from .connection import McpConnection


class McpTool(Tool):
    """Calls ``tools/call`` on its server's connection; failures are model-readable outputs."""

    def __init__(self, connection: McpConnection, raw: Any, *, exposure: ToolExposure, namespace: str | None = None,
                 name: str | None = None, description: str | None = None,
                 parameters: dict[str, Any] | None = None, title: str | None = None) -> None:
        self.server = connection.config.name
        self.raw_name: str = raw.name
        self.title: str | None = getattr(raw, "title", None) if title is None else title
        self.description = (raw.description or "") if description is None else description
        if parameters is None:
            schema = raw.input_schema if isinstance(raw.input_schema, dict) else {"type": "object"}
            parameters = normalize_schema(schema)
        self.parameters = parameters
        if namespace is None or name is None:  # a tool built alone: Codex's names for a one-tool server
            only = model_names([(self.server, self.raw_name)])[0][0]
            namespace, name = only.namespace, only.name
        super().__init__(name, namespace=namespace, exposure=exposure, supports_parallel=True,
                         namespace_description=namespace_description(connection.instructions or ""))
        self.connection = connection

    def spec(self) -> dict[str, Any]:
        return function_spec(self.name, self.description, self.parameters)

    @property
    def hook_tool_name(self) -> str:
        """Hooks see and match Codex's flat MCP name, ``mcp__server__tool``."""
        return f"{self.tool_name.namespace}__{self.name}"

    def search_document(self) -> str:
        """Codex's MCP search text: flat name, callable name, raw name, server, title, description,
        namespace description, then the input property names, sorted."""
        namespace = self.tool_name.namespace
        properties = sorted((self.parameters.get("properties") or {}).keys())
        return join_parts([f"{namespace}__{self.name}", self.name, self.raw_name, self.server, self.title or "",
                           self.description, self.namespace_description, *properties])

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
            return ToolOutput(body=failure_output(self.server, self.raw_name, err.reason, time.monotonic() - started),
                              success=False)
        body, success = call_output(result, time.monotonic() - started)
        return ToolOutput(body=body, success=success, code_mode_result=_code_mode_result(result))


def _code_mode_result(result: Any) -> Any:
    """What a nested Code Mode call resolves to: the MCP result as JSON (content, structuredContent, isError)."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)
