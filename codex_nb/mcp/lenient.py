"""A ``ClientSession`` that reads ``tools/list`` and tool results the way Codex 0.169 does.

The ``mcp`` SDK checks a whole ``tools/list`` result against the protocol's schema: one
tool whose ``inputSchema`` has no ``type: "object"`` (Codex takes any JSON object there)
fails the listing, and the server shows 0 tools. It also checks every call's
``structuredContent`` against the tool's ``outputSchema``, which Codex never does. This
session reads the listing raw and checks each tool on its own: a tool Codex would accept
is kept with its schemas exactly as sent; a tool that is not a valid MCP tool for another
reason (no name, a schema that is not an object, a description that is not text) is
skipped and named in ``skipped_tools``, and the others stay. Call results are not checked
against ``outputSchema``.

Reading the raw result uses the SDK session's private request path; when a future SDK
lacks it, the session falls back to the SDK's own (strict) ``list_tools``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

MAX_SKIPPED_REPORTED = 20


@cache
def lenient_session_class() -> type:
    """The session class, built on first use (the SDK is imported only when MCP is used)."""
    from mcp import types
    from mcp.client.session import ClientSession

    class LenientClientSession(ClientSession):
        skipped_tools: list[str]

        async def list_tools(self, *, params: types.PaginatedRequestParams | None = None) -> types.ListToolsResult:
            raw = await self._raw_tools_list(params)
            if raw is None:
                return await super().list_tools(params=params)
            tools, skipped = read_listing(raw)
            first_page = params is None or params.cursor is None
            earlier = [] if first_page else getattr(self, "skipped_tools", [])
            self.skipped_tools = [*earlier, *skipped][:MAX_SKIPPED_REPORTED]
            cursor = raw.get("nextCursor")
            result = types.ListToolsResult(tools=[], next_cursor=cursor if isinstance(cursor, str) else None)
            result.tools = tools
            absorb = getattr(self, "_absorb_tool_listing", None)
            if absorb is not None:
                complete = (params is None or params.cursor is None) and result.next_cursor is None
                result = absorb(result, complete=complete)
            return result

        async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
            return None  # Codex hands structuredContent to the model as sent

        async def _raw_tools_list(self, params: types.PaginatedRequestParams | None) -> dict[str, Any] | None:
            dispatcher = getattr(self, "_dispatcher", None)
            send = getattr(dispatcher, "send_raw_request", None)
            stamp = getattr(self, "_stamp", None)
            if send is None or stamp is None:
                return None
            data = types.ListToolsRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
            opts: dict[str, Any] = {}
            stamp(data, opts)
            timeout = getattr(self, "_session_read_timeout_seconds", None)
            if timeout is not None:
                opts["timeout"] = timeout
            raw = await send(data["method"], data.get("params"), opts)
            if not isinstance(raw, dict) or not isinstance(raw.get("tools"), list):
                raise TypeError(f"tools/list result must be an object with a tools list, got {str(raw)[:200]}")
            return raw

    return LenientClientSession


def read_listing(raw: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The tools Codex accepts, and for each other entry the reason it was skipped."""
    tools: list[Any] = []
    skipped: list[str] = []
    for index, entry in enumerate(raw["tools"]):
        tool = read_tool(entry)
        if isinstance(tool, str):
            name = entry.get("name") if isinstance(entry, dict) else None
            label = repr(name)[:80] if isinstance(name, str) else f"#{index + 1}"
            skipped.append(f"tool {label}: {tool}")
        else:
            tools.append(tool)
    return tools, skipped


def read_tool(entry: Any) -> Any:
    """One listed tool as an SDK ``Tool`` with its schemas as sent, or why it cannot be one."""
    from mcp import types
    from pydantic import ValidationError

    if not isinstance(entry, dict):
        return f"a listed tool must be a JSON object, got {type(entry).__name__}"
    input_schema = entry.get("inputSchema")
    if not isinstance(input_schema, dict):
        return f"inputSchema must be a JSON object, got {type(input_schema).__name__ if 'inputSchema' in entry else 'nothing'}"
    output_schema = entry.get("outputSchema")
    if output_schema is not None and not isinstance(output_schema, dict):
        return f"outputSchema must be a JSON object, got {type(output_schema).__name__}"
    try:  # every other field as the SDK reads it; the schemas themselves are Codex's business
        tool = types.Tool.model_validate({**entry, "inputSchema": {"type": "object"}, "outputSchema": None})
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "tool"
        return f"{where}: {first['msg']}"
    return tool.model_copy(update={"input_schema": input_schema, "output_schema": output_schema})
