"""``EventSource``: what a widget needs from whatever produces a conversation's events.

A ``Session`` is one; so are a Codex app-server thread, an ACP session and a
rollout replay (``codex_nb.sources``). Widgets (``PlanChecklist``, ``PromptsWidget``,
``TurnControls``) take any ``EventSource`` and read nothing else, so every source is
shown the same way. Sources build it from an ``EventBus`` and a ``FrontendRequests``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from ..frontend.requests import FrontendRequests
from ..protocol.events import Event


@runtime_checkable
class EventSource(Protocol):
    """One thread's events, its latest plan, a Stop control and its pending person-requests."""

    @property
    def thread_id(self) -> str: ...

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
