"""Bounding what the notebook tools hand the model: text with a visible truncation marker,
control characters made visible, images kept only when small.

Everything here is pure: the kernel, the front end and the code a model runs may all produce
unbounded or hostile bytes, and every answer passes through these helpers first.
"""

from __future__ import annotations

import base64
import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def truncation_marker(dropped: int) -> str:
    return f"\n…[{dropped} characters truncated]…\n"


def bound_text(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail around the marker."""
    if len(text) <= limit:
        return text
    keep = max(limit - 40, 0)
    head = keep * 2 // 3
    tail = keep - head
    dropped = len(text) - head - tail
    return text[:head] + truncation_marker(dropped) + (text[len(text) - tail :] if tail else "")


def visible(text: str) -> str:
    """ANSI colour codes dropped, other control characters shown as ``\\xNN`` (tabs and newlines kept)."""
    text = _ANSI.sub("", text.replace("\r\n", "\n"))
    return _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}", text
    )


def clean(text: Any, limit: int) -> str:
    """A front end's or a program's text, made visible and bounded (non-text becomes its ``str``)."""
    if isinstance(text, list):  # nbformat stores multi-line strings as lists of lines
        text = "".join(str(part) for part in text[:100_000])
    return bound_text(visible(str(text)), limit)


def image_item(mime: str, data: Any, *, max_bytes: int) -> dict[str, Any] | str:
    """An ``input_image`` content item for base64 image data, or a line saying why it was left out."""
    if not isinstance(data, str):
        return f"[{mime} output left out: its data is not base64 text]"
    compact = "".join(data.split())
    size = len(compact) * 3 // 4
    if size > max_bytes:
        return f"[{mime} output left out: about {size} bytes, more than the {max_bytes} bytes an answer carries]"
    try:
        base64.b64decode(compact, validate=True)
    except ValueError:
        return f"[{mime} output left out: its data is not valid base64]"
    return {"type": "input_image", "image_url": f"data:{mime};base64,{compact}", "detail": "high"}
