"""The kernel's interrupt button, for tests: a real SIGINT to the main thread (where the event
loop waits in its selector, as a kernel's does), sent once a turn has reached a given point."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager


def sigint_main_thread() -> None:
    threading.Thread(target=signal.pthread_kill, args=(threading.main_thread().ident, signal.SIGINT)).start()


def sigint_once(reached: Awaitable[object]) -> asyncio.Future[object]:
    """Send SIGINT to the main thread when ``reached`` is done; keep the returned future."""
    waiter = asyncio.ensure_future(reached)
    waiter.add_done_callback(lambda _: sigint_main_thread())
    return waiter


@contextmanager
def previous_handler() -> Iterator[list[bool]]:
    """A SIGINT handler that records its calls (what a cell's own handler would do), restored after."""
    calls: list[bool] = []
    saved = signal.signal(signal.SIGINT, lambda *_: calls.append(True))
    try:
        yield calls
    finally:
        signal.signal(signal.SIGINT, saved)
