"""Replay a saved session's plan history as an event source.

``RolloutReplay(rollout)`` feeds the plan snapshots of a rollout to the same widgets
that show a live thread; ``seek(i)`` shows snapshot ``i`` (0-based). Each shown
snapshot is emitted as a ``plan_update`` with a fresh revision, because a checklist drops
revisions it has already passed and scrubbing backwards must still show the older plan;
``position`` says which snapshot is on screen.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from ..errors import CodexNbError
from ..events.bus import EventBus
from ..events.source import BusEventSource
from ..frontend.requests import FrontendRequests
from ..protocol.events import Event, PlanUpdate
from .rollout import Rollout, read_rollout


class ReplayError(CodexNbError, IndexError):
    """A seek outside the plan history."""


class RolloutReplay(BusEventSource):
    """An event source over a rollout's plan snapshots (nothing is running: no interrupt)."""

    def __init__(self, rollout: Rollout | str | Path) -> None:
        self.rollout = rollout if isinstance(rollout, Rollout) else read_rollout(rollout)
        session_id = self.rollout.session_id
        # A Rollout may be built by hand: only a non-empty string names the thread.
        self.thread_id = session_id if isinstance(session_id, str) and session_id else self.rollout.path.stem
        self.bus = EventBus(self.thread_id)
        self.frontend_requests = FrontendRequests()
        self.position: int | None = None
        self._revision = itertools.count(1)

    def __len__(self) -> int:
        return len(self.rollout.plans)

    def interrupt(self) -> bool:
        """Always False: a replay runs no turn, so there is nothing to stop."""
        return False

    def seek(self, index: int) -> Event:
        """Show snapshot ``index`` (negative counts from the end)."""
        count = len(self.rollout.plans)
        if count == 0:
            raise ReplayError(
                f"{self.rollout.path.name} has no plan snapshots (no update_plan call said "
                f"'Plan updated'); nothing to replay"
            )
        if not -count <= index < count:
            raise ReplayError(f"snapshot {index} is out of range: this session has {count} (0..{count - 1})")
        index %= count
        snapshot = self.rollout.plans[index]
        event = self.bus.emit(
            PlanUpdate.from_args(snapshot.args),
            id=snapshot.call_id,
            turn_id=snapshot.turn_id,
            revision=next(self._revision),
        )
        self.position = index
        return event

    def first(self) -> Event:
        """Show the first snapshot (``seek(0)``); ``ReplayError`` if there is none."""
        return self.seek(0)

    def last(self) -> Event:
        """Show the latest snapshot (``seek(-1)``); ``ReplayError`` if there is none."""
        return self.seek(-1)

    def step(self, delta: int = 1) -> Event:
        """Move ``delta`` snapshots from the current one (clamped to the history)."""
        current = -1 if self.position is None else self.position
        return self.seek(max(0, min(len(self) - 1, current + delta)))

    def describe(self, index: int | None = None) -> str:
        """Where snapshot ``index`` (default: the one shown) sits, in words: ``Replay: plan snapshot 2
        of 5 (turn 1 of 3)``, or the snapshot count while none is shown yet. The scrubber's label."""
        index = self.position if index is None else index
        if index is None:
            return f"Replay of {self.rollout.path.name}: {len(self)} plan snapshot(s), none shown yet"
        snap = self.rollout.plans[index]
        turns = [t.turn_id for t in self.rollout.turns]
        where = f"turn {turns.index(snap.turn_id) + 1} of {len(turns)}" if snap.turn_id in turns else "unknown turn"
        return f"Replay: plan snapshot {index + 1} of {len(self)} ({where})"

    def __repr__(self) -> str:
        return f"<RolloutReplay {self.describe()}>"
