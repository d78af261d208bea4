"""The per-step parallel gate (codex-rs/core/src/tools/parallel.rs): a FIFO reader-writer gate.

Parallel-capable tools share it; every other call (update_plan, unknown tools) holds
it exclusively. Admission is strictly first come, first served in the order the
calls asked (the turn starts them in call order), so a waiting writer holds back
every reader behind it. Release is synchronous and wakes only the waiters that can
now run: N exclusive calls cost O(N), not the O(N^2) of a condition that wakes
every waiter on each release.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class ParallelGate:
    __slots__ = ("_readers", "_writer", "_queue")

    def __init__(self) -> None:
        self._readers = 0
        self._writer = False
        self._queue: collections.deque[tuple[bool, asyncio.Future[None]]] = collections.deque()

    @asynccontextmanager
    async def hold(self, *, shared: bool) -> AsyncIterator[None]:
        await self.acquire(shared=shared)
        try:
            yield
        finally:
            self.release(shared=shared)

    def _free_for(self, shared: bool) -> bool:
        return not self._writer and (shared or self._readers == 0)

    def _take(self, shared: bool) -> None:
        if shared:
            self._readers += 1
        else:
            self._writer = True

    async def acquire(self, *, shared: bool) -> None:
        """Wait for this caller's turn; callers are admitted in the order they asked."""
        if not self._queue and self._free_for(shared):
            self._take(shared)
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((shared, waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release(shared=shared)  # admitted, then cancelled before running: hand it on
            else:
                waiter.cancel()  # left in the queue, skipped by _admit
                self._admit()  # a cancelled head may have been all that held the others back
            raise

    def release(self, *, shared: bool) -> None:
        """Give the gate back (synchronously) and admit whoever can run now."""
        if shared:
            self._readers -= 1
        else:
            self._writer = False
        self._admit()

    def _admit(self) -> None:
        queue = self._queue
        while queue:
            shared, waiter = queue[0]
            if waiter.done():  # cancelled while waiting
                queue.popleft()
                continue
            if not self._free_for(shared):
                return
            queue.popleft()
            self._take(shared)
            waiter.set_result(None)
