"""The session's deferred-tool index, kept in step with registry generations.

``DeferredToolIndex.sync(entries)`` is called with one plan's entries. Each registry
source owns one ``Shard``; a source's shard is rebuilt only when the identity of its
deferred tools changed (``replace_source`` makes new tool objects for that source
alone), so refreshing one MCP server re-tokenises that server's tools and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from operator import attrgetter

from ..exposure import ToolExposure
from ..registry import RegisteredTool
from .documents import tool_document
from .index import SearchIndex

_SOURCE = attrgetter("source")


class DeferredToolIndex:
    def __init__(self) -> None:
        self._index: SearchIndex | None = None  # made with the first deferred tool: it loads numpy
        self._seen: dict[str, list[RegisteredTool]] = {}  # source -> all its entries at the last sync
        self.rebuilt_sources: list[str] = []
        """Sources whose shard the last ``sync`` rebuilt (for tests and the notebook)."""

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            self._index = SearchIndex()
        return self._index

    def sync(self, entries: Iterable[RegisteredTool]) -> None:
        # Group by source with C-level iteration (a source's entries are contiguous after
        # replace_source), and compare each source's entry list with the last sync's: list
        # equality is by identity for unchanged entries, so unchanged sources cost almost nothing.
        runs: dict[str, list[RegisteredTool]] = {}
        for source, same_source in groupby(entries, key=_SOURCE):
            previous = runs.get(source)
            if previous is None:
                runs[source] = list(same_source)
            else:
                previous.extend(same_source)
        deferred, deferred_model_only = ToolExposure.Deferred, ToolExposure.DeferredModelOnly
        self.rebuilt_sources = []
        for source in [s for s in self._seen if s not in runs]:
            del self._seen[source]
            self._remove(source)
        for source, run in runs.items():
            if self._seen.get(source) == run:
                continue
            self._seen[source] = run
            group = [e for e in run if e.exposure is deferred or e.exposure is deferred_model_only]
            if not group:
                self._remove(source)
                continue
            if self.index.sources.get(source) == group:
                continue
            self.index.replace(self.index.build_shard(source, group, group, [tool_document(e.tool) for e in group]))
            self.rebuilt_sources.append(source)

    def _remove(self, source: str) -> None:
        if self._index is not None:
            self._index.remove(source)

    def search(self, query: str, limit: int) -> list[RegisteredTool]:
        if self._index is None:
            return []
        return self._index.search(query, limit)  # type: ignore[return-value]  # its keys are our entries
