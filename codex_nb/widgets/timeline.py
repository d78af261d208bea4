"""PlanTimelineWidget: a live anywidget list of a ``PlanTimeline``'s revisions beside the
checklist of the selected one.

Kernel -> browser is synced state only: ``entries`` (one summary line per revision, one page
of at most ``MAX_LISTED``: the page holding the selection, or the newest), ``hidden`` and
``newer`` (kept revisions before and after the page), ``selected`` and the ``snapshot`` of the
selected revision (its steps, each with what changed against the revision before, and the
steps it removed). Only one page and the selected snapshot's steps cross the comm, and the
view draws one page, so a 10,000-revision history costs what a 100-revision one does; the
arrow keys page on past either end. ``selected`` None follows the newest revision.
Recording bursts are coalesced: every revision recorded in one pass of the event loop is
sent as one update, and at most ``max_rate`` updates a second (the last always lands, by a
timer on the kernel's loop).

A real Codex thread's goal records (``goals``: set, status changes, cleared, with objective, budget
and usage) are listed beside the proposals. Where the source is a real Codex thread whose release
rewinds (``thread/revert``), the selected revision's turn offers "Rewind to here" (``rewind_turns``),
with the transcript's confirmation and its one rewind path (``transcript_rewind.Rewinder``); the
outcome is ``rewind_note``. The view shows the button only once the kernel answered its ``hello``,
so a view restored from a saved notebook, with no kernel behind it, offers none.

Browser -> kernel: ``{id, kind: "select", index}`` (``index`` null: follow the newest),
``{id, kind: "hello"}`` and ``{id, kind: "rewind", turn}``, checked against ``protocol.json``; a
bad one is shown in ``protocol_error`` and answered with an ``error`` reply. The kernel keeps running.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import anywidget
import traitlets

from ..events.source import EventSource
from ..protocol.wire import well_formed
from ..timeline.recorder import PlanTimeline
from ..timeline.records import GoalRecord, PlanDiff, PlanProposal, PlanRevision, StepChange
from ..timeline.report import describe_change, iso_time, summarize
from ._static import asset
from .browser_messages import ProtocolError, validate_to_kernel
from .final_state import FinalStateFallback
from .timeline_static import notes as _notes
from .timeline_static import static_timeline_html
from .kernel_loop import running_loop
from .thread_actions import offers
from .transcript_rewind import Rewinder

log = logging.getLogger("codex_nb.widgets.timeline")

WIDGET = "plan_timeline"
MAX_LISTED = 100
"""Revisions in one page of the view's list; the rest are counted in ``hidden`` and ``newer``."""
DEFAULT_MAX_RATE = 20.0
"""View updates a second while revisions stream in (a selection is answered at once)."""
LIST_ID_CHARS = 12
PROPOSALS_LISTED = 20
PROPOSAL_CHARS = 8000
"""Characters of a proposed plan sent to the view (the record keeps more; the cut is marked)."""
GOALS_LISTED = 20
"""Goal records sent to the view (the newest)."""
STATIC_LISTED = 50
"""Revisions listed in the static HTML (the newest): it is stored in the notebook."""
"""Characters of a turn or call id in a list line (the selected revision's heading has them whole)."""


class PlanTimelineWidget(FinalStateFallback, anywidget.AnyWidget):
    """``PlanTimelineWidget(timeline)`` or ``PlanTimelineWidget(source)`` (records a new timeline)."""

    _esm = asset("plan_timeline.js")
    _css = asset("plan_timeline.css")

    # No per-element trait (the entries are built here), and the page crosses the comm as one
    # JSON string: ipywidgets walks every value of a synced structure looking for buffers, which
    # for a page of dicts costs more than the rest of a refresh.
    entries: traitlets.List[dict[str, Any]] = traitlets.List().tag(
        sync=True, to_json=lambda value, _widget: _page_json(value)
    )
    """One summary per listed revision, oldest first: index, label, summary, done, total, regression
    (and ``rewound`` when a rewind undid its turn)."""
    hidden = traitlets.Int(0).tag(sync=True)
    """Kept revisions older than the listed page."""
    newer = traitlets.Int(0).tag(sync=True)
    """Kept revisions newer than the listed page (0 while following the newest)."""
    notes = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """What the timeline dropped (evicted, refused out of order), as sentences."""
    selected = traitlets.Int(None, allow_none=True).tag(sync=True)
    """The selected revision's index; None follows the newest."""
    snapshot = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    """The shown revision: index, heading, explanation, steps (step, status, change), removed."""
    proposals = traitlets.List(traitlets.Dict()).tag(sync=True)
    """Plan mode's proposed plans, the newest ``PROPOSALS_LISTED``: index, heading, text, awaiting."""
    no_plan = traitlets.Unicode("").tag(sync=True)
    """Why the latest ended turn has no plan, in one line ("" when it had one or nothing says why)."""
    goals = traitlets.List(traitlets.Dict()).tag(sync=True)
    """A real Codex thread's goal records, the newest ``GOALS_LISTED``: index, status, line, time, turn."""
    rewind_turns = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """The turns "Rewind to here" is offered on, oldest first (empty: the source cannot rewind)."""
    rewind_note = traitlets.Unicode("").tag(sync=True)
    """How the last rewind asked from the view went (its one-line error, or what it undid)."""
    protocol_error = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self, timeline: PlanTimeline | EventSource, *, max_rate: float | None = DEFAULT_MAX_RATE, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._interval = 1.0 / max_rate if max_rate else 0.0
        self._last_refresh = float("-inf")
        self.owns_timeline = not isinstance(timeline, PlanTimeline)
        self.timeline = timeline if isinstance(timeline, PlanTimeline) else PlanTimeline(timeline)
        self._lock = threading.RLock()
        self._scheduled = False
        self._entries: dict[int, tuple[int | None, dict[str, Any], PlanDiff]] = {}
        """index -> (the predecessor it was compared with, its list line, its diff)."""
        self._loop = running_loop()
        self._rewinder = Rewinder(self.timeline.source, self, view=WIDGET)
        self.on_msg(self._on_view_msg)
        self._remove = self.timeline.on_change(self._on_revision)
        rewinds = offers(self.timeline.source, "rewind", "thread/revert")
        self._unsubscribe = self.timeline.source.subscribe(self._on_source_event) if rewinds else None
        self._refresh()

    def _on_source_event(self, event: Any) -> None:
        """The turns a rewind is offered on follow the thread's (a turn started, ended or undone)."""
        if event.msg.type in ("turn_started", "turn_complete", "turn_aborted", "thread_rewound"):
            self._rewinder.refresh()

    # ---- kernel -> browser ----------------------------------------------------------------

    def _on_revision(self) -> None:
        with self._lock:
            if self._scheduled:
                return
            loop = self._loop if self._loop is not None and not self._loop.is_closed() else None
            if loop is None:
                self._refresh()
                return
            self._scheduled = True
        delay = max(0.0, self._last_refresh + self._interval - loop.time())
        if running_loop() is loop:  # on the loop already: no wake-up write needed
            if delay:
                loop.call_later(delay, self._refresh)
            else:
                loop.call_soon(self._refresh)
        else:
            loop.call_soon_threadsafe(loop.call_later, delay, self._refresh)

    def _refresh(self) -> None:
        with self._lock:
            self._scheduled = False
            if self._loop is not None and not self._loop.is_closed():
                self._last_refresh = self._loop.time()
            revisions = self.timeline.revisions
            shown = self._shown(revisions)
            start, end = _page(revisions, shown)
            rewound = set(self.timeline.rewound_turns)
            entries = [
                {**self._entry(revisions, i)[0], "rewound": True}
                if revisions[i].turn_id in rewound
                else self._entry(revisions, i)[0]
                for i in range(start, end)
            ]
            if len(self._entries) > 2 * MAX_LISTED:  # forget lines of pages no longer listed
                kept = {entry["index"] for entry in entries}
                for index in [i for i in self._entries if i not in kept]:
                    del self._entries[index]
            snapshot = None
            if shown is not None:
                cached = self._entries.get(shown.index)
                changes = cached[2] if cached is not None else self.timeline.changes(shown)
                snapshot = _snapshot(shown, changes)
            with self.hold_sync():
                self.entries = entries
                self.hidden = start
                self.newer = len(revisions) - end
                self.notes = _notes(self.timeline)
                self.proposals = [_proposal(p) for p in self.timeline.proposals[-PROPOSALS_LISTED:]]
                no_plan = self.timeline.no_plan
                self.no_plan = "" if no_plan is None else well_formed(no_plan.line)
                self.goals = [_goal(g) for g in self.timeline.goals[-GOALS_LISTED:]]
                # set_trait: the trait allows None, which its declared (stub) type does not say
                self.set_trait("snapshot", snapshot)

    def _shown(self, revisions: tuple[PlanRevision, ...]) -> PlanRevision | None:
        if not revisions:
            return None
        if self.selected is None:
            return revisions[-1]
        try:
            return self.timeline[self.selected]
        except IndexError:  # evicted since it was selected: follow the newest again
            self.selected = None
            return revisions[-1]

    def _entry(self, revisions: tuple[PlanRevision, ...], i: int) -> tuple[dict[str, Any], PlanDiff]:
        """The list line of ``revisions[i]`` and its diff, made once: a revision and its
        predecessor never change (the shown snapshot reuses the diff)."""
        revision = revisions[i]
        cached = self._entries.get(revision.index)
        # kept indices are consecutive, so only the oldest kept can have lost its predecessor
        if cached is None or (i == 0 and cached[0] is not None):
            previous = revisions[i - 1] if i else None
            changes = self.timeline.diff(previous, revision)
            cached = (None if previous is None else previous.index, _entry(revision, changes), changes)
            self._entries[revision.index] = cached
        return cached[1], cached[2]

    def select(self, index: int | None) -> None:
        """Show revision ``index`` (None: follow the newest); IndexError if it is not kept."""
        if index is not None:
            self.timeline[index]  # raises the timeline's clear IndexError
        with self._lock:
            self.selected = index
            self._refresh()

    # ---- browser -> kernel ----------------------------------------------------------------

    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        msg_id = content.get("id") if isinstance(content, dict) else None
        reply_id = msg_id if isinstance(msg_id, str) else None
        if isinstance(content, dict) and content.get("kind") == "rewind":
            self._rewinder.on_view_msg(_widget, content, _buffers)  # says how it went in rewind_note
            return
        try:
            message = validate_to_kernel(WIDGET, content)
            if message["kind"] == "select":
                self.select(message["index"])
        except (ProtocolError, IndexError) as err:
            text = f"rejected a message from the timeline view: {err}"
            log.warning(text)
            self.protocol_error = text
            self.send({"kind": "error", "id": reply_id, "message": text})
            return
        self.protocol_error = ""
        self.send({"kind": "ack", "id": message["id"]})

    # ---- static fallbacks -----------------------------------------------------------------

    def text(self) -> str:
        """The timeline's ``text()``: the revision list, one line each."""
        return self.timeline.text()

    def html(self) -> str:
        """The history as it stands, styled and escaped, for nbconvert, docs sites and GitHub."""
        return static_timeline_html(self.timeline, listed=STATIC_LISTED)

    def __repr__(self) -> str:
        return f"<PlanTimelineWidget revisions={len(self.timeline)} selected={self.selected}>"

    # ---- teardown -------------------------------------------------------------------------

    def detach(self) -> None:
        """Stop following the timeline (and stop recording, if this widget made the timeline)."""
        self._remove()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.owns_timeline:
            self.timeline.close()

    def close(self) -> None:
        """``detach()`` (closing the timeline if this widget made it), then close the comm."""
        if hasattr(self, "_remove"):
            self.detach()
        super().close()


def _page_json(entries: list[dict[str, Any]]) -> str:
    return json.dumps(entries, ensure_ascii=False, separators=(",", ":"))


def _page(revisions: tuple[PlanRevision, ...], shown: PlanRevision | None) -> tuple[int, int]:
    """The listed page ``[start, end)`` of positions: pages are counted back from the newest, so
    the page of a selection stays put while it is browsed, and following shows the newest."""
    count = len(revisions)
    if shown is None or not revisions:
        return max(0, count - MAX_LISTED), count
    position = shown.index - revisions[0].index
    end = count - ((count - 1 - position) // MAX_LISTED) * MAX_LISTED
    return max(0, end - MAX_LISTED), end


def _entry(revision: PlanRevision, changes: PlanDiff) -> dict[str, Any]:
    return {
        "index": revision.index,
        "label": _heading(revision, id_chars=LIST_ID_CHARS),
        "summary": summarize(changes),
        "done": sum(1 for s in revision.steps if s.status == "completed"),
        "total": len(revision.steps),
        "regression": bool(changes.regressions),
    }


def _heading(revision: PlanRevision, *, id_chars: int = 40) -> str:
    parts = [f"#{revision.index}"]
    if revision.turn_id is not None:
        parts.append(f"turn {_short(revision.turn_id, id_chars)}")
    if revision.call_id is not None:
        parts.append(f"call {_short(revision.call_id, id_chars)}")
    elif revision.notification is not None:
        parts.append(revision.notification)
    return " · ".join(parts)


def _short(text: str, limit: int) -> str:
    text = well_formed(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _snapshot(revision: PlanRevision, changes: PlanDiff) -> dict[str, Any]:
    by_position = {c.new_position: c for c in changes.changes if c.new_position is not None}
    return {
        "index": revision.index,
        "turn_id": None if revision.turn_id is None else well_formed(revision.turn_id),
        "heading": _heading(revision),
        "time": iso_time(revision.time),
        "explanation": None if revision.explanation is None else well_formed(revision.explanation),
        "steps": [
            {"step": well_formed(s.step), "status": s.status, "change": _change(by_position.get(i))}
            for i, s in enumerate(revision.steps)
        ],
        "removed": [well_formed(c.old_step or "") for c in changes.removed],
        "summary": summarize(changes),
    }


def _proposal(proposal: PlanProposal) -> dict[str, Any]:
    text = well_formed(proposal.text)
    if len(text) > PROPOSAL_CHARS:
        text = text[:PROPOSAL_CHARS] + f"… [{len(text) - PROPOSAL_CHARS} more characters]"
    heading = f"Proposed plan {proposal.index}"
    if proposal.turn_id is not None:
        heading += f" · turn {_short(proposal.turn_id, LIST_ID_CHARS)}"
    return {
        "index": proposal.index,
        "heading": heading,
        "time": iso_time(proposal.time),
        "text": text,
        "awaiting": proposal.awaiting_decision,
    }


def _goal(goal: GoalRecord) -> dict[str, Any]:
    return {
        "index": goal.index,
        "status": goal.status,
        "line": well_formed(goal.line()),
        "time": iso_time(goal.time),
        "turn": None if goal.turn_id is None else _short(goal.turn_id, LIST_ID_CHARS),
    }


def _change(change: StepChange | None) -> str:
    if change is None:
        return ""
    return describe_change(change, quote=lambda text: well_formed(text)[:120], status=str, regression="regression")
