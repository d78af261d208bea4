"""Transcript: the running turn as it happens -- assistant text as it streams, each tool
call with its status and output, retries and errors -- for any event source.

It reads events only (``TranscriptState``), so a ``Session``, a real Codex app-server
thread, an ACP session or a replay all show the same way. Kernel -> browser is synced
state (``entries``, ``status``, ``error``, ``earlier``), coalesced: at most ``max_rate``
updates per second while text streams (jupyter_server drops IOPub bursts), the latest state
wins, and the end of a turn is always delivered at once.

Two messages come back from the browser, both only on a source that offers them (a real Codex
thread). ``{kind: "override_review", id}`` is the person's confirmed override of a denial by
Codex's automatic review (``can_override``). Where the binary has ``thread/revert`` the view offers
"Rewind to here" on each turn it knows (``rewind_turns``): it asks first, saying how many turns are
undone and that the files they changed are not restored, then sends ``rewind``; the kernel runs
``thread.rewind(turn)`` on the app-server's loop and says how it went in ``rewind_note``.

Only the newest ``rows`` entries are synced (``earlier`` counts the rest), so a turn of a
thousand tool calls costs each update, and the page, the same as a turn of ``rows``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
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
from .browser_messages import ProtocolError, validate_to_kernel
from .kernel_loop import running_loop
from .diff_static import diff_html
from .final_state import FinalStateFallback
from .transcript_rewind import Rewinder
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
    """``[{kind, id, text, status, title, detail, turn, rewound}]``; kind is user (the person's words) | assistant |
    reasoning | tool | notice (a retry) | note (a rewind, a compaction) | error | hook | saved | diff (the turn's
    unified diff in ``text``, its headline in ``title``) | review (Codex's automatic review: action in
    ``title``, verdict in ``status``, rationale in ``text``) | agent_notice | compaction | subagent (an ACP
    agent's notice, context compaction, subagent); ``turn`` is the entry's turn id ("" when
    unknown), ``rewound`` whether a rewind undid that turn."""
    status = traitlets.Unicode("idle").tag(sync=True)
    """idle | running | completed | interrupted | failed (the latest turn) | rewound (a rewind undid it)."""
    error = traitlets.Unicode("").tag(sync=True)
    """The error that failed the latest turn."""
    title = traitlets.Unicode("").tag(sync=True)
    """The session's title as its source set it (an ACP agent's), shown in the header; "" for none."""
    earlier = traitlets.Int(0).tag(sync=True)
    """Entries of the latest turn before the ``entries`` shown (``text()`` has the kept ones)."""
    can_override = traitlets.Bool(False).tag(sync=True)
    """The source can override a denial of Codex's automatic review (a real Codex thread): the
    view offers it on a denied ``review`` entry."""
    review_error = traitlets.Unicode("").tag(sync=True)
    """Why the person's last override was refused (empty when it went through)."""
    rewind_turns = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """The turns "Rewind to here" is offered on, oldest first (empty: no rewind on this source)."""
    rewind_note = traitlets.Unicode("").tag(sync=True)
    """How the last rewind asked from the view went (its one-line error, or what it undid)."""

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
        self._override: Callable[[str], Any] | None = getattr(source, "approve_denied_action", None)
        self._override_loop: asyncio.AbstractEventLoop | None = getattr(getattr(source, "server", None), "loop", None)
        self.can_override = self._override is not None
        self.overrides: list[concurrent.futures.Future[Any]] = []
        """The overrides sent from the view (for tests: each settles when Codex answered)."""
        self._interval = 1.0 / max_rate if max_rate else 0.0
        self._lock = threading.RLock()
        self._dirty = False
        self._timer: asyncio.TimerHandle | None = None
        self._last_flush = float("-inf")
        self._loop = running_loop()
        self._rewinder = Rewinder(source, self)
        self._unsubscribe: Callable[[], None] = source.subscribe(self._on_event)
        self.on_msg(self._on_view_msg)

    def _on_view_msg(self, widget: object, content: object, buffers: object) -> None:
        if isinstance(content, dict) and content.get("kind") == "rewind":
            self._rewinder.on_view_msg(widget, content, buffers)
        else:
            self.receive(content)

    def receive(self, content: object) -> bool:
        """Apply one browser message: ``{kind: "override_review", id: <review id>}`` sends the
        override to Codex; anything else is refused in ``review_error``. True if sent."""
        try:
            review_id = validate_to_kernel("transcript", content)["id"]
        except ProtocolError as err:
            self.review_error = f"the transcript refused a message from its view: {err}"
            return False
        if self._override is None or self._override_loop is None:
            self.review_error = "this source cannot override an automatic review (only a real Codex thread can)"
            return False
        self.review_error = ""
        future = asyncio.run_coroutine_threadsafe(self._override(review_id), self._override_loop)
        future.add_done_callback(self._override_done)
        self.overrides.append(future)
        return True

    def _override_done(self, future: concurrent.futures.Future[Any]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None:
            self.review_error = f"the override was not sent: {str(error)[:300]}"

    def _on_event(self, event: Event) -> None:
        if event.thread_id and event.thread_id != self._thread:
            return
        if event.msg.type in ("turn_started", "thread_rewound"):
            self._rewinder.refresh()
        with self._lock:
            if not self.state.apply(event):
                return
            self._dirty = True
            urgent = event.msg.type in _URGENT
            loop = running_loop()
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

    def show_saved(self, turns: Sequence[SavedTurn], *, earlier_turns: int = 0, head: str | None = None) -> None:
        """Show a saved conversation above the live turns (a resumed or forked thread's history;
        ``RolloutReplay.saved_turns()`` gives both arguments; ``head``: the first line's words in
        place of the turn count, as a paged history says how much is loaded). Sent to the view at
        once; showing it again replaces it (older turns loaded above)."""
        with self._lock:
            self.state.load_saved(turns, earlier_turns=earlier_turns, head=head)
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
