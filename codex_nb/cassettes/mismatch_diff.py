"""The short diff a mismatch error shows: recorded against actual, as indented JSON, bounded."""

from __future__ import annotations

import difflib
import json
from typing import Any

MAX_LINES = 24
MAX_LINE_CHARS = 160


def short_diff(recorded: Any, actual: Any, *, max_lines: int = MAX_LINES) -> str:
    """A unified diff (``-`` recorded, ``+`` this run) of two JSON values, at most ``max_lines`` lines."""
    old, new = _lines(recorded), _lines(actual)
    body = list(difflib.unified_diff(old, new, "recorded", "this run", n=2, lineterm=""))
    if not body:
        return "(the bodies are equal after normalisation; the recording was already played)"
    out = [_clip(line) for line in body[: max_lines + 2]]
    if len(body) > max_lines + 2:
        out.append(f"... ({len(body) - max_lines - 2} more diff lines)")
    return "\n".join(out)


def _lines(value: Any) -> list[str]:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr).splitlines()
    except (TypeError, ValueError):
        return repr(value).splitlines()


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 3] + "..."
