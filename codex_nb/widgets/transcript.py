"""Transcript: the running turn as it happens -- assistant text as it streams, each tool
call with its status and output, retries and errors -- for any event source.

It reads events only (``TranscriptState``), so a ``Session``, a real Codex app-server
thread, an ACP session or a replay all show the same way. Kernel -> browser is synced
state (``entries``, ``status``, ``error``, ``earlier``), coalesced: at most ``max_rate``
updates per second while text streams (jupyter_server drops IOPub bursts), the latest state
wins, and the end of a turn is always delivered at once. Nothing comes back from the browser.

Only the newest ``rows`` entries are synced (``earlier`` counts the rest), so a turn of a
thousand tool calls costs each update, and the page, the same as a turn of ``rows``.
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import anywidget
import traitlets

from ..protocol.events import Event
from ..protocol.turn_diff import diff_files
from ..rollouts.rollout_replay import SavedTurn
from ._static import asset
from .checklist import _running_loop
from .diff_static import diff_html
from .final_state import FinalStateFallback
from .transcript_state import TranscriptState

DEFAULT_MAX_RATE = 20.0
DEFAULT_ROWS = 200
# Sent at once; everything else (text deltas, tool calls starting and ending) is coalesced to
# max_rate, since a response of a thousand tool calls would otherwise be two thousand updates.
_URGENT = frozenset(
    {"user_message", "turn_started", "turn_complete", "turn_aborted", "error", "stream_error", "acp_notice"}
)


class Transcript(FinalStateFallback, anywidget.AnyWidget):
    """``cx.Transcript(source)``: a live transcript of ``source``'s turns (any event source)."""

    _esm = asset("transcript.js")
    _css = asset("transcript.css")

    entries = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{kind, id, text, status, title, detail}]``; kind is user (the person's words) | assistant | reasoning |
    tool | notice | error | hook | saved | diff (the turn's unified diff in ``text``, its headline in ``title``) |
    agent_notice | compaction | subagent (an ACP agent's notice, context compaction, subagent)."""
    status = traitlets.Unicode("idle").tag(sync=True)
    """idle | running | completed | interrupted | failed (the latest turn)."""
    error = traitlets.Unicode("").tag(sync=True)
    """The error that failed the latest turn."""
    title = traitlets.Unicode("").tag(sync=True)
    """The session's title as its source set it (an ACP agent's), shown in the header; "" for none."""
    earlier = traitlets.Int(0).tag(sync=True)
    """Entries of the latest turn before the ``entries`` shown (``text()`` has the kept ones)."""

    def __new__(cls, source: Any = None, **kwargs: Any) -> Transcript:
        if not (hasattr(source, "subscribe") and hasattr(source, "thread_id")):
            raise TypeError(
                f"Transcript needs an event source (a codex_nb.Session, an app-server thread, ...), got "
                f"{type(source).__name__}; pass it: cx.Transcript(session)"
            )
        rows = kwargs.get("rows", DEFAULT_ROWS)  # checked here: a widget half-built by __init__ fails in __del__
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
            raise ValueError(f"Transcript(rows=...) is how many entries the view shows: a positive int, got {rows!r}")
        widget: Transcript = super().__new__(cls, source, **kwargs)
        return widget

    def __init__(
        self, source: Any, *, max_rate: float | None = DEFAULT_MAX_RATE, rows: int = DEFAULT_ROWS, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.rows = rows
        self.state = TranscriptState()
        title = getattr(source, "title", None)  # an ACP session's, set before this widget subscribed
        if isinstance(title, str):
            self.state.title = self.title = title
        self.flushes = 0
        """How many state updates were sent to the browser (for tests and the benchmark)."""
        self._thread = source.thread_id
        self._interval = 1.0 / max_rate if max_rate else 0.0
        self._lock = threading.RLock()
        self._dirty = False
        self._timer: asyncio.TimerHandle | None = None
        self._last_flush = float("-inf")
        self._loop = _running_loop()
        self._unsubscribe: Callable[[], None] = source.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if event.thread_id and event.thread_id != self._thread:
            return
        with self._lock:
            if not self.state.apply(event):
                return
            self._dirty = True
            urgent = event.msg.type in _URGENT
            loop = _running_loop()
            if loop is None or urgent or time.monotonic() - self._last_flush >= self._interval:
                self._flush()
            elif self._timer is None:
                self._loop = loop
                delay = max(0.0, self._last_flush + self._interval - time.monotonic())
                self._timer = loop.call_later(delay, self._flush)

    def _flush(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not self._dirty:
                return
            self._dirty = False
            self._last_flush = time.monotonic()
            self.flushes += 1
            with self.hold_sync():
                self.entries = self.state.snapshot(last=self.rows)
                self.earlier = self.state.earlier(len(self.entries))
                self.status = self.state.status
                self.error = self.state.error
                self.title = self.state.title

    def show_saved(self, turns: Sequence[SavedTurn], *, earlier_turns: int = 0) -> None:
        """Show a saved conversation above the live turns (a resumed or forked thread's history;
        ``RolloutReplay.saved_turns()`` gives both arguments). Sent to the view at once."""
        with self._lock:
            self.state.load_saved(turns, earlier_turns=earlier_turns)
            self._dirty = True
            self._flush()

    def flush(self) -> None:
        """Send any pending update now (the timer would within ``1 / max_rate`` seconds)."""
        self._flush()

    def before_static(self) -> None:
        """Send any coalesced update, so the stored output and the view end on the same entries."""
        self.flush()

    # -- reprs (stable for nbval: no addresses, ids or times) -----------------------------

    def text(self) -> str:
        """The latest turn as plain text under a status line (``Transcript: running``), one line per
        entry: every kept entry, not only the newest ``rows`` the view shows."""
        with self._lock:
            return self.state.text()

    def html(self) -> str:
        """``text()`` in an escaped ``<pre>`` block, then the turn's diff by file (collapsible,
        coloured) when the turn changed files."""
        with self._lock:
            text, diff = self.state.text(), self.state.diff
            changes = "" if diff is None else diff_html(diff_files(diff.text()), note=diff.detail)
        return f'<pre class="cx-transcript-static">{html.escape(text)}</pre>{changes}'

    def __repr__(self) -> str:
        return self.text()

    def detach(self) -> None:
        """Stop following the source; what is shown stays (pending updates are sent first)."""
        self._unsubscribe()
        self._flush()

    def close(self) -> None:
        """``detach()`` (pending updates are sent first), then close the comm."""
        self.detach()
        super().close()
