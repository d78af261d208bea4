"""``CodeModeRuntime``: the cells and the ``store`` of one session: cells outlive
their turn, so a later ``wait`` can resume them.

Called from the kernel's loop; every cell lives on the V8 host loop. Cells survive
the end of a turn; a finished cell is dropped once its final output was returned.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from .cell import Cell, CellLimits, NestedDispatch
from .host import V8Host, release_default_host, use_default_host
from .output import CellSnapshot


@dataclass(frozen=True, kw_only=True)
class NestedToolEntry:
    """One ``tools.X`` function: its identifier, its description and its input kind."""

    name: str
    description: str
    kind: str  # "function" | "freeform"

    def to_js(self) -> dict[str, str]:
        return {"name": self.name, "description": self.description, "kind": self.kind}


class TooManyCells(Exception):
    """``exec`` while ``max_live_cells`` cells run; ``str(err)`` is the model-visible answer."""


class CodeModeRuntime:
    def __init__(self, *, limits: CellLimits | None = None, host: V8Host | None = None) -> None:
        self.limits = limits or CellLimits()
        self._shares_default_host = host is None
        self._host = host or use_default_host()
        self._owns_host = False
        self.store: dict[str, Any] = {}
        self._cells: dict[str, Cell] = {}
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def active_cell_ids(self) -> list[str]:
        return [cid for cid, cell in self._cells.items() if cell.status == "running"]

    async def start_cell(
        self,
        source: str,
        tools: list[NestedToolEntry],
        *,
        dispatch: NestedDispatch,
        on_notify: Callable[[str], None] = lambda _text: None,
    ) -> Cell:
        kernel_loop = asyncio.get_running_loop()
        live = self.active_cell_ids
        if len(live) >= self.limits.max_live_cells:
            raise TooManyCells(
                f"too many live exec cells ({len(live)}, the limit); finish or terminate one with "
                f"`wait` (`terminate: true`) before starting another: cell IDs {', '.join(live)}"
            )
        cell_id = str(next(self._ids))

        def notify_on_kernel(text: str) -> None:
            kernel_loop.call_soon_threadsafe(on_notify, text)

        async def create() -> Cell:
            cell = Cell(
                cell_id=cell_id,
                dispatch=dispatch,
                kernel_loop=kernel_loop,
                store=self.store,
                on_notify=notify_on_kernel,
                limits=self.limits,
            )
            await cell.start(source, [t.to_js() for t in tools])
            return cell

        cell = await self._host.submit(create())
        self._cells[cell_id] = cell
        return cell

    async def next_output(self, cell_id: str, yield_time_ms: int) -> CellSnapshot | None:
        """New output of ``cell_id`` (``None`` if unknown); a finished cell is then forgotten."""
        cell = self._cells.get(cell_id)
        if cell is None:
            return None
        snapshot = await self._host.submit(cell.next_output(max(yield_time_ms, 0) / 1000))
        if snapshot.status != "running":
            self._cells.pop(cell_id, None)
        return snapshot

    async def terminate(self, cell_id: str, reason: str | None = None) -> CellSnapshot | None:
        cell = self._cells.get(cell_id)
        if cell is None:
            return None
        await self._host.submit(cell.terminate(reason))
        return await self.next_output(cell_id, 0)

    async def terminate_all(self, reason: str | None = None) -> list[str]:
        """Terminate every running cell (turn interrupt); returns their ids."""
        ids = self.active_cell_ids
        for cell_id in ids:
            cell = self._cells[cell_id]
            await self._host.submit(cell.terminate(reason))
        return ids

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background on the current loop, keeping a strong reference."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Terminate every running cell from the kernel loop; background terminations finish too."""
        await self.terminate_all("code mode runtime closed")
        self._cells.clear()
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self._shares_default_host:
            self._shares_default_host = False
            await release_default_host()

    def close(self) -> None:
        """Terminate all cells (the shared host thread keeps running)."""
        for cell in list(self._cells.values()):
            if cell.status == "running":
                self._host.run_sync(cell.terminate("code mode runtime closed"))
        self._cells.clear()
        if self._owns_host:
            self._host.close()
