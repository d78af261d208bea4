"""Thumbnails of the images a turn showed the model (``input_image`` outputs), for notebook transcripts.

``image_thumbnails(result)`` returns an object that Jupyter renders as a row of small
``<img>`` tags (``text/html``) and that prints as one line per image (``text/plain``),
so a notebook shows the picture view_image or an MCP tool returned, deterministically.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any


class ImageThumbnails:
    def __init__(self, images: list[tuple[str, str, str]], *, size: int = 96) -> None:
        self.images = images  # (call_id, data URL, detail)
        self.size = size

    def __len__(self) -> int:
        return len(self.images)

    def __repr__(self) -> str:
        if not self.images:
            return "(no images)"
        return "\n".join(
            f"{call_id}: {url.split(';', 1)[0][5:]} image, {len(url)} characters, detail {detail}"
            for call_id, url, detail in self.images
        )

    def _repr_html_(self) -> str:
        cells = [
            f'<figure style="display:inline-block;margin:4px;text-align:center">'
            f'<img src="{html.escape(url)}" style="max-width:{self.size}px;max-height:{self.size}px;'
            f'image-rendering:pixelated;border:1px solid #ccc"/>'
            f'<figcaption style="font-size:11px">{html.escape(call_id)}</figcaption></figure>'
            for call_id, url, _ in self.images
        ]
        return "<div>" + "".join(cells) + "</div>" if cells else "<div>(no images)</div>"


def image_thumbnails(items: Any, *, size: int = 96) -> ImageThumbnails:
    """Thumbnails for every ``input_image`` in the tool outputs of ``items`` (a TurnResult or item list)."""
    found: list[tuple[str, str, str]] = []
    for item in _items(items):
        output = item.get("output")
        if not item.get("type", "").endswith("_output") or not isinstance(output, list):
            continue
        for part in output:
            if isinstance(part, dict) and part.get("type") == "input_image":
                found.append((str(item.get("call_id", "")), str(part.get("image_url", "")), str(part.get("detail"))))
    return ImageThumbnails(found, size=size)


def _items(items: Any) -> Iterable[dict[str, Any]]:
    found: Iterable[dict[str, Any]] = getattr(items, "items", items)  # a Rollout's items, or the items
    return found
