"""``MemoryNotebook``: a strict in-memory stand-in for the open notebook, for tests and demos
without a front end.

It implements ``NotebookDocument`` as the page does (ids, sources, outputs; an edit checked
against the source the agent saw), and lets a test act as the person (``person_edits``) or as the
page running a cell (``run_outputs``). It is not the live document: in a notebook the tools reach
the page through ``codex_nb.widgets.notebook_bridge``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..tools.notebook.cells import Cell
from ..tools.notebook.document import CellNotFound, EditConflict


class MemoryNotebook:
    """Cells in a list; ``runs`` counts each ``run_cell``, ``log`` records every change."""

    def __init__(
        self, cells: list[Cell] | None = None, *, run_outputs: Callable[[Cell], list[dict[str, Any]]] | None = None
    ) -> None:
        self.items: list[Cell] = list(cells or [])
        self._ids = itertools.count(1)
        self._run_outputs = run_outputs or (lambda cell: [])
        self._count = itertools.count(1)
        self.log: list[tuple[str, str]] = []

    @classmethod
    def of(cls, *sources: str) -> MemoryNotebook:
        """A notebook of code cells with these sources, ids ``cell-0``, ``cell-1``, ..."""
        return cls([Cell(id=f"cell-{i}", cell_type="code", source=s) for i, s in enumerate(sources)])

    async def cells(self) -> list[Cell]:
        """A copy of the cells, in order (``list_cells`` reads this)."""
        return list(self.items)

    def _find(self, cell_id: str) -> int:
        for index, cell in enumerate(self.items):
            if cell.id == cell_id:
                return index
        raise CellNotFound(cell_id)

    async def insert_cell(self, *, index: int, cell_type: str, source: str) -> Cell:
        """Insert a new cell (ids ``new-1``, ``new-2``, ...) at ``index`` and log ``("insert", id)``."""
        cell = Cell(id=f"new-{next(self._ids)}", cell_type=cell_type, source=source)
        self.items.insert(index, cell)
        self.log.append(("insert", cell.id))
        return cell

    async def edit_cell(self, *, cell_id: str, expected_source: str, source: str) -> Cell:
        """Replace the cell's source; ``EditConflict`` (nothing written) when it no longer reads
        ``expected_source``, ``CellNotFound`` for an unknown id."""
        index = self._find(cell_id)
        if self.items[index].source != expected_source:
            raise EditConflict(cell_id)
        self.items[index] = replace(self.items[index], source=source)
        self.log.append(("edit", cell_id))
        return self.items[index]

    async def run_cell(self, *, cell_id: str, timeout: float) -> Cell:
        """Run the cell as a stand-in: the next execution count and ``run_outputs(cell)`` as its
        outputs (none by default); nothing is executed. ``timeout`` is accepted, and unused."""
        index = self._find(cell_id)
        cell = self.items[index]
        ran = replace(cell, execution_count=next(self._count), outputs=tuple(self._run_outputs(cell)))
        self.items[index] = ran
        self.log.append(("run", cell_id))
        return ran

    def person_edits(self, cell_id: str, source: str) -> None:
        """The person changes a cell in the page (no check: people just type)."""
        index = self._find(cell_id)
        self.items[index] = replace(self.items[index], source=source)
