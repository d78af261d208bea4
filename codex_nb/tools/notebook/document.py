"""The open notebook as the tools see it: a ``NotebookDocument`` (the live JupyterLab document
through the bridge widget, or the in-memory fake the tests use), and the messages for when there
is none.

Reading the live document needs a path to the front end. The kernel cannot see the document by
itself: a classic Notebook, VS Code, nbclient (nbval) or a plain ``python`` process has no such
path, and the tools say so instead of guessing from the file on disk (which lags the page).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .cells import Cell

NO_FRONT_END = (
    "the notebook document is not reachable from this kernel: no JupyterLab 4 or Notebook 7 page with the "
    "ipylab extension answered. The document tools (list_cells, read_cell, insert_cell, edit_cell, run_cell) "
    "need one; classic Notebook, VS Code, nbclient/nbval and plain Python kernels have none. inspect_variable "
    "and run_code work everywhere"
)


class DocumentUnavailable(Exception):
    """No front end can serve the document (the message says which and what works instead)."""


class EditConflict(Exception):
    """The cell changed since the agent read it; nothing was written."""


class CellNotFound(Exception):
    """No cell has that id (it may have been deleted)."""


class NotebookDocument(Protocol):
    """What the document tools need from a front end; every method may raise ``DocumentUnavailable``."""

    async def cells(self) -> list[Cell]: ...

    async def insert_cell(self, *, index: int, cell_type: str, source: str) -> Cell:
        """Insert a new cell at ``index`` (``len(cells)`` appends) and return it."""
        ...

    async def edit_cell(self, *, cell_id: str, expected_source: str, source: str) -> Cell:
        """Replace the cell's source if it still is ``expected_source``, else raise ``EditConflict``."""
        ...

    async def run_cell(self, *, cell_id: str, timeout: float) -> Cell:
        """Run the cell in the page (outputs appear there) and return it once it finished."""
        ...


DocumentFactory = Callable[[], NotebookDocument]


def conflict_message(cell_id: str) -> str:
    return (
        f"edit conflict: cell {cell_id} changed since you last read it (the person edited it, or it was re-run); "
        "nothing was written. Call notebook.read_cell again and redo the edit on its current source"
    )


def not_read_message(cell_id: str) -> str:
    return f"cell {cell_id} has not been read in this session; call notebook.read_cell first, then edit it"


def not_found_message(cell_id: str) -> str:
    return f"no cell with id {cell_id} in the open notebook (it may have been deleted); call notebook.list_cells"
