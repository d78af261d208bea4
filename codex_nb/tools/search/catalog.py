"""The session's deferred-tool index, kept in step with registry generations.

``DeferredToolIndex.sync(entries)`` is called with one plan's entries. Each registry
source owns one ``Shard``; a source's shard is rebuilt only when the identity of its
deferred tools changed (``replace_source`` makes new tool objects for that source
alone), so refreshing one MCP server re-tokenises that server's tools and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..exposure import ToolExposure
from ..registry import RegisteredTool
from .documents import tool_document
from .index import SearchIndex


class DeferredToolIndex:
    def __init__(self) -> None:
        self.index = SearchIndex()
        self.rebuilt_sources: list[str] = []
        """Sources whose shard the last ``sync`` rebuilt (for tests and the notebook)."""

    def sync(self, entries: Iterable[RegisteredTool]) -> None:
        deferred, deferred_model_only = ToolExposure.Deferred, ToolExposure.DeferredModelOnly
        groups: dict[str, list[RegisteredTool]] = {}
        for entry in entries:  # identity checks only: this pass is the O(tools) part of a refresh
            exposure = entry.exposure
            if exposure is deferred or exposure is deferred_model_only:
                group = groups.get(entry.source)
                if group is None:
                    groups[entry.source] = [entry]
                else:
                    group.append(entry)
        known = self.index.sources
        self.rebuilt_sources = []
        for source in [s for s in known if s not in groups]:
            self.index.remove(source)
        for source, group in groups.items():
            # The group list itself is the version: list equality is by identity for unchanged entries.
            if known.get(source) == group:
                continue
            self.index.replace(self.index.build_shard(source, group, group, [tool_document(e.tool) for e in group]))
            self.rebuilt_sources.append(source)

    def search(self, query: str, limit: int) -> list[RegisteredTool]:
        return self.index.search(query, limit)  # type: ignore[return-value]
