"""Worker threads for sync (``def``) tools and hooks, which abandoned work cannot starve.

Python cannot kill a thread: a sync tool whose call was interrupted runs on until it
returns. On the loop's default executor (a handful of workers) a few such calls would make
every later sync tool and sync hook wait. Here each job gets an idle worker or a new one,
so abandoned work only ever costs its own thread. Bound: one thread per sync call still
running (the model's parallel calls bound that), plus at most ``IDLE_WORKERS`` idle ones,
which exit after ``IDLE_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
IDLE_WORKERS = 8
IDLE_SECONDS = 30.0


class SyncWorkers:
    def __init__(self, *, name: str = "codex-nb-sync") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0
        self._ids = itertools.count(1)
        self.threads = 0
        """Worker threads alive now (busy or idle)."""

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``await asyncio.to_thread(fn, ...)``, on a worker that is never queued behind abandoned work."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()
        context = contextvars.copy_context()

        def job() -> None:
            try:
                result = context.run(fn, *args, **kwargs)
            except BaseException as err:  # noqa: BLE001 - handed to the awaiting coroutine
                _deliver(loop, done, error=err)
            else:
                _deliver(loop, done, result=result)

        self._submit(job)
        return await done

    def _submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
                self._jobs.put(job)
                return
            self.threads += 1
        threading.Thread(target=self._work, args=(job,), name=f"{self._name}-{next(self._ids)}", daemon=True).start()

    def _work(self, job: Callable[[], None]) -> None:
        while True:
            job()
            with self._lock:
                if self._idle >= IDLE_WORKERS:
                    self.threads -= 1
                    return
                self._idle += 1
            try:
                job = self._jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    try:
                        job = self._jobs.get_nowait()  # handed over just as we timed out
                    except queue.Empty:
                        self._idle -= 1
                        self.threads -= 1
                        return


def _deliver(
    loop: asyncio.AbstractEventLoop,
    done: asyncio.Future[Any],
    *,
    result: Any = None,
    error: BaseException | None = None,
) -> None:
    def settle() -> None:
        if done.done():
            return  # the awaiting call was cancelled: the result is discarded
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    try:
        loop.call_soon_threadsafe(settle)
    except RuntimeError:
        pass  # the loop is closed: nobody is waiting any more


_workers: SyncWorkers | None = None
_workers_lock = threading.Lock()


def sync_workers() -> SyncWorkers:
    """The process-wide pool (created on first use: importing codex_nb starts no thread)."""
    global _workers
    with _workers_lock:
        if _workers is None:
            _workers = SyncWorkers()
        return _workers
