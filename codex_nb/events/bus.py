"""The event bus: synchronous, in-order subscribers plus bounded async consumers.

``emit`` is the barrier (as Codex's ``send_event``): when it returns, every
synchronous subscriber has seen the event and every async consumer has it queued.
A subscriber that raises is detached and reported with a ``warning`` event; the turn
goes on (observers cannot veto). Async consumers get a bounded queue each; on
overflow the oldest events are dropped and counted, the emitter never blocks. The
bus also keeps the last ``plan_update`` of each thread, so a widget attached late
can ask for the current plan (``EventSource.latest_plan``). Every event source (a
session, an app-server thread, an ACP agent, a replay) emits through one of these.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import threading
from collections.abc import AsyncIterator, Callable

from ..protocol.events import Event, EventMsg, WarningEvent
from .observers import Observers, observer_name

log = logging.getLogger("codex_nb.bus")

Subscriber = Callable[[Event], object]


class _Consumer:
    def __init__(self, maxsize: int) -> None:
        self.items: collections.deque[Event | None] = collections.deque()
        self.maxsize = maxsize
        self.dropped = 0
        self.loop = asyncio.get_running_loop()
        self.ready = asyncio.Event()

    def push(self, event: Event | None) -> None:
        if event is not None and len(self.items) >= self.maxsize:
            self.items.popleft()
            self.dropped += 1
        self.items.append(event)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.ready.set()
        else:
            self.loop.call_soon_threadsafe(self.ready.set)


class EventBus:
    """Fan-out of events to subscribers (sync) and consumers (async iterators)."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        self._subscribers: Observers[Event] = Observers(self._detached, what="a callable taking one Event")
        self._consumers: list[_Consumer] = []
        self._seq = itertools.count(1)
        self._lock = threading.RLock()
        self._latest_plan: dict[str, Event] = {}

    @property
    def detached(self) -> list[tuple[Subscriber, Exception]]:
        """Subscribers detached because they raised, with their errors."""
        return self._subscribers.detached

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn(event)`` for every later event; returns an unsubscribe function."""
        if not callable(fn):
            raise TypeError(f"subscribe() needs a callable taking one Event, got {type(fn).__name__}")
        return self._subscribers.add(fn)

    def emit(
        self,
        msg: EventMsg,
        *,
        id: str,
        turn_id: str | None = None,
        revision: int | None = None,
        thread_id: str | None = None,
    ) -> Event:
        """Build the next event (``seq`` +1) and deliver it; ``thread_id`` defaults to the bus's."""
        thread_id = thread_id or self.thread_id
        with self._lock:
            seq = next(self._seq)
            event = Event(id=id, msg=msg, thread_id=thread_id, turn_id=turn_id, seq=seq, revision=revision)
            self._deliver(event)
        return event

    def latest_plan(self, thread_id: str | None = None) -> Event | None:
        """The last ``plan_update`` event of ``thread_id`` (default: this bus's thread), or None."""
        return self._latest_plan.get(thread_id or self.thread_id)

    def _deliver(self, event: Event) -> None:
        if event.msg.type == "plan_update":
            self._latest_plan[event.thread_id] = event
        failed = self._subscribers.call(event)
        if self._consumers:
            for consumer in list(self._consumers):
                consumer.push(event)
        if failed:
            self._subscribers.report(failed, event)

    def _detached(self, fn: Subscriber, err: Exception, event: Event) -> None:
        text = (
            f"event subscriber {observer_name(fn)} raised {type(err).__name__}: {err} while handling "
            f"{event.msg.type}; it was detached and will receive no more events"
        )
        log.warning(text)
        self._deliver(
            Event(
                id=event.id,
                msg=WarningEvent(message=text),
                thread_id=event.thread_id,
                turn_id=event.turn_id,
                seq=next(self._seq),
            )
        )

    async def events(self, *, maxsize: int = 1024) -> AsyncIterator[Event]:
        """Iterate over events emitted from now on; stops when the bus is closed."""
        consumer = _Consumer(maxsize)
        with self._lock:
            self._consumers.append(consumer)
        try:
            while True:
                while not consumer.items:
                    consumer.ready.clear()
                    await consumer.ready.wait()
                event = consumer.items.popleft()
                if event is None:
                    return
                yield event
        finally:
            with self._lock:
                if consumer in self._consumers:
                    self._consumers.remove(consumer)

    def close(self) -> None:
        """End every async iteration."""
        with self._lock:
            for consumer in list(self._consumers):
                consumer.push(None)
