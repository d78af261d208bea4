"""The V8 host: a daemon thread with its own asyncio loop that owns every isolate.

mini-racer runs JavaScript on V8's own thread; its Python-side plumbing is bound to an
asyncio loop. Some of that plumbing is synchronous (reading a JS object waits for the
isolate), so a runaway script could stall whichever loop touches it. We therefore keep
all isolate work on this host loop and only ever talk to V8 through *cancelable*
evaluations of small strings: the kernel's loop never blocks on JavaScript, and
terminating a script is cancelling its in-flight evaluations (``TerminateExecution``)
and then freeing the context, which also stops JavaScript spinning inside a promise
continuation (mini-racer runs microtasks outside the evaluation that queued them).
"""

from __future__ import annotations

import asyncio
import atexit
import json
import re
import threading
import time
from collections.abc import Callable, Coroutine
from contextlib import suppress
from importlib import resources
from typing import Any, TypeVar

from py_mini_racer import JSEvalException, JSOOMException, init_mini_racer
from py_mini_racer._dll import DEFAULT_V8_FLAGS
from py_mini_racer._mini_racer import _make_context

T = TypeVar("T")
PRELUDE = resources.files(__package__).joinpath("prelude.js").read_text(encoding="utf-8")
FINAL_DRAIN_TIMEOUT_S = 0.1
# Each isolate gets a global __cx_gc(): the prelude keeps it for the ArrayBuffer cap (a full
# collection before refusing an allocation) and leaves the script an inert undefined there.
V8_FLAGS = (*DEFAULT_V8_FLAGS, "--expose-gc-as=__cx_gc")
_SIGNAL_EXPR = "(() => { const s = globalThis.__cx_signal; delete globalThis.__cx_signal; return s; })()"


class V8Host:
    """One host thread and loop; started lazily, stopped by ``close()``."""

    def __init__(self, *, name: str = "codex-nb-v8") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=self._run, args=(loop,), name=self._name, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    @staticmethod
    def _run(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()
        loop.close()

    def submit(self, coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        """Run ``coro`` on the host loop; await the result from any loop."""
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))

    def run_sync(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def aclose(self) -> None:
        """``close()`` from a running loop: waits for the host's clean-ups without blocking it."""
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is not None and thread is not None:
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_finish_tasks(), loop))
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5)  # the loop is stopping: this returns within milliseconds

    def close(self) -> None:
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is not None and thread is not None:
            asyncio.run_coroutine_threadsafe(_finish_tasks(), loop).result(5)
            loop.call_soon_threadsafe(loop.stop)
            thread.join()


async def _finish_tasks() -> None:
    """Let isolate clean-ups still in flight on the host loop complete before it stops,
    then free any isolate nobody closed (on this thread, where V8 expects it)."""
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    if pending:
        await asyncio.wait(pending, timeout=2)
    await close_live_isolates(asyncio.get_running_loop())


_default_host: V8Host | None = None
_default_host_lock = threading.Lock()


_default_host_users = 0


def default_host() -> V8Host:
    """The process-wide host thread, created on first use, shared by every session.

    V8 may still deliver a late callback for a cancelled evaluation after its context is
    freed; a host loop that stays alive while any session uses it makes that harmless.
    One daemon thread serves every session (each cell still gets its own isolate).
    """
    global _default_host, _exit_hook_registered
    with _default_host_lock:
        if _default_host is None:
            _default_host = V8Host()
            if not _exit_hook_registered:  # registered on first use: importing stays side-effect free
                atexit.register(_close_default_host_at_exit)
                _exit_hook_registered = True
        return _default_host


_exit_hook_registered = False


def _close_default_host_at_exit() -> None:
    """Free isolates nobody closed on the host thread while it still runs. Left to interpreter
    teardown, their contexts would be freed on the main thread, which hangs or crashes V8."""
    with _default_host_lock:
        host = _default_host
    if host is None:
        return
    with host._lock:
        loop, thread, host._loop, host._thread = host._loop, host._thread, None, None
    if loop is None or thread is None or not thread.is_alive():
        return
    with suppress(Exception):  # bounded: a runaway script must not hold the interpreter's exit
        asyncio.run_coroutine_threadsafe(_finish_tasks(), loop).result(5)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)


def use_default_host() -> V8Host:
    """``default_host()`` for one more user; pair it with ``release_default_host()``."""
    global _default_host_users
    with _default_host_lock:
        _default_host_users += 1
    return default_host()


async def release_default_host() -> None:
    """One user is done; the last one (a closed session) stops the host thread.

    The host restarts on its next use, so a session created later still works."""
    global _default_host_users
    with _default_host_lock:
        _default_host_users = max(_default_host_users - 1, 0)
        host = _default_host if _default_host_users == 0 else None
    if host is not None:
        await host.aclose()


# Every started isolate, until its close() ran on the host loop. mini-racer frees a context in
# the ``finally`` of a generator: if an unclosed Isolate were garbage-collected, that finally
# would run on whatever thread the collector happened to run on (usually the kernel's), and
# freeing V8 state off its thread crashes the process. A strong reference here means only
# close() on the host loop ever frees a context.
_LIVE_ISOLATES: set[Isolate] = set()


async def close_live_isolates(loop: asyncio.AbstractEventLoop) -> None:
    """Free every isolate still open on ``loop`` (the host is stopping)."""
    for isolate in [i for i in _LIVE_ISOLATES if i._loop is loop]:
        await isolate.close()


class Isolate:
    """One fresh V8 isolate (a mini-racer context) with the Code Mode prelude installed.

    All methods run on the host loop. ``on_messages`` receives each drained batch of
    JSON messages from the script; ``on_failure`` receives an engine failure text.
    """

    def __init__(
        self, *, on_messages: Callable[[list[dict[str, Any]]], None], on_failure: Callable[[str], None]
    ) -> None:
        self._on_messages = on_messages
        self._on_failure = on_failure
        self._cm: Any = None
        self._ctx: Any = None
        self._signal_cm: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self.memory_limit = 0
        self.startup_seconds = 0.0

    async def start(self, *, tools: list[dict[str, str]], store: dict[str, Any], memory_limit: int) -> None:
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        self._loop = loop
        _LIVE_ISOLATES.add(self)
        # V8 takes flags once per process: if mini-racer was started elsewhere first, the prelude
        # finds no __cx_gc and dead buffers are credited only once V8 collects them on its own.
        init_mini_racer(flags=V8_FLAGS, ignore_duplicate_init=True)
        self._cm = _make_context(loop)
        self._ctx = self._cm.__enter__()
        self._signal_cm = self._ctx._register_js_notification(lambda _handle: self._schedule_drain())
        signal = self._signal_cm.__enter__()
        global_object = await self._ctx.eval_cancelable("globalThis")
        global_object["__cx_signal"] = signal
        self.memory_limit = memory_limit
        if memory_limit:
            self._ctx.set_hard_memory_limit(memory_limit)
        prelude = (
            PRELUDE.replace("__CX_SIGNAL__", _SIGNAL_EXPR)
            .replace("__CX_TOOLS__", _js_literal(tools))
            .replace("__CX_STORE__", _js_literal(store))
            .replace("__CX_MEMORY_LIMIT__", str(int(memory_limit)))
        )
        await self._ctx.eval_cancelable(prelude)
        self.startup_seconds = time.perf_counter() - started

    def run(self, source: str) -> None:
        self.eval(f"__cx_run({_js_literal(source)})")

    def settle(self, call_id: int, ok: bool, value: Any) -> None:
        self.eval("__cx_refill()")  # its own job, so the continuation's sentinels are from an earlier one
        self.eval(f"__cx_settle({call_id}, {'true' if ok else 'false'}, {_js_literal(value)})")

    def fire_timer(self, timer_id: int) -> None:
        self.eval("__cx_refill()")
        self.eval(f"__cx_fire({int(timer_id)})")

    def eval(self, code: str) -> None:
        """Start a cancelable evaluation; its result is ignored, failures are reported."""
        if self._closed:
            return
        task = asyncio.get_running_loop().create_task(self._eval(code))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _eval(self, code: str) -> Any:
        try:
            return await self._ctx.eval_cancelable(code)
        except JSOOMException:
            self._on_failure(self.memory_error)
        except JSEvalException as err:
            self._on_failure(str(err).strip() or type(err).__name__)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # noqa: BLE001 - any host failure ends the cell; the task never raises
            self._on_failure(f"Code Mode host error: {type(err).__name__}: {err}")
        return None

    @property
    def memory_error(self) -> str:
        return f"JavaScript memory limit reached ({self.memory_limit} bytes)"

    def _schedule_drain(self) -> None:
        if not self._closed:
            task = asyncio.get_running_loop().create_task(self._drain())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _drain(self) -> None:
        batch = await self._eval("__cx_drain()")
        if isinstance(batch, str) and batch != "[]" and not self._closed:
            self._deliver(batch)

    def _deliver(self, batch: str) -> None:
        try:
            messages = json.loads(batch)
        except ValueError as err:
            self._on_failure(f"Code Mode host protocol error: unreadable message batch ({err})")
            return
        if not isinstance(messages, list):
            self._on_failure("Code Mode host protocol error: the message batch is not a list")
            return
        self._on_messages(messages)

    async def _final_drain(self) -> None:
        """Output a terminated script posted but never handed over (it never yielded to the loop)."""
        if self._ctx is None:
            return
        try:  # a runaway inside a promise continuation keeps V8 busy: then freeing the context stops it
            batch = await asyncio.wait_for(self._ctx.eval_cancelable("__cx_drain()"), FINAL_DRAIN_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - best effort: the script is gone either way
            return
        if isinstance(batch, str) and batch != "[]":
            self._deliver(batch)

    async def close(self) -> None:
        """Terminate anything running (cancelling an evaluation terminates it) and free V8."""
        if self._closed:
            return
        self._closed = True
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        try:
            for task in tasks:
                with suppress(asyncio.CancelledError, Exception):
                    await task
            with suppress(Exception):  # the last words are best effort; freeing V8 is not
                await self._final_drain()
        finally:
            try:
                if self._signal_cm is not None:
                    self._signal_cm.__exit__(None, None, None)
            finally:
                if self._cm is not None:
                    self._cm.__exit__(None, None, None)
                self._ctx = self._cm = self._signal_cm = None
                _LIVE_ISOLATES.discard(self)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _js_literal(value: Any) -> str:
    """A JSON value as a JS expression (JSON is a JS subset since ES2019).

    Raw non-ASCII keeps the text small; a lone surrogate cannot travel as UTF-8, so text
    holding one is written with ASCII escapes and reaches JavaScript unchanged.
    """
    text = json.dumps(value, ensure_ascii=False)
    if _SURROGATE.search(text) is not None:
        return json.dumps(value)
    return text
