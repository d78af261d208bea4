"""The ``notebook`` namespace: seven tools that read, run and edit the live notebook.

Each is a ``Tool`` like any other, so every call goes through the dispatch pipeline: PreToolUse
hooks (which may block or rewrite it; the hook sees the tool as ``notebook__<name>``), the
lifecycle records, cancellation (Stop) and PostToolUse hooks. The tools that change the kernel or
the document ask for approval first (``approval``), unless ``[codex_nb.notebook_tools.approve]``
says not to. Every answer is bounded (``text``, ``cells``).
"""

from __future__ import annotations

from typing import Any

from ...config import Config
from ...protocol.items import ContentItem
from ..arguments import parse_object, require_str
from ..base import Tool
from ..tool_errors import RespondToModel
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec
from .approval import change_request, exec_request, require_approval
from .cells import Cell, render_cell, summary_line
from .document import (
    CellNotFound,
    DocumentUnavailable,
    EditConflict,
    conflict_message,
    not_found_message,
    not_read_message,
)
from .namespace import inspect_variable
from .run import run_code
from .visible_text import bound_text
from .workspace import NotebookWorkspace

NAMESPACE = "notebook"
NAMESPACE_DESCRIPTION = (
    "Tools for the Jupyter notebook this conversation runs in: read its cells, inspect variables, run code in "
    "its kernel, and insert, edit or run cells the person sees."
)
MAX_TIMEOUT_MS = 600_000

_CELL_ID = {"type": "string", "description": "The cell's id, as notebook.list_cells shows it."}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(sorted(properties.items())),
        "required": required,
        "additionalProperties": False,
    }


class NotebookTool(Tool):
    """The shared part: namespace, hook name, argument parsing, the document's errors as answers."""

    description = ""
    parameters: dict[str, Any] = {}

    def __init__(self, name: str, workspace: NotebookWorkspace) -> None:
        super().__init__(name, namespace=NAMESPACE, namespace_description=NAMESPACE_DESCRIPTION)
        self.workspace = workspace

    @property
    def hook_tool_name(self) -> str:
        return f"{NAMESPACE}__{self.name}"

    def spec(self) -> dict[str, Any]:
        return function_spec(self.name, self.description, self.parameters)

    def arguments(self, invocation: ToolInvocation) -> dict[str, Any]:
        if invocation.call.payload.kind != "function":
            raise RespondToModel(f"{self.name} handler received unsupported payload")
        return parse_object(invocation.payload_text, self.name, blank={})

    @property
    def settings(self) -> Any:
        return self.workspace.settings

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        args = self.arguments(invocation)
        try:
            body = await self.run(invocation, args)
        except DocumentUnavailable as err:
            raise RespondToModel(str(err)) from None
        except CellNotFound as err:
            raise RespondToModel(not_found_message(str(err))) from None
        except EditConflict as err:
            raise RespondToModel(conflict_message(str(err))) from None
        return ToolOutput(body=body)

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> str | list[ContentItem]:
        raise NotImplementedError

    async def approve(self, invocation: ToolInvocation, msg: Any) -> None:
        if self.settings.asks(self.name):
            await require_approval(invocation, self.name, msg, session_approved=self.workspace.session_approved)

    async def cells(self) -> list[Cell]:
        cells = await self.workspace.document().cells()
        return cells

    async def find(self, cell_id: str) -> tuple[int, Cell]:
        for index, cell in enumerate(await self.cells()):
            if cell.id == cell_id:
                return index, cell
        raise CellNotFound(cell_id)

    def render(self, index: int, cell: Cell) -> list[ContentItem]:
        s = self.settings
        return render_cell(
            index, cell, max_chars=s.max_output_chars, max_image_bytes=s.max_image_bytes, max_images=s.max_images
        )


def _timeout(args: dict[str, Any], default: float) -> float:
    raw = args.get("timeout_ms")
    if raw is None:
        return default
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 1 <= raw <= MAX_TIMEOUT_MS:
        raise RespondToModel(f"timeout_ms must be a number of milliseconds between 1 and {MAX_TIMEOUT_MS}")
    return float(raw) / 1000


class ListCells(NotebookTool):
    description = "List the cells of the open notebook: index, id, type, execution count and first line of each."
    parameters = _object({}, [])

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> str:
        cells = await self.cells()
        self.workspace.remember(cells)
        lines = [summary_line(i, c) for i, c in enumerate(cells)]
        return bound_text(f"{len(cells)} cells\n" + "\n".join(lines), self.settings.max_output_chars)


class ReadCell(NotebookTool):
    description = (
        "Read one cell of the open notebook: its source, execution count and outputs (text, with images as "
        "images). Long text is truncated with a marker."
    )
    parameters = _object(
        {"cell_id": _CELL_ID, "index": {"type": "integer", "description": "The cell's index, if no cell_id."}}, []
    )

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> list[ContentItem]:
        cells = await self.cells()
        cell_id, index = args.get("cell_id"), args.get("index")
        if isinstance(cell_id, str):
            found = next((i for i, c in enumerate(cells) if c.id == cell_id), None)
            if found is None:
                raise CellNotFound(cell_id)
            index = found
        elif not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(cells):
            raise RespondToModel(f"give cell_id, or an index between 0 and {len(cells) - 1}")
        self.workspace.remember(cells[index])
        return self.render(index, cells[index])


class InspectVariable(NotebookTool):
    description = (
        "Inspect a variable in the kernel's user namespace: its type, size (len, shape, dtypes, columns) and a "
        "bounded repr."
    )
    parameters = _object({"name": {"type": "string", "description": "The variable's name."}}, ["name"])

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> str:
        name = require_str(args, "name")
        s = self.settings
        return await inspect_variable(
            name, self.workspace.namespace(), limit=s.max_output_chars // 2, timeout=s.repr_timeout_seconds
        )


class RunCode(NotebookTool):
    description = (
        "Run Python code in the notebook's kernel, in the user's namespace (variables persist). Returns the "
        "printed output, displays and the value of the last expression, like a cell. Not shown in the notebook."
    )
    parameters = _object(
        {
            "code": {"type": "string", "description": "The Python code to run."},
            "timeout_ms": {"type": "number", "description": "Stop the code after this long (default 30000)."},
        },
        ["code"],
    )

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> list[ContentItem]:
        code = require_str(args, "code")
        timeout = _timeout(args, self.settings.run_timeout_seconds)
        await self.approve(invocation, exec_request(invocation, code, "run Python in the notebook's kernel"))
        s = self.settings
        outcome = await run_code(
            code,
            self.workspace.namespace(),
            timeout=timeout,
            max_chars=s.max_output_chars,
            max_image_bytes=s.max_image_bytes,
            max_images=s.max_images,
        )
        return outcome.body()


class InsertCell(NotebookTool):
    description = "Insert a new cell into the open notebook (the person sees it appear and can undo it)."
    parameters = _object(
        {
            "cell_type": {"type": "string", "description": "code (default) or markdown.", "enum": ["code", "markdown"]},
            "index": {"type": "integer", "description": "Where to insert it; omit to append at the end."},
            "source": {"type": "string", "description": "The new cell's source."},
        },
        ["source"],
    )

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> str:
        source = require_str(args, "source")
        kind = args.get("cell_type", "code")
        if kind not in ("code", "markdown"):
            raise RespondToModel("cell_type must be code or markdown")
        cells = await self.cells()
        index = args.get("index", len(cells))
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= len(cells):
            raise RespondToModel(f"index must be between 0 and {len(cells)}")
        await self.approve(
            invocation,
            change_request(
                invocation, cell_id=f"new at {index}", kind="add", before="", after=source, reason="insert a cell"
            ),
        )
        cell = await self.workspace.document().insert_cell(index=index, cell_type=kind, source=source)
        self.workspace.remember(cell)
        await _changed(invocation, cell.id, before=None, after=cell.source)
        return f"Inserted {kind} cell {cell.id} at index {index}"


class EditCell(NotebookTool):
    description = (
        "Replace the source of a cell you have read. Fails with a conflict if the person changed the cell since."
    )
    parameters = _object(
        {"cell_id": _CELL_ID, "source": {"type": "string", "description": "The cell's new source."}},
        ["cell_id", "source"],
    )

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> str:
        cell_id, source = require_str(args, "cell_id"), require_str(args, "source")
        seen = self.workspace.seen.get(cell_id)
        if seen is None:
            raise RespondToModel(not_read_message(cell_id))
        index, cell = await self.find(cell_id)
        if cell.source != seen:
            raise EditConflict(cell_id)
        await self.approve(
            invocation,
            change_request(invocation, cell_id=cell_id, kind="update", before=seen, after=source, reason="edit a cell"),
        )
        edited = await self.workspace.document().edit_cell(cell_id=cell_id, expected_source=seen, source=source)
        self.workspace.remember(edited)
        await _changed(invocation, cell_id, before=seen, after=edited.source)
        return f"Edited cell {cell_id} (index {index})"


class RunCell(NotebookTool):
    description = "Run a code cell of the open notebook in the page, and return its outputs once it finished."
    parameters = _object(
        {
            "cell_id": _CELL_ID,
            "timeout_ms": {"type": "number", "description": "Stop waiting after this long (default 30000)."},
        },
        ["cell_id"],
    )

    async def run(self, invocation: ToolInvocation, args: dict[str, Any]) -> list[ContentItem]:
        cell_id = require_str(args, "cell_id")
        timeout = _timeout(args, self.settings.run_timeout_seconds)
        index, cell = await self.find(cell_id)
        if cell.cell_type != "code":
            raise RespondToModel(f"cell {cell_id} is a {cell.cell_type} cell; only code cells run")
        await self.approve(
            invocation, exec_request(invocation, cell.source, f"run cell {cell_id} (index {index}) in the notebook")
        )
        ran = await self.workspace.document().run_cell(cell_id=cell_id, timeout=timeout)
        self.workspace.remember(ran)
        return self.render(index, ran)


async def _changed(invocation: ToolInvocation, cell_id: str, *, before: str | None, after: str) -> None:
    """Record a cell's change in the turn and send the turn's diff so far (``turn_diff``), as Codex
    does after each change its tools make."""
    turn = invocation.turn
    turn.changes.record(f"cell {cell_id}", before=before, after=after)
    await invocation.emit(turn.changes.event(turn.turn_id))


_TOOLS: dict[str, type[NotebookTool]] = {
    "list_cells": ListCells,
    "read_cell": ReadCell,
    "inspect_variable": InspectVariable,
    "run_code": RunCode,
    "insert_cell": InsertCell,
    "edit_cell": EditCell,
    "run_cell": RunCell,
}


def notebook_tools(config: Config, workspace: NotebookWorkspace) -> list[Tool]:
    """The notebook tools this config turns on (none unless ``[codex_nb.notebook_tools] enabled``)."""
    settings = config.notebook_tools
    return [cls(name, workspace) for name, cls in _TOOLS.items() if settings.tool_enabled(name)]
