""" "Rewind to here": which turns offer it, and running the rewind a view asked for.

The one rewind path of the widgets: the transcript's rows and the plan timeline's turns both use it.

It works on any source with ``rewind`` and ``turn_ids`` (a real Codex ``CodexThread``) whose
server offers ``thread/revert`` (``server.features``): other sources, and a release without it,
offer nothing, so the view shows no button. A view's request is checked against
``protocol.json`` and runs on the server's own loop (``thread_actions``); its outcome, an error
included, is one line in the widget's ``rewind_note``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..protocol.rewind import rewound_line
from .browser_messages import ProtocolError, validate_to_kernel
from .thread_actions import offers, run_on_server

MAX_OFFERED_TURNS = 1000
"""Turns offered for a rewind (the newest): the trait stays small on a long thread."""


class Rewinder:
    """The part of a ``Transcript`` that offers and runs rewinds (see the module docstring)."""

    def __init__(self, source: Any, widget: Any, *, view: str = "transcript") -> None:
        self.source = source
        self.widget = widget
        self.view = view
        """The widget's name in ``protocol.json`` (its ``rewind`` request is checked against it)."""
        self.tasks: set[asyncio.Task[Any]] = set()
        self.refresh()

    def refresh(self) -> None:
        """Offer the source's known turns (none when it cannot rewind)."""
        offered = offers(self.source, "rewind", "thread/revert")
        turns = list(getattr(self.source, "turn_ids", []) or []) if offered else []
        self.widget.rewind_turns = [str(t) for t in turns[-MAX_OFFERED_TURNS:]]

    def on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        try:
            message = validate_to_kernel(self.view, content)
        except ProtocolError as err:
            self.widget.rewind_note = f"the view sent a message codex_nb cannot read: {err}"
            return
        turn = message["turn"]
        if turn not in self.widget.rewind_turns:
            what = "transcript" if self.view == "transcript" else "timeline"
            self.widget.rewind_note = f"turn {turn[:40]!r} is not one this {what} offers to rewind to"
            return
        self.widget.rewind_note = "Rewinding…"
        run_on_server(
            self.source,
            lambda: self.source.rewind(turn),
            self._said,
            done=rewound_line,
            tasks=self.tasks,
        )

    def _said(self, line: str) -> None:
        self.widget.rewind_note = line
