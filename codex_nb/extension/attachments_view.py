"""AttachmentsView: what a ``%%codex --cells/--outputs/--vars`` turn attached, shown with the turn.

The person sees, before the agent answers, which cells, outputs and variables went with the
prompt, which were cut to their bound, and whether an image went as an image or as its text
description (an agent that takes no images).
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets

from ..widgets.static_fallback import StaticFallback
from .context import Attachments


class AttachmentsView(StaticFallback, ipywidgets.HTML):
    """The Attachments block of one turn."""

    def __init__(self, found: Attachments, **kwargs: Any) -> None:
        self.found = found
        super().__init__(value=self.html(), **kwargs)
        self.add_class("cx-attachments")

    def show(self, found: Attachments) -> None:
        """What went with the prompt, once known (Send to agent's cells are read again as it runs)."""
        self.found = found
        self.value = self.html()

    def text(self) -> str:
        """``Attachments:`` then one line per attachment, then the notes."""
        lines = ["Attachments:", *(f"  {line}" for line in self.found.summary().splitlines())]
        lines.extend(f"  Note: {note}" for note in self.found.notes)
        return "\n".join(lines)

    def html(self) -> str:
        """``text()`` as escaped HTML."""
        return f'<pre class="cx-attachments-static">{html.escape(self.text())}</pre>'
