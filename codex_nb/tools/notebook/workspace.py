"""``NotebookWorkspace``: what the notebook tools of one session share.

The settings, where the user namespace and the document come from, and what the agent last saw
of each cell: an edit is checked against that source, so a cell the person changed meanwhile
is a conflict instead of a silent overwrite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...config.notebook_tools import NotebookToolsSettings
from .cells import Cell
from .document import NO_FRONT_END, DocumentFactory, DocumentUnavailable, NotebookDocument
from .namespace import user_namespace

MAX_SEEN = 10_000


class NotebookWorkspace:
    def __init__(
        self,
        settings: NotebookToolsSettings,
        *,
        namespace: Callable[[], dict[str, Any]] = user_namespace,
        document: NotebookDocument | DocumentFactory | None = None,
    ) -> None:
        self.settings = settings
        self.namespace = namespace
        self._document = document
        self._resolved: NotebookDocument | None = None
        self.seen: dict[str, str] = {}
        """Cell id -> the source the agent last read or wrote."""
        self.session_approved: set[str] = set()
        """Tools a person approved for the rest of the session."""

    def set_document(self, document: NotebookDocument | DocumentFactory | None) -> None:
        """Where the document tools read and edit (a document, or a factory called on first use)."""
        self._document = document
        self._resolved = None

    def document(self) -> NotebookDocument:
        if self._resolved is not None:
            return self._resolved
        source = self._document
        if source is None:
            raise DocumentUnavailable(NO_FRONT_END)
        resolved: NotebookDocument = source() if callable(source) and not hasattr(source, "cells") else source  # type: ignore[assignment]
        self._resolved = resolved
        return resolved

    def remember(self, cells: list[Cell] | Cell) -> None:
        for cell in [cells] if isinstance(cells, Cell) else cells:
            if len(self.seen) >= MAX_SEEN and cell.id not in self.seen:
                self.seen.pop(next(iter(self.seen)))
            self.seen[cell.id] = cell.source
