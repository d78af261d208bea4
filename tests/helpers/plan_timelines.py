"""Plan sources and plans the timeline tests share (the recorder's tests and the widget's)."""

from __future__ import annotations

from codex_nb.events.bus import EventBus
from codex_nb.events.source import BusEventSource
from codex_nb.frontend.requests import FrontendRequests
from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import PlanItemArg, StepStatus


def fixed_clock() -> float:
    return 1_796_126_400.0  # 2026-12-01T12:00:00Z: reports compare equal run to run


class BusSource(BusEventSource):
    """A minimal real event source (an EventBus) standing for a peer that sends anything."""

    def __init__(self, thread_id: str = "thread-1") -> None:
        self.thread_id = thread_id
        self.bus = EventBus(thread_id)
        self.frontend_requests = FrontendRequests()

    def interrupt(self) -> bool:
        return False

    def plan(self, steps: list[tuple[str, str]], *, revision: int | None, explanation: str | None = None) -> None:
        msg = PlanUpdate(explanation=explanation, plan=[PlanItemArg(step=s, status=StepStatus(st)) for s, st in steps])
        self.bus.emit(msg, id="t1", turn_id="t1", revision=revision)


FIVE_PLANS = [
    [("Read the code", "pending"), ("Write the tests", "pending"), ("Ship it", "pending")],
    [("Read the code", "in_progress"), ("Write the tests", "pending"), ("Ship it", "pending")],
    [("Read the code", "completed"), ("Write the tests", "in_progress"), ("Ship it", "pending")],
    # renamed step 2 (same place, alike text)
    [("Read the code", "completed"), ("Write the unit tests", "in_progress"), ("Ship it", "pending")],
    # regression on step 1, step 3 removed, a step added
    [("Read the code", "in_progress"), ("Write the unit tests", "completed"), ("Update the docs", "pending")],
]
