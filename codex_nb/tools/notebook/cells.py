"""A notebook cell as the model reads it: its source, execution count and outputs as text,
with image outputs as ``input_image`` items, all bounded.

``Cell`` is the one shape every document (the live JupyterLab document through the bridge widget,
or the in-memory fake the tests use) hands the tools: nbformat's cell fields, plus its id.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..._records import record
from ...protocol.items import ContentItem
from .visible_text import clean, image_item

IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp")
TEXT_MIMES = ("text/plain", "text/markdown", "application/json", "text/html", "image/svg+xml")
MAX_OUTPUTS = 50


@record(kw_only=True, frozen=True)
class Cell:
    """One cell of the open notebook, as nbformat has it."""

    id: str
    cell_type: str
    source: str
    execution_count: int | None = None
    outputs: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @classmethod
    def from_json(cls, raw: Any) -> Cell:
        """A cell the front end sent; anything malformed becomes a ``ValueError`` naming the field."""
        if not isinstance(raw, dict):
            raise ValueError(f"a cell must be an object, got {type(raw).__name__}")
        cell_id, kind, source = raw.get("id"), raw.get("cell_type"), raw.get("source", "")
        if not isinstance(cell_id, str) or not cell_id or len(cell_id) > 200:
            raise ValueError(f"a cell needs a string id, got {cell_id!r:.80}")
        if kind not in ("code", "markdown", "raw"):
            raise ValueError(f"cell {cell_id}: cell_type must be code, markdown or raw, got {kind!r:.40}")
        if isinstance(source, list):
            source = "".join(str(s) for s in source)
        if not isinstance(source, str):
            raise ValueError(f"cell {cell_id}: source must be text")
        count = raw.get("execution_count")
        outputs = raw.get("outputs") or []
        if not isinstance(outputs, list):
            raise ValueError(f"cell {cell_id}: outputs must be a list")
        return cls(
            id=cell_id,
            cell_type=kind,
            source=source,
            execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
            outputs=tuple(o for o in outputs[:MAX_OUTPUTS] if isinstance(o, dict)),
        )


def cell_header(index: int, cell: Cell) -> str:
    count = "" if cell.cell_type != "code" else f", execution count {cell.execution_count or 'none'}"
    return f"Cell {index} (id {cell.id}, {cell.cell_type}{count})"


def summary_line(index: int, cell: Cell, width: int = 100) -> str:
    """``[index] id kind [count]: first line of the source`` for ``list_cells``."""
    first = next((line for line in cell.source.splitlines() if line.strip()), "")
    first = clean(first, width)
    count = f" [{cell.execution_count}]" if cell.cell_type == "code" and cell.execution_count else ""
    outputs = f" ({len(cell.outputs)} outputs)" if cell.outputs else ""
    return f"[{index}] {cell.id} {cell.cell_type}{count}{outputs}: {first}"


def render_cell(
    index: int, cell: Cell, *, max_chars: int, max_image_bytes: int, max_images: int, with_outputs: bool = True
) -> list[ContentItem]:
    """``read_cell``'s answer: a text item (header, source, textual outputs), then image items."""
    parts = [cell_header(index, cell), "Source:", clean(cell.source, max_chars // 2)]
    images: list[ContentItem] = []
    if with_outputs and cell.outputs:
        parts.append("Outputs:")
        budget = max_chars // 2
        for output in cell.outputs:
            text, found = output_text(output, max_chars=budget, max_image_bytes=max_image_bytes)
            for item in found:
                if isinstance(item, str):
                    text += "\n" + item
                elif len(images) < max_images:
                    images.append(item)
                else:
                    text += "\n[image output left out: an answer carries at most {} images]".format(max_images)
            parts.append(text)
            budget = max(budget - len(text), 200)
    body = clean("\n".join(parts), max_chars)
    return [{"type": "input_text", "text": body}, *images]


def output_text(output: dict[str, Any], *, max_chars: int, max_image_bytes: int) -> tuple[str, list[ContentItem | str]]:
    """One nbformat output as text (``[stream stdout] ...``) and the image items it holds."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"[stream {clean(output.get('name', 'stdout'), 20)}]\n{clean(output.get('text', ''), max_chars)}", []
    if kind == "error":
        name, value = clean(output.get("ename", ""), 200), clean(output.get("evalue", ""), 2000)
        trace = "\n".join(clean(line, 2000) for line in (output.get("traceback") or [])[-20:])
        return clean(f"[error] {name}: {value}\n{trace}", max_chars), []
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    assert isinstance(data, dict)
    images: list[ContentItem | str] = [
        image_item(mime, data[mime], max_bytes=max_image_bytes) for mime in IMAGE_MIMES if mime in data
    ]
    mime = next((m for m in TEXT_MIMES if m in data), None)
    label = f"[{clean(kind, 40)}{' ' + mime if mime else ''}]"
    text = clean(data[mime], max_chars) if mime else ("(image)" if images else "(no text form)")
    return f"{label}\n{text}", images
