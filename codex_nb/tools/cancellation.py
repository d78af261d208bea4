"""Cancellation tokens with a source and a reason, so every cancelled call can say
why in its paired output.

A turn owns a token; each call gets a child. Cancelling a parent cancels its
children. ``source`` tells a first-party cancel (Stop button, ``interrupt()``) from an
external one (kernel shutdown, an outer task cancelled), so the turn can record the
right ``turn_aborted`` reason and marker.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum


class CancelSource(StrEnum):
    FIRST_PARTY = "first_party"
    EXTERNAL = "external"


_STATE = threading.Lock()
"""Guards every token's state. Each critical section is a few reads and writes, and nothing
is called while it is held (children and callbacks run after), so one lock serves all
tokens: a lock per token was most of the cost of the child token every call makes."""


class CancelToken:
    """A thread-safe cancellation flag with async waiters and child tokens."""

    __slots__ = ("_cancelled", "_flag", "reason", "source", "_callbacks", "_children", "_parent")

    def __init__(self, parent: CancelToken | None = None) -> None:
        self._cancelled = False
        self._flag: threading.Event | None = None  # made on first wait_sync(): most tokens never need one
        self.reason: str | None = None
        self.source: CancelSource | None = None
        self._callbacks: list[Callable[[], None]] | None = None  # made on first on_cancel()
        self._children: dict[CancelToken, None] | None = None  # insertion-ordered; O(1) detach
        self._parent = parent
        if parent is not None:
            parent._adopt(self)

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def child(self) -> CancelToken:
        return CancelToken(self)

    def _adopt(self, child: CancelToken) -> None:
        with _STATE:
            if not self._cancelled:
                if self._children is None:
                    self._children = {}
                self._children[child] = None
                return
        child.cancel(self.reason or "cancelled", self.source or CancelSource.FIRST_PARTY)

    def cancel(self, reason: str = "interrupted", source: CancelSource = CancelSource.FIRST_PARTY) -> bool:
        """Cancel once; returns False if it was already cancelled. Safe from any thread."""
        with _STATE:
            if self._cancelled:
                return False
            self._cancelled = True
            self.reason, self.source = reason, source
            if self._flag is not None:
                self._flag.set()
            callbacks, self._callbacks = self._callbacks or (), None
            children, self._children = list(self._children or ()), None
        for child in children:
            child.cancel(reason, source)
        for callback in callbacks:
            callback()
        return True

    def detach(self) -> None:
        """Stop following the parent (the call this token belonged to is over), so a long
        turn does not keep one child per finished call."""
        parent, self._parent = self._parent, None
        if parent is not None:
            with _STATE:
                if parent._children is not None:
                    parent._children.pop(self, None)

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` (from the cancelling thread) on cancel; returns a remover."""
        with _STATE:
            if not self._cancelled:
                if self._callbacks is None:
                    self._callbacks = []
                self._callbacks.append(callback)
                return lambda: self._remove(callback)
        callback()
        return lambda: None

    def _remove(self, callback: Callable[[], None]) -> None:
        with _STATE:
            try:
                if self._callbacks is not None:
                    self._callbacks.remove(callback)
            except ValueError:  # already run (cancelled) or removed
                pass

    async def wait(self) -> None:
        """Return once cancelled; wakes the awaiting loop thread-safely."""
        with self.future() as fut:
            await fut

    @contextmanager
    def future(self) -> Iterator[asyncio.Future[None]]:
        """A plain future on the running loop, resolved when this token is cancelled.

        Unlike ``ensure_future(token.wait())`` it creates no task, so racing it with
        ``asyncio.wait`` leaves nothing behind. The callback is removed on exit.
        """
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()

        def resolve() -> None:
            if not fut.done():
                fut.set_result(None)

        def wake() -> None:
            try:
                loop.call_soon_threadsafe(resolve)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass

        remove = self.on_cancel(wake)
        try:
            yield fut
        finally:
            remove()
            if not fut.done():
                fut.cancel()

    def wait_sync(self, timeout: float | None = None) -> bool:
        """Block the calling (worker) thread until cancelled or ``timeout``; True if cancelled.

        For sync ``@session.tool`` functions, which run in a worker thread that Python
        cannot stop: ``invocation.cancel.wait_sync(5)`` is a sleep that ends at once
        when the call is cancelled. Never call it on the event loop's thread.
        """
        with _STATE:
            if self._flag is None:
                self._flag = threading.Event()
                if self._cancelled:
                    self._flag.set()
            flag = self._flag
        return flag.wait(timeout)
