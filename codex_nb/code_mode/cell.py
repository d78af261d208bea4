"""One ``exec`` cell: a script running in its own isolate, its output and its limits.

Every method runs on the V8 host loop. Nested ``tools.X(...)`` calls hop to the
kernel loop that started the cell (``dispatch``) and their results hop back; the
script sees a promise that resolves with the tool's code-mode result or rejects with
a plain string.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from ..protocol.items import ContentItem
from .host import Isolate
from .output import CellSnapshot, CellStatus

NestedDispatch = Callable[[str, str, str], Coroutine[Any, Any, Any]]
"""``(cell_id, identifier, payload_text) -> code-mode result``; raises ``NestedCallError``. Runs on the kernel loop."""

CANCELLED = "code mode nested tool call cancelled"
DISPATCHER_STOPPED = "code mode nested tool dispatcher stopped"


class NestedCallError(Exception):
    """A nested call failed; ``str(err)`` is what the script's promise rejects with."""


@dataclass(frozen=True, kw_only=True)
class CellLimits:
    memory_limit_bytes: int = 256 * 1024 * 1024
    """V8 heap cap, and separately the cap on live ArrayBuffer bytes (V8 keeps those outside its heap)."""
    max_wall_time_s: float = 600.0
    """After this the cell is terminated even if nobody waits on it."""
    max_live_cells: int = 16
    """Running cells per session (each holds an isolate and a V8 thread); ``exec`` refuses more."""
    max_notify_bytes: int = 1024 * 1024
    """UTF-8 bytes ``notify()`` may add to the conversation per cell; later notifications are dropped."""


NOTIFY_LIMIT = "notify output limit reached ({limit} bytes); further notifications of this cell are dropped"


def _message_problem(msg: Any) -> str | None:
    """Why ``msg`` is not a message the prelude sends, or None. Defence in depth: the prelude
    uses only captured intrinsics, so a script cannot forge one; if it ever could, the cell
    fails instead of the turn."""
    if not isinstance(msg, dict):
        return "a message is not an object"
    kind = msg.get("t")
    if kind == "item":
        item = msg.get("item")
        if (
            not isinstance(item, dict)
            or item.get("type") not in ("input_text", "input_image", "input_audio")
            or not all(isinstance(v, str) for v in item.values())
        ):
            return "malformed item message"
    elif kind == "call":
        if not (_is_count(msg.get("id")) and isinstance(msg.get("tool"), str) and isinstance(msg.get("input"), str)):
            return "malformed call message"
    elif kind == "store":
        if not (isinstance(msg.get("key"), str) and isinstance(msg.get("value"), str)):
            return "malformed store message"
        try:
            json.loads(msg["value"])
        except ValueError:
            return "malformed store message"
    elif kind == "notify":
        if not isinstance(msg.get("text"), str):
            return "malformed notify message"
    elif kind == "timer":
        ms = msg.get("ms")
        if not (
            _is_count(msg.get("id"))
            and isinstance(ms, (int, float))
            and not isinstance(ms, bool)
            and 0 <= ms < float("inf")
        ):
            return "malformed timer message"
    elif kind == "done":
        if not isinstance(msg.get("error", ""), str):
            return "malformed done message"
    elif kind not in ("yield", "oom"):
        return f"unknown message kind {kind!r}"
    return None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class Cell:
    def __init__(
        self,
        *,
        cell_id: str,
        dispatch: NestedDispatch,
        kernel_loop: asyncio.AbstractEventLoop,
        store: dict[str, Any],
        on_notify: Callable[[str], None],
        limits: CellLimits,
    ) -> None:
        self.cell_id = cell_id
        self._dispatch = dispatch
        self._kernel_loop = kernel_loop
        self._store = store
        self._on_notify = on_notify
        self._limits = limits
        self.status: CellStatus = "running"
        self.error: str | None = None
        self._items: list[ContentItem] = []
        self._yield_requested = False
        self._yield_at: int | None = None  # output index where yield_control() was called
        self._changed = asyncio.Event()
        self._started = time.monotonic()
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._calls: set[concurrent.futures.Future[Any]] = set()
        self._isolate = Isolate(on_messages=self._on_messages, on_failure=self._on_failure)
        self._deadline: asyncio.TimerHandle | None = None
        self._cleanup_task: asyncio.Task[None] | None = None
        self._notify_bytes = 0
        self._notify_dropped = False

    @property
    def startup_seconds(self) -> float:
        return self._isolate.startup_seconds

    async def start(self, source: str, tools: list[dict[str, str]]) -> None:
        try:
            await self._isolate.start(
                tools=tools, store=dict(self._store), memory_limit=self._limits.memory_limit_bytes
            )
        except Exception as err:  # engine failed to start: the cell fails, the kernel goes on
            await self._finish("failed", f"could not start the JavaScript engine: {err}")
            return
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(self._limits.max_wall_time_s, self._wall_time_exceeded)
        self._isolate.run(source)

    # -- messages from the script ------------------------------------------------------------
    def _on_messages(self, batch: list[dict[str, Any]]) -> None:
        # A nested call made in the same batch as the script's end was never awaited: Codex
        # discards unawaited promises when the isolate ends, so such a call never runs.
        ends_here = any(msg.get("t") == "done" for msg in batch)
        for msg in batch:
            problem = _message_problem(msg)
            if problem is not None:
                self._on_failure(f"Code Mode host protocol error: {problem}")
                break
            kind = msg.get("t")
            if self.status != "running" and kind != "item":
                continue  # after the end only output still counts (a terminated script's last words)
            if kind == "item":
                self._items.append(msg["item"])
            elif kind == "call":
                if not ends_here:
                    self._start_call(int(msg["id"]), str(msg["tool"]), str(msg["input"]))
            elif kind == "store":
                self._store[str(msg["key"])] = json.loads(msg["value"])
            elif kind == "notify":
                self._notify(msg["text"])
            elif kind == "oom":
                self._on_failure(self._isolate.memory_error)
            elif kind == "yield":
                self._yield_requested = True
                if self._yield_at is None:
                    self._yield_at = len(self._items)
            elif kind == "timer":
                delay = min(float(msg["ms"]) / 1000, self._limits.max_wall_time_s)
                handle = asyncio.get_running_loop().call_later(delay, self._fire_timer, msg["id"])
                self._timers[int(msg["id"])] = handle
            elif kind == "done":
                error = msg.get("error")
                self._schedule_finish("failed" if error is not None else "completed", error)
        self._changed.set()

    def _notify(self, text: str) -> None:
        size = len(text.encode("utf-8", "replace"))
        if self._notify_bytes + size <= self._limits.max_notify_bytes:
            self._notify_bytes += size
            self._on_notify(text)
        elif not self._notify_dropped:
            self._notify_dropped = True
            self._on_notify(NOTIFY_LIMIT.format(limit=self._limits.max_notify_bytes))

    def _on_failure(self, text: str) -> None:
        if self.status == "running":
            self._schedule_finish("failed", text)

    def _fire_timer(self, timer_id: int) -> None:
        self._timers.pop(timer_id, None)
        self._isolate.fire_timer(timer_id)

    def _wall_time_exceeded(self) -> None:
        if self.status == "running":
            self._schedule_finish(
                "terminated", f"exec cell exceeded the wall time limit of {self._limits.max_wall_time_s:g} seconds"
            )

    # -- nested calls ---------------------------------------------------------------------------
    def _start_call(self, call_id: int, tool: str, payload: str) -> None:
        future = asyncio.run_coroutine_threadsafe(self._dispatch(self.cell_id, tool, payload), self._kernel_loop)
        self._calls.add(future)
        wrapped = asyncio.wrap_future(future)
        wrapped.add_done_callback(lambda f: self._settle(call_id, future, f))

    def _settle(self, call_id: int, future: concurrent.futures.Future[Any], done: asyncio.Future[Any]) -> None:
        self._calls.discard(future)
        error = None if done.cancelled() else done.exception()  # always retrieved, even after the end
        if self.status != "running":
            return
        if done.cancelled():
            self._isolate.settle(call_id, False, CANCELLED)
        elif isinstance(error, NestedCallError):
            self._isolate.settle(call_id, False, str(error))
        elif error is not None:
            self._isolate.settle(call_id, False, DISPATCHER_STOPPED)
        else:
            self._isolate.settle(call_id, True, done.result())

    # -- output and lifetime ----------------------------------------------------------------------
    async def next_output(self, yield_time_s: float) -> CellSnapshot:
        """Wait until the script finishes, asks to yield, or ``yield_time_s`` passes; take new output."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + yield_time_s
        while self.status == "running" and not self._yield_requested:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                break
        self._yield_requested = False
        if self._yield_at is not None:
            # yield_control() hands back the output up to the call, and the cell is reported
            # running even if the script ended in the same breath (as Codex does): the rest
            # comes with the next wait.
            items, self._items = self._items[: self._yield_at], self._items[self._yield_at :]
            self._yield_at = None
            return CellSnapshot(
                cell_id=self.cell_id,
                status="running",
                items=items,
                error=None,
                wall_time_s=time.monotonic() - self._started,
            )
        if self._cleanup_task is not None:
            await self._cleanup_task  # a finished cell reports only once its isolate is gone
        items, self._items = self._items, []
        return CellSnapshot(
            cell_id=self.cell_id,
            status=self.status,
            items=items,
            error=self.error,
            wall_time_s=time.monotonic() - self._started,
        )

    async def terminate(self, reason: str | None = None) -> None:
        if self.status == "running":
            await self._finish("terminated", reason)

    def _schedule_finish(self, status: CellStatus, error: str | None) -> None:
        if self.status == "running":
            self.status, self.error = status, error  # claim now; clean up right after
            self._cleanup_task = asyncio.get_running_loop().create_task(self._cleanup())

    async def _finish(self, status: CellStatus, error: str | None) -> None:
        if self.status == "running":
            self.status, self.error = status, error
            await self._cleanup()

    async def _cleanup(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for future in list(self._calls):
            future.cancel()
        await self._isolate.close()
        self._changed.set()
