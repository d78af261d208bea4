"""The events a turn's result keeps, bounded.

Every source's turn result (``TurnResult``, the app-server's and ACP's) lists the events the
turn published. A long answer streams one delta event per chunk, so a model (or a hostile
peer) controls how many there are: 10,000 deltas held about 12 MB. The deltas add nothing the
completed message does not hold, so past ``MAX_KEPT_DELTAS`` of them a result stops keeping
more and counts them instead; every other event is kept. Subscribers still see every event as
it is published: only the copy on the result is bounded.
"""

from __future__ import annotations

from ..protocol.events import Event

MAX_KEPT_DELTAS = 10_000
"""Text and reasoning deltas a turn result keeps; later ones are counted in ``dropped_deltas``."""

DELTA_TYPES = frozenset({"agent_message_delta", "agent_reasoning_delta"})
"""Event types that are chunks of a message the turn also publishes whole."""


class TurnEventLog:
    """An append-only list of one turn's events that keeps at most ``max_deltas`` delta events."""

    __slots__ = ("events", "dropped_deltas", "_deltas", "_max_deltas")

    def __init__(self, *, max_deltas: int | None = None) -> None:
        self.events: list[Event] = []
        self.dropped_deltas = 0
        """Delta events published after the first ``max_deltas``, not kept."""
        self._deltas = 0
        self._max_deltas = MAX_KEPT_DELTAS if max_deltas is None else max_deltas

    def append(self, event: Event) -> None:
        """Keep ``event``, unless it is a delta past the cap (then only count it)."""
        if event.msg.type in DELTA_TYPES:
            if self._deltas >= self._max_deltas:
                self.dropped_deltas += 1
                return
            self._deltas += 1
        self.events.append(event)

    def __len__(self) -> int:
        return len(self.events)
