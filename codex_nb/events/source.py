"""``EventSource``: what a widget needs from whatever produces a conversation's events.

A ``Session`` is one; so are a Codex app-server thread, an ACP session and a
rollout replay (``codex_nb.app_server``, ``codex_nb.acp``, ``codex_nb.rollouts``). Widgets (``PlanChecklist``, ``PromptsWidget``,
``TurnControls``) take any ``EventSource`` and read nothing else, so every source is
shown the same way. Sources build it from an ``EventBus`` and a ``FrontendRequests``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Protocol, runtime_checkable

from ..frontend.record import Approvals
from ..frontend.requests import FrontendRequests
from .bus import EventBus
from ..protocol.events import Event


@runtime_checkable
class EventSource(Protocol):
    """One thread's events, its latest plan, a Stop control and its pending person-requests."""

    @property
    def thread_id(self) -> str:
        """The thread whose events this source publishes: Codex's thread id for an app-server
        thread, the ``sessionId`` of an ACP session, the saved session's id for a replay, a
        ``Session``'s own id. Widgets and ``PlanTimeline`` ignore events of another thread."""
        ...

    @property
    def frontend_requests(self) -> FrontendRequests:
        """The broker of this thread's requests that wait for a person."""
        ...

    def subscribe(self, fn: Callable[[Event], object]) -> Callable[[], None]:
        """Call ``fn(event)`` synchronously, in order, at each emission; returns unsubscribe."""
        ...

    def latest_plan(self) -> Event | None:
        """The last ``plan_update`` event of this thread (a last-value cache), or None."""
        ...

    def interrupt(self) -> bool:
        """Interrupt the active turn; False if none is running (or it is already stopping)."""
        ...


class BusEventSource:
    """The consumer half of an event source that publishes on an ``EventBus`` in ``self.bus``:
    the session, a real Codex thread, an ACP session and a rollout replay all share it."""

    bus: EventBus
    frontend_requests: FrontendRequests

    @property
    def approvals(self) -> Approvals:
        """Every question, approval and elicitation of this thread, with its answer, who gave
        it (widget, python, policy, timeout, nobody...) and when (``ApprovalRecord`` s)."""
        return self.frontend_requests.approvals

    def subscribe(self, fn: Callable[[Event], object]) -> Callable[[], None]:
        """Call ``fn(event)`` synchronously, in order, at each emission; returns unsubscribe."""
        return self.bus.subscribe(fn)

    def events(self, *, maxsize: int = 1024) -> AsyncIterator[Event]:
        """Async iteration over events from now on (bounded queue; oldest dropped on overflow)."""
        return self.bus.events(maxsize=maxsize)

    def latest_plan(self) -> Event | None:
        """The last ``plan_update`` event of this thread, or None."""
        return self.bus.latest_plan()
