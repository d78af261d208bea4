"""``CallRecords``: the session's lifecycle records and control-tool facts.

They are analytics, not Codex protocol events: they stay off the event bus (whose
stream is Codex wire JSON for widgets, the rollout and app-server consumers) and are
kept and observable here instead. The call path reports into this through the
``tools.lifecycle.RecordSink`` port; a faulty observer is detached and reported as a
``warning`` event, exactly like a faulty bus subscriber.
"""

from __future__ import annotations

from collections.abc import Callable

from ..events.bus import EventBus
from ..events.observers import Observers, observer_name
from ..protocol.events import WarningEvent
from ..tools.lifecycle import ControlToolCallFact, LifecycleRecord


class CallRecords:
    """Keeps every ``LifecycleRecord`` and ``ControlToolCallFact`` and tells their observers."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self.lifecycle_log: list[LifecycleRecord] = []
        self.control_tool_facts: list[ControlToolCallFact] = []
        self._lifecycle: Observers[LifecycleRecord] = Observers(self._fault, what="a callable taking one record")
        self._facts: Observers[ControlToolCallFact] = Observers(self._fault, what="a callable taking one record")

    def record_lifecycle(self, record: LifecycleRecord) -> None:
        self.lifecycle_log.append(record)
        self._lifecycle.notify(record)

    def record_control_fact(self, fact: ControlToolCallFact) -> None:
        self.control_tool_facts.append(fact)
        self._facts.notify(fact)

    def on_lifecycle(self, fn: Callable[[LifecycleRecord], None]) -> Callable[[], None]:
        return self._lifecycle.add(fn)

    def on_control_tool_fact(self, fn: Callable[[ControlToolCallFact], None]) -> Callable[[], None]:
        return self._facts.add(fn)

    def _fault(self, fn: Callable[..., object], err: Exception, record: LifecycleRecord | ControlToolCallFact) -> None:
        self._bus.emit(WarningEvent(message=f"lifecycle observer {observer_name(fn)} raised {type(err).__name__}: "
                                            f"{err}; it was detached"), id=record.turn_id, turn_id=record.turn_id)
