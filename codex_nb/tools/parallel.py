"""The per-step parallel gate (spec 02 §10): a reader-writer lock.

Parallel-capable tools share it; every other call (update_plan, unknown tools) holds
it exclusively. Writers queue fairly: once one waits, new readers wait behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class ParallelGate:
    def __init__(self) -> None:
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0
        self._cond = asyncio.Condition()

    @asynccontextmanager
    async def hold(self, *, shared: bool) -> AsyncIterator[None]:
        if shared:
            await self._acquire_shared()
        else:
            await self._acquire_exclusive()
        try:
            yield
        finally:
            await self._release(shared)

    async def _acquire_shared(self) -> None:
        async with self._cond:
            await self._cond.wait_for(lambda: not self._writer and self._writers_waiting == 0)
            self._readers += 1

    async def _acquire_exclusive(self) -> None:
        async with self._cond:
            self._writers_waiting += 1
            try:
                await self._cond.wait_for(lambda: not self._writer and self._readers == 0)
            finally:
                self._writers_waiting -= 1
            self._writer = True

    async def _release(self, shared: bool) -> None:
        # Shielded so a cancelled holder still releases the gate for the others.
        await asyncio.shield(self._release_now(shared))

    async def _release_now(self, shared: bool) -> None:
        async with self._cond:
            if shared:
                self._readers -= 1
            else:
                self._writer = False
            self._cond.notify_all()
