"""What the model reads back from ``exec`` / ``wait``, in Codex's exact form.

A header text item ``{status}\\nWall time {secs:.1f} seconds\\nOutput:\\n``, then the
script's items, then ``Script error:\\n{text}`` on failure. Text beyond the token budget
is middle-truncated with Codex's ``formatted_truncate_text`` layout (4 bytes per token).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol.items import ContentItem, OutputBody, collapse_body

BYTES_PER_TOKEN = 4
CellStatus = Literal["running", "completed", "failed", "terminated"]


@dataclass(kw_only=True)
class CellSnapshot:
    """The new output of one cell since its last yield, and where it stands."""

    cell_id: str
    status: CellStatus
    wall_time_s: float
    items: list[ContentItem] = field(default_factory=list)
    error: str | None = None

    @property
    def status_line(self) -> str:
        return {
            "running": f"Script running with cell ID {self.cell_id}",
            "completed": "Script completed",
            "failed": "Script failed",
            "terminated": "Script terminated",
        }[self.status]

    @property
    def success(self) -> bool:
        """``error is None`` for a finished script; True for running or terminated ones."""
        if self.status in ("running", "terminated"):
            return True
        return self.error is None


def approx_tokens(text: str) -> int:
    return -(-len(text.encode()) // BYTES_PER_TOKEN)


def formatted_truncate_text(text: str, max_tokens: int) -> str:
    budget = max_tokens * BYTES_PER_TOKEN
    raw = text.encode()
    if len(raw) <= budget:
        return text
    head = raw[: budget // 2].decode(errors="ignore")
    tail = raw[len(raw) - (budget - budget // 2) :].decode(errors="ignore") if budget else ""
    removed = len(raw) - len(head.encode()) - len(tail.encode())
    lines = len(text.splitlines())
    return (
        f"Warning: truncated output (original token count: {approx_tokens(text)})\n"
        f"Total output lines: {lines}\n\n{head}…{-(-removed // BYTES_PER_TOKEN)} tokens truncated…{tail}"
    )


def truncate_items(items: list[ContentItem], max_tokens: int) -> list[ContentItem]:
    """Within budget: unchanged. Otherwise all text joins into one truncated item, media kept."""
    texts = [i["text"] for i in items if i.get("type") == "input_text"]
    combined = "\n".join(texts)
    if len(combined.encode()) <= max_tokens * BYTES_PER_TOKEN:
        return items
    media = [i for i in items if i.get("type") != "input_text"]
    return [{"type": "input_text", "text": formatted_truncate_text(combined, max_tokens)}, *media]


def result_body(snapshot: CellSnapshot, *, max_output_tokens: int) -> OutputBody:
    header = f"{snapshot.status_line}\nWall time {snapshot.wall_time_s:.1f} seconds\nOutput:\n"
    body: list[dict[str, Any]] = [{"type": "input_text", "text": header}]
    body += truncate_items(snapshot.items, max_output_tokens)
    if snapshot.error is not None:
        body.append({"type": "input_text", "text": f"Script error:\n{snapshot.error}"})
    return collapse_body(body)
