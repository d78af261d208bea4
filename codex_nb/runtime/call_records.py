"""``CallRecords``: the session's lifecycle records and control-tool facts.

They are analytics, not Codex protocol events: they stay off the event bus (whose
stream is Codex wire JSON for widgets, the rollout and app-server consumers) and are
kept and observable here instead. The call path reports into this through the
``tools.lifecycle.RecordSink`` port; a faulty observer is detached and reported as a
``warning`` event, exactly like a faulty bus subscriber.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Literal

from ..events.bus import EventBus
from ..events.observers import Observers, observer_name
from ..protocol.events import WarningEvent
from ..tools.lifecycle import CallLifecycle, ControlToolCallFact, ControlToolGuard, LifecycleRecord

Phase = Literal["start", "finish"]


DEFAULT_RECORD_LIMIT = 10_000
"""Records kept per log; older ones are dropped (observers still see every record)."""


class CallRecords:
    """Keeps the latest ``LifecycleRecord`` s and ``ControlToolCallFact`` s in bounded rings
    and tells their observers about every one.

    The rings hold the calls' lifecycles and guards (the call path's ``RecordSink`` hands
    them in); a record is built when an observer is told or a log is read, so a call that
    nobody watches pays for no record objects."""

    def __init__(self, bus: EventBus, *, limit: int = DEFAULT_RECORD_LIMIT) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"record limit must be a positive int, got {limit!r}")
        self._bus = bus
        self.limit = limit
        # The lifecycle itself stands for each of its records (its start, then its finish): a
        # (phase, lifecycle) tuple per record was one more object for the collector to walk.
        self._lifecycle_ring: collections.deque[CallLifecycle] = collections.deque(maxlen=limit)
        self._fact_ring: collections.deque[ControlToolGuard] = collections.deque(maxlen=limit)
        self._lifecycle: Observers[LifecycleRecord] = Observers(self._fault, what="a callable taking one record")
        self._facts: Observers[ControlToolCallFact] = Observers(self._fault, what="a callable taking one record")

    @property
    def lifecycle_log(self) -> list[LifecycleRecord]:
        """The latest lifecycle records (at most ``limit``), oldest first; a copy."""
        entries = list(self._lifecycle_ring)
        last = {id(lifecycle): index for index, lifecycle in enumerate(entries)}
        seen: set[int] = set()
        records: list[LifecycleRecord] = []
        for index, lifecycle in enumerate(entries):
            records.append(lifecycle.record(_phase(lifecycle, index, last, seen)))
            seen.add(id(lifecycle))
        return records

    @property
    def control_tool_facts(self) -> list[ControlToolCallFact]:
        """The latest control-tool facts (at most ``limit``), oldest first; a copy."""
        return [guard.fact() for guard in list(self._fact_ring)]

    # The call path's RecordSink (tools.lifecycle).
    def lifecycle_started(self, lifecycle: CallLifecycle) -> None:
        self._lifecycle_ring.append(lifecycle)
        if len(self._lifecycle):
            self._lifecycle.notify(lifecycle.record("start"))

    def lifecycle_finished(self, lifecycle: CallLifecycle) -> None:
        self._lifecycle_ring.append(lifecycle)
        if len(self._lifecycle):
            self._lifecycle.notify(lifecycle.record("finish"))

    def control_tool_done(self, guard: ControlToolGuard) -> None:
        self._fact_ring.append(guard)
        if len(self._facts):
            self._facts.notify(guard.fact())

    def on_lifecycle(self, fn: Callable[[LifecycleRecord], None]) -> Callable[[], None]:
        return self._lifecycle.add(fn)

    def on_control_tool_fact(self, fn: Callable[[ControlToolCallFact], None]) -> Callable[[], None]:
        return self._facts.add(fn)

    def _fault(self, fn: Callable[..., object], err: Exception, record: LifecycleRecord | ControlToolCallFact) -> None:
        self._bus.emit(
            WarningEvent(
                message=f"lifecycle observer {observer_name(fn)} raised {type(err).__name__}: {err}; it was detached"
            ),
            id=record.turn_id,
            turn_id=record.turn_id,
        )


def _phase(lifecycle: CallLifecycle, index: int, last: dict[int, int], seen: set[int]) -> Phase:
    """Which record a ring entry stands for: a lifecycle is entered at its start and at its finish."""
    if id(lifecycle) in seen:
        return "finish"  # its second entry
    if last[id(lifecycle)] != index:
        return "start"  # its first entry, and its finish follows
    # Its only entry: the start of a call still running, or a finish (a call aborted before it
    # started, or one whose start entry the ring has already dropped).
    return "finish" if lifecycle.finished else "start"
