"""``tool_search``: find deferred tools with BM25 and load them for the next step.

Codex 0.169 (``codex-rs/core/src/tools/handlers/tool_search.rs``): the tool is a
hosted-style ``{"type": "tool_search", "execution": "client"}`` spec, declared when the
provider has namespace tools and at least one registered tool is Deferred. The model
calls it with a ``tool_search_call`` item; the answer is a ``tool_search_output`` item
whose ``tools`` hold the matches as full specs with ``defer_loading: true`` (no output
schema), merged per namespace in order of first appearance. Those tools are already
routable (deferred tools are in every step's router); the output is what shows them to
the model. Any failure (bad arguments, empty query, ``limit`` 0) answers the empty
output, as Codex does.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from ..arguments import parse_object, require_str
from ..base import Tool
from ..tool_errors import Fatal
from ..exposure import ToolExposure
from ..invocation import ToolInvocation
from ..names import DEFAULT_NAMESPACE
from ..schema import group_specs
from ..payload import ToolOutput
from ..registry import RegisteredTool

if TYPE_CHECKING:
    from ...config import Config
    from ..search.catalog import DeferredToolIndex
    from ..planner import FinalizedTools

TOOL_SEARCH_NAME = "tool_search"
DEFAULT_LIMIT = 8
TOOL_SEARCH_DESCRIPTION = (
    "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next "
    "model call.\n\nSome of the tools may not have been provided to you upfront, and you should use this tool "
    "(`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search` instead "
    "of `list_mcp_resources` or `list_mcp_resource_templates`."
)
TOOL_SEARCH_SOURCE = "tool_search"
PARSE_PREFIX = "failed to parse tool_search arguments"


class ToolSearchArgumentsError(ValueError):
    pass


def parse_tool_search_arguments(text: str) -> tuple[str, int]:
    """``{query: str, limit?: usize}``; raises ``ToolSearchArgumentsError`` with Codex's messages."""
    raw = parse_object(text, "ToolSearchArgs", prefix=PARSE_PREFIX, error=ToolSearchArgumentsError)
    query = require_str(raw, "query", prefix=PARSE_PREFIX, error=ToolSearchArgumentsError)
    limit = raw.get("limit", DEFAULT_LIMIT)
    if limit is None:
        limit = DEFAULT_LIMIT
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ToolSearchArgumentsError(
            f"{PARSE_PREFIX}: invalid value {limit!r} for `limit`, expected a non-negative integer"
        )
    if not query.strip():
        raise ToolSearchArgumentsError("query must not be empty")
    if limit == 0:
        raise ToolSearchArgumentsError("limit must be greater than zero")
    return query, limit


def loadable_spec(entry: RegisteredTool) -> dict[str, Any]:
    """The function spec as tool_search returns it: ``defer_loading: true``, no output schema."""
    spec = dict(entry.tool.spec())
    spec.pop("output_schema", None)
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "defer_loading":
            continue
        if key == "parameters":
            out["defer_loading"] = True
        out[key] = value
    out.setdefault("defer_loading", True)
    return out


def merge_by_namespace(entries: list[RegisteredTool]) -> list[dict[str, Any]]:
    """Matches in rank order; namespaced ones grouped under their namespace at its first appearance."""
    return group_specs(entries, loadable_spec, sort_tools=False)


def deferred_namespaces(entries: list[RegisteredTool]) -> dict[str, str]:
    """``namespace -> description`` (first non-empty) of the deferred tools, sorted by namespace."""
    found: dict[str, str] = {}
    for entry in entries:
        name = entry.tool.tool_name
        if entry.exposure.is_deferred and name.namespace != DEFAULT_NAMESPACE:
            if not found.get(name.namespace):
                found[name.namespace] = entry.tool.namespace_description
    return dict(sorted(found.items()))


def namespaces_message(announced: dict[str, str], current: dict[str, str]) -> str | None:
    """Codex 0.169's ``<tools>`` developer text: every deferred namespace the first time in a
    context window (``Deferred tool namespaces:``), then only new ones (``Added deferred tool namespaces:``)."""
    added = {ns: d for ns, d in current.items() if ns not in announced}
    if not added:
        return None
    title = "Added deferred tool namespaces:" if announced else "Deferred tool namespaces:"
    lines = [f"- {ns}: {d}" if d else f"- {ns}" for ns, d in added.items()]
    return "<tools>\n" + title + "\n" + "\n".join(lines) + "\n</tools>"


class ToolSearchTool(Tool):
    """The ``tool_search`` handler; one per session, sharing its ``DeferredToolIndex`` across steps."""

    def __init__(self, index: DeferredToolIndex | None = None) -> None:
        from ..search.catalog import DeferredToolIndex  # the index's modules load with the first deferred tool

        super().__init__(TOOL_SEARCH_NAME, exposure=ToolExposure.DirectModelOnly, supports_parallel=True)
        self.index = index or DeferredToolIndex()
        self._entries: list[RegisteredTool] = []
        self._namespaces: dict[str, str] | None = None
        self._synced: list[RegisteredTool] | None = None
        # The index is built in a worker thread (see handle) while notebooks may call search() on the
        # loop: one lock keeps a build and a query from seeing each other half-way.
        self._lock = threading.Lock()

    def bind(self, entries: list[RegisteredTool]) -> None:
        """The plan's entries; the index syncs with them on the first search of that plan."""
        self._entries = entries
        self._namespaces = None

    def namespaces(self) -> dict[str, str]:
        """The plan's deferred namespaces (computed once per plan)."""
        if self._namespaces is None:
            self._namespaces = deferred_namespaces(self._entries)
        return self._namespaces

    def spec(self) -> dict[str, Any]:
        return {
            "type": "tool_search",
            "execution": "client",
            "description": TOOL_SEARCH_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {
                    "limit": {"type": "number", "description": "Maximum number of tools to return. Defaults to 8."},
                    "query": {"type": "string", "description": "Search query for deferred tools."},
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        }

    def accepts(self, payload_kind: str) -> bool:
        return payload_kind == "tool_search"

    def search(self, query: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
        """The ``tools`` a call with these arguments answers (for notebooks and tests)."""
        entries = self._entries
        with self._lock:
            if self._synced is not entries:
                self.index.sync(entries)
                self._synced = entries
            found = self.index.search(query, limit)
        return merge_by_namespace(found)

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "tool_search":
            raise Fatal("tool_search handler received unsupported payload")
        try:
            query, limit = parse_tool_search_arguments(invocation.payload_text)
        except ToolSearchArgumentsError as err:  # Codex shows any failure as the empty output
            return ToolOutput(body=str(err), success=False, extra={"tool_search_tools": []})
        if self._synced is self._entries:
            tools = self.search(query, limit)
        else:
            # A first search of a plan may (re)build shards: 10,000 MCP tools take a few hundred ms of
            # tokenising, which must not freeze the kernel's event loop (widgets, Stop, other calls).
            tools = await asyncio.to_thread(self.search, query, limit)
        return ToolOutput(body="", success=True, extra={"tool_search_tools": tools})


class ToolSearchFinalizer:
    """Planner finalizer: declares ``tool_search`` after the other tools when a Deferred tool exists."""

    def __init__(self) -> None:
        self._tool: ToolSearchTool | None = None

    @property
    def tool(self) -> ToolSearchTool:
        """Made when first needed: a session without deferred tools never builds the search index."""
        if self._tool is None:
            self._tool = ToolSearchTool()
        return self._tool

    def close(self) -> None:
        """Finalizers may own resources (Code Mode's V8 thread); the search index is plain memory."""

    def __call__(self, entries: list[RegisteredTool], config: Config) -> FinalizedTools:
        from ..planner import FinalizedTools

        if not config.namespace_tools or not any(e.exposure.is_deferred for e in entries):
            return FinalizedTools(entries)
        entries = [e for e in entries if e.tool.tool_name.dotted != TOOL_SEARCH_NAME]
        self.tool.bind(entries)
        return FinalizedTools(entries + [RegisteredTool(self.tool, TOOL_SEARCH_SOURCE, self.tool.exposure)])
