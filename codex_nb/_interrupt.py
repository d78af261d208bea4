"""The keyboard interrupt (the kernel's interrupt button, Ctrl-C) reaching an awaited turn.

A cell that runs ``await handle`` is suspended in the event loop's selector. ipykernel's
SIGINT handler for an awaiting cell schedules the cell's cancellation with a plain
``call_soon`` (tornado's ``add_callback`` on its own thread), which does not wake the
selector: the cell went on waiting until the loop's next timer or I/O (seconds, or never),
then the cancel reached the turn from outside and printed a ``CancelledError`` traceback.
In terminal IPython the interrupt raises ``KeyboardInterrupt`` out of the loop instead,
leaving the turn running on a stopped loop.

While a turn is awaited in the main thread, a relay owns SIGINT: it interrupts the awaited
turns the way their Stop control does (first-party, so every call gets its paired output)
through ``call_soon_threadsafe``, which wakes the loop at once, and the await ends with
``TurnInterrupted``, which IPython shows as one line. A second interrupt while a turn is
still ending goes to the handler that was there before. Signal handlers belong to the
process, so the relay is one module-level object; it restores the previous handler when
the last awaited turn ends (unless someone replaced the relay meanwhile).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, TypeVar

from .errors import TurnInterrupted

T = TypeVar("T")


@dataclass(eq=False, kw_only=True)
class _Waiter:
    loop: asyncio.AbstractEventLoop
    interrupt: Callable[[], object]
    interrupted: bool = False


@dataclass(kw_only=True)
class _SigintRelay:
    waiters: set[_Waiter] = field(default_factory=set)
    previous: Any = None

    def join(self, waiter: _Waiter) -> bool:
        """Own SIGINT for ``waiter``; False where it cannot (another thread, SIGINT ignored)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        current = signal.getsignal(signal.SIGINT)
        if current != self.handle:  # a bound method: equal, never identical
            if not callable(current):  # SIG_IGN (an idle kernel), SIG_DFL, or set outside Python
                return False
            self.previous = current
            signal.signal(signal.SIGINT, self.handle)
        self.waiters.add(waiter)
        return True

    def leave(self, waiter: _Waiter) -> None:
        self.waiters.discard(waiter)
        if not self.waiters and signal.getsignal(signal.SIGINT) == self.handle:
            # ``previous`` stays: whoever saved the relay may put it back, and it then delegates
            signal.signal(signal.SIGINT, self.previous)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        fresh = [w for w in self.waiters if not w.interrupted]
        if not fresh:  # a second press, or a stale relay: what was there before decides
            for waiter in self.waiters:
                waiter.loop.call_soon_threadsafe(_nothing)  # wake the loop for what it schedules
            if callable(self.previous):
                self.previous(signum, frame)
            return
        for waiter in fresh:
            waiter.interrupted = True
            waiter.loop.call_soon_threadsafe(waiter.interrupt)  # also wakes the selector


def _nothing() -> None:
    return None


_RELAY = _SigintRelay()


async def await_interruptibly(task: Awaitable[T], *, interrupt: Callable[[], object], what: str) -> T:
    """``await task``; a keyboard interrupt meanwhile calls ``interrupt()`` and, once the task
    has ended, raises ``TurnInterrupted`` carrying its result. Cancelling the awaiter still
    cancels ``task``, as a plain ``await`` does."""
    waiter = _Waiter(loop=asyncio.get_running_loop(), interrupt=interrupt)
    if not _RELAY.join(waiter):
        return await task
    try:
        result = await task
    finally:
        _RELAY.leave(waiter)
    if waiter.interrupted and getattr(result, "status", "interrupted") == "interrupted":
        raise TurnInterrupted(
            f"{what} interrupted (Ctrl-C / the kernel's interrupt button): every call got its "
            f"paired output; the result (status {getattr(result, 'status', 'interrupted')}) is "
            f"this error's .result, or await the handle again",
            result=result,
        )
    return result
