"""The event bus: synchronous, in-order subscribers plus bounded async consumers.

``emit`` is the barrier (as Codex's ``send_event``): when it returns, every
synchronous subscriber has seen the event and every async consumer has it queued.
A subscriber that raises is detached and reported with a ``warning`` event; the turn
goes on (observers cannot veto). Async consumers get a bounded queue each; on
overflow the oldest events are dropped and counted, the emitter never blocks.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import threading
from collections.abc import AsyncIterator, Callable

from ..protocol.events import Event, EventMsg, WarningEvent

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
        self._subscribers: list[Subscriber] = []
        self._consumers: list[_Consumer] = []
        self._seq = itertools.count(1)
        self._lock = threading.RLock()
        self.detached: list[tuple[Subscriber, BaseException]] = []

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn(event)`` for every later event; returns an unsubscribe function."""
        if not callable(fn):
            raise TypeError(f"subscribe() needs a callable taking one Event, got {type(fn).__name__}")
        with self._lock:
            self._subscribers.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._subscribers:
                    self._subscribers.remove(fn)

        return unsubscribe

    def emit(self, msg: EventMsg, *, id: str, turn_id: str | None = None, revision: int | None = None) -> Event:
        with self._lock:
            event = Event(
                id=id, msg=msg, thread_id=self.thread_id, turn_id=turn_id, seq=next(self._seq), revision=revision
            )
            self._deliver(event)
        return event

    def _deliver(self, event: Event) -> None:
        failed: list[tuple[Subscriber, BaseException]] = []
        for fn in list(self._subscribers):
            try:
                fn(event)
            except Exception as err:  # an observer must never break the run
                failed.append((fn, err))
        for consumer in list(self._consumers):
            consumer.push(event)
        for fn, err in failed:
            self._detach(fn, err, event)

    def _detach(self, fn: Subscriber, err: BaseException, event: Event) -> None:
        if fn in self._subscribers:
            self._subscribers.remove(fn)
        self.detached.append((fn, err))
        name = getattr(fn, "__qualname__", repr(fn))
        text = (
            f"event subscriber {name} raised {type(err).__name__}: {err} while handling "
            f"{event.msg.type}; it was detached and will receive no more events"
        )
        log.warning(text)
        self._deliver(
            Event(id=event.id, msg=WarningEvent(message=text), thread_id=self.thread_id,
                  turn_id=event.turn_id, seq=next(self._seq))
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
