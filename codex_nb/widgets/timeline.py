"""PlanTimelineWidget: a live anywidget list of a ``PlanTimeline``'s revisions beside the
checklist of the selected one.

Kernel -> browser is synced state only: ``entries`` (one summary line per revision, the
newest ``MAX_LISTED``), ``selected`` and the ``snapshot`` of the selected revision (its
steps, each with what changed against the revision before, and the steps it removed).
Only the selected snapshot's steps cross the comm, so a 10,000-revision history costs one
list of short lines. ``selected`` None follows the newest revision. Recording bursts are
coalesced: every revision recorded in one pass of the event loop is sent as one update.

Browser -> kernel: ``{id, kind: "select", index}`` (``index`` null: follow the newest),
checked against ``protocol.json``; a bad one is shown in ``protocol_error`` and answered
with an ``error`` reply. The kernel keeps running.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import anywidget
import traitlets

from ..events.source import EventSource
from ..protocol.wire import well_formed
from ..timeline.recorder import PlanTimeline
from ..timeline.records import PlanDiff, PlanProposal, PlanRevision, StepChange
from ..timeline.report import describe_change, iso_time, summarize
from ._static import bundle_esm, read_static
from .browser_messages import ProtocolError, validate_to_kernel
from .final_state import FinalStateFallback
from .timeline_static import notes as _notes
from .timeline_static import static_timeline_html

log = logging.getLogger("codex_nb.widgets.timeline")

WIDGET = "plan_timeline"
MAX_LISTED = 500
"""Revisions listed in the view (the newest); the rest are counted in ``hidden``."""
LIST_ID_CHARS = 12
PROPOSALS_LISTED = 20
PROPOSAL_CHARS = 8000
"""Characters of a proposed plan sent to the view (the record keeps more; the cut is marked)."""
STATIC_LISTED = 50
"""Revisions listed in the static HTML (the newest): it is stored in the notebook."""
"""Characters of a turn or call id in a list line (the selected revision's heading has them whole)."""


class PlanTimelineWidget(FinalStateFallback, anywidget.AnyWidget):
    """``PlanTimelineWidget(timeline)`` or ``PlanTimelineWidget(source)`` (records a new timeline)."""

    _esm = bundle_esm("plan_timeline.js")
    _css = read_static("plan_checklist.css") + read_static("plan_timeline.css")

    entries = traitlets.List(traitlets.Dict()).tag(sync=True)
    """One summary per listed revision, oldest first: index, label, summary, done, total, regression."""
    hidden = traitlets.Int(0).tag(sync=True)
    """Kept revisions older than the listed ones."""
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
    protocol_error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, timeline: PlanTimeline | EventSource, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.owns_timeline = not isinstance(timeline, PlanTimeline)
        self.timeline = timeline if isinstance(timeline, PlanTimeline) else PlanTimeline(timeline)
        self._lock = threading.RLock()
        self._scheduled = False
        self._entries: dict[int, tuple[tuple[int | None, int], dict[str, Any]]] = {}
        self._loop = _running_loop()
        self.on_msg(self._on_view_msg)
        self._remove = self.timeline.on_change(self._on_revision)
        self._refresh()

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
        loop.call_soon_threadsafe(self._refresh)

    def _refresh(self) -> None:
        with self._lock:
            self._scheduled = False
            revisions = self.timeline.revisions
            start = max(0, len(revisions) - MAX_LISTED)
            entries = [self._entry(revisions, i) for i in range(start, len(revisions))]
            kept = {entry["index"] for entry in entries}
            for index in [i for i in self._entries if i not in kept]:
                del self._entries[index]
            shown = self._shown(revisions)
            with self.hold_sync():
                self.entries = entries
                self.hidden = start
                self.notes = _notes(self.timeline)
                self.proposals = [_proposal(p) for p in self.timeline.proposals[-PROPOSALS_LISTED:]]
                no_plan = self.timeline.no_plan
                self.no_plan = "" if no_plan is None else well_formed(no_plan.line)
                # set_trait: the trait allows None, which its declared (stub) type does not say
                self.set_trait("snapshot", None if shown is None else _snapshot(shown, self.timeline.changes(shown)))

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

    def _entry(self, revisions: tuple[PlanRevision, ...], i: int) -> dict[str, Any]:
        """The list line of ``revisions[i]``, made once: a revision and its predecessor never change."""
        previous = revisions[i - 1] if i else None
        key = (None if previous is None else previous.index, revisions[i].index)
        cached = self._entries.get(revisions[i].index)
        if cached is None or cached[0] != key:
            cached = (key, _entry(revisions[i], self.timeline.diff(previous, revisions[i])))
            self._entries[revisions[i].index] = cached
        return cached[1]

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
        try:
            message = validate_to_kernel(WIDGET, content)
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
        if self.owns_timeline:
            self.timeline.close()

    def close(self) -> None:
        if hasattr(self, "_remove"):
            self.detach()
        super().close()


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


def _change(change: StepChange | None) -> str:
    if change is None:
        return ""
    return describe_change(change, quote=lambda text: well_formed(text)[:120], status=str, regression="regression")


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
