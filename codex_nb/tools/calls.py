"""The call runner: one call under the turn's cancellation and the parallel gate.

The dispatch task races the call's cancel token. If the handler already claimed its
outcome, its real result is kept. Otherwise the task is cancelled and the call gets
its paired aborted output (``aborted by user after {secs:.1}s``, success None) and
the lifecycle reports ``Aborted``.
"""

from __future__ import annotations

import asyncio
import collections.abc
import contextvars
import time
from collections.abc import Callable, Collection, Coroutine, Generator, Sequence
from typing import Any, TypeVar

from ..protocol.items import empty_tool_search_output
from .invocation import ToolInvocation, TurnContext
from .cancellation import CancelToken
from .lifecycle import CallLifecycle, ToolCallOutcome
from .parallel import ParallelGate
from .payload import ToolCall, ToolOutput
from .pipeline import CallResult, dispatch
from .registry import RegisteredTool
from .router import ToolRouter, parallel_capable

T = TypeVar("T")

UNWIND_TIMEOUT = 1.0
"""Seconds a hard-aborted call's handler gets to unwind before it is abandoned."""


def aborted_output(call: ToolCall, secs: float) -> CallResult:
    secs = max(secs, 0.1)
    if call.payload.kind == "tool_search":
        output = ToolOutput(body="", success=None)
        return CallResult(
            call=call, item=empty_tool_search_output(call.call_id), output=output, outcome=ToolCallOutcome.aborted()
        )
    if call.tool_name.is_default and call.tool_name.name == "exec_command":
        text = f"Wall time: {secs:.1f} seconds\naborted by user"
    else:
        text = f"aborted by user after {secs:.1f}s"
    output = ToolOutput(body=text, success=None, extra={"aborted": True})
    return CallResult(call=call, item=output.to_response_item(call), output=output, outcome=ToolCallOutcome.aborted())


_LOOK_UP: Any = object()


async def run_call(
    call: ToolCall,
    turn: TurnContext,
    router: ToolRouter,
    gate: ParallelGate | None = None,
    *,
    entry: RegisteredTool | None = _LOOK_UP,
    started: float | None = None,
) -> CallResult:
    """Dispatch ``call`` with per-call cancellation; always returns the paired output.

    ``entry`` is the router's entry when the caller already looked it up (None: an unknown
    tool); ``started`` (``time.monotonic()``) is when the call's response was taken up, which
    the aborted output's elapsed time counts from.
    """
    started = time.monotonic() if started is None else started
    lifecycle = CallLifecycle(
        turn.records, thread_id=turn.thread_id, turn_id=turn.turn_id, call_id=call.call_id, tool_name=call.tool_name
    )
    if turn.cancel.cancelled:  # the turn was stopped before this call's turn came: never start it
        lifecycle.finish(ToolCallOutcome.aborted())
        return aborted_output(call, time.monotonic() - started)
    token = turn.cancel.child()
    if entry is _LOOK_UP:
        entry = router.lookup(call.tool_name)  # the one lookup of this call
    invocation = None
    if entry is not None:
        invocation = ToolInvocation(call=call, tool=entry.tool, turn=turn, cancel=token)

    coro = (
        dispatch(call, turn, entry, lifecycle, invocation)
        if gate is None
        else _admitted(gate, token, call, turn, entry, lifecycle, invocation)
    )
    # Inline only without a gate: behind a gate, an earlier call of the same response may not
    # have reached the gate yet, and an inline start would overtake it.
    if gate is None and entry is not None and entry.tool.inline_start:
        try:
            finished, task = start_inline(coro, token)
        except asyncio.CancelledError:  # the handler met its cancelled token (e.g. emit refused): aborted
            lifecycle.finish(ToolCallOutcome.aborted())
            token.detach()
            return aborted_output(call, time.monotonic() - started)
        if task is None:
            token.detach()
            return finished  # type: ignore[return-value]  # no task: it finished inline, with this result
    else:
        task = asyncio.get_running_loop().create_task(coro)
    remove = token.on_cancel(_cut_off_threadsafe(task, lifecycle))
    try:
        try:
            # The race: the handler's task ends, or the token's cancel cuts it off (unless
            # the handler already claimed its outcome: then its real result is awaited and
            # kept). Awaiting the task itself costs one loop trip less than a third future.
            result = await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # we ourselves are being cancelled (hard abort, outer cancel)
            lifecycle.finish(ToolCallOutcome.aborted())  # cut off (or cancelled itself) before claiming
            result = aborted_output(call, time.monotonic() - started)
        token.detach()  # the call is over; an abandoned handler (below) keeps following the turn
        return result
    except asyncio.CancelledError:
        # We ourselves were cancelled (hard abort, outer cancel): the call never gets an
        # output here; history repair pairs it with "aborted" before the next request.
        lifecycle.finish(ToolCallOutcome.aborted())
        await _unwind(task)
        raise
    finally:
        remove()


async def _admitted(
    gate: ParallelGate,
    token: CancelToken,
    call: ToolCall,
    turn: TurnContext,
    entry: RegisteredTool | None,
    lifecycle: CallLifecycle,
    invocation: ToolInvocation | None,
) -> CallResult:
    """``dispatch`` once the gate admits the call (shared, or alone for an exclusive one)."""
    async with gate.hold(shared=parallel_capable(entry)):
        if token.cancelled:  # cancelled while waiting at the gate: never start the handler
            raise asyncio.CancelledError
        return await dispatch(call, turn, entry, lifecycle, invocation)


def _cut_off_threadsafe(task: asyncio.Future[CallResult], lifecycle: CallLifecycle) -> Callable[[], None]:
    """The token's cancel callback (it may fire on any thread): cancel the handler's task on
    its loop, unless the task is done or the handler already claimed its outcome."""
    loop = asyncio.get_running_loop()

    def cut_off() -> None:
        if not task.done() and not lifecycle.finished:
            task.cancel()

    def on_cancel() -> None:
        try:
            loop.call_soon_threadsafe(cut_off)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    return on_cancel


INLINE_BARE_YIELDS = 8
"""Bare yields (``await asyncio.sleep(0)``) an inline start runs through before handing off."""


def start_inline(coro: Coroutine[Any, Any, T], token: CancelToken) -> tuple[T | None, asyncio.Task[T] | None]:
    """Run an opt-in call's coroutine on the caller's stack until its first real suspension.

    A call that finishes without waiting on anything (``update_plan``: parse, emit, return)
    costs no task and no loop round trip. At the first wait on a future, after a few bare
    yields (a spinning handler), or once its token is cancelled, the coroutine is handed to
    a task in the same context, which then enters the usual race against the token: a
    handler that ignores cancellation is still cut off and abandoned. The inline part runs
    in a copy of the caller's context, so context variables stay isolated as in a task.
    Returns ``(result, None)`` when it finished inline, else ``(None, task)``.
    """
    context = contextvars.copy_context()
    yielded: Any = None
    grace = 1  # as in a task: a cancel seen at a bare yield lets the handler take its next step first
    for _ in range(INLINE_BARE_YIELDS):
        try:
            yielded = context.run(coro.send, None)
        except StopIteration as stop:
            return stop.value, None
        if yielded is not None:
            break
        if token.cancelled:
            if grace == 0:
                break
            grace -= 1
    task: asyncio.Task[T] = asyncio.get_running_loop().create_task(_Resumed(coro, yielded), context=context)
    return None, task


class _Resumed(collections.abc.Coroutine[Any, Any, T]):  # subscripted, the runtime base is still the ABC itself
    """The task-side half of an inline start: a coroutine object that carries on ``coro``.

    Its task's first step re-yields what ``coro`` yielded inline (the future it waits on,
    or a bare yield); every later step and every thrown exception (a cancel, even one
    that arrives before that first step) goes straight to ``coro``, which is suspended
    at its own await and cleans up as usual.
    """

    __slots__ = ("_coro", "_first")

    def __init__(self, coro: Coroutine[Any, Any, T], yielded: Any) -> None:
        self._coro = coro
        self._first: tuple[Any] | None = (yielded,)

    def send(self, value: Any) -> Any:
        first, self._first = self._first, None
        if first is not None:
            return first[0]
        return self._coro.send(value)

    def throw(self, typ: Any, val: Any = None, tb: Any = None) -> Any:
        self._first = None
        exc = typ if val is None else val
        if isinstance(exc, type):
            exc = exc()
        return self._coro.throw(exc.with_traceback(tb) if tb is not None else exc)

    def close(self) -> None:
        self._first = None
        self._coro.close()

    def __await__(self) -> Generator[Any, Any, T]:
        sent: Any = None
        while True:
            try:
                sent = yield self.send(sent)
            except StopIteration as stop:
                result: T = stop.value
                return result


async def _unwind(task: asyncio.Future[CallResult]) -> None:
    """Cancel the dispatch task and give its handler a bounded chance to unwind.

    A handler that ignores cancellation is abandoned after ``UNWIND_TIMEOUT`` seconds
    (Python cannot kill it); the turn still ends.
    """
    task.cancel()
    if task.done():
        return
    done, _ = await asyncio.wait({task}, timeout=UNWIND_TIMEOUT)
    for t in done:
        if not t.cancelled():
            t.exception()  # retrieved: a late failure of an aborted call is not reported twice


YIELD_INTERVAL = 0.005
"""Seconds of calls that finish without waiting, after which a response's run lets the loop
turn once (a Stop click or a widget message gets through a response of 10,000 calls)."""


async def run_calls_in_order(
    calls: Sequence[ToolCall | None],
    turn: TurnContext,
    router: ToolRouter,
    *,
    results: list[CallResult | None] | None = None,
    done: Callable[[], None] | None = None,
) -> list[CallResult | None]:
    """Run one response's calls with the parallel gate's rules, without a gate or a task per call.

    The gate admits calls first come, first served: parallel-capable calls run together,
    every other call runs alone, after everything before it and before everything after it
    (Codex's reader-writer gate, codex-rs/core/src/tools/parallel.rs). Walking the calls in
    order gives exactly that: a parallel-capable call starts as a task at once; an exclusive
    call first waits for the running ones, then runs on this task's stack (inline when its
    tool allows, so ``update_plan`` costs no task at all). Results come back in call order;
    None stands for a routing error (``calls[i] is None``) or for a call that got no output
    because the run was cut short (a ``Fatal`` or an outer cancel, which propagate; history
    repair pairs those).
    Pass ``results`` (a list of ``len(calls)`` Nones) to see what finished when it raises.
    ``done`` is called whenever ``results`` gained entries; the caller may take the finished
    entries in call order then (and clear them, and the calls before them), so a long response
    does not keep every result alive until its last call.
    """
    results = [None] * len(calls) if results is None else results
    running: dict[int, asyncio.Future[CallResult]] = {}
    started = last_yield = time.monotonic()
    try:
        for index, call in enumerate(calls):
            if call is None:
                continue
            entry = router.lookup(call.tool_name)
            if parallel_capable(entry):
                running[index] = asyncio.ensure_future(run_call(call, turn, router, entry=entry, started=started))
                continue
            if running:
                await _finish_running(running, results)
            results[index] = await run_call(call, turn, router, entry=entry, started=started)
            if done is not None:
                done()
            now = time.monotonic()
            if now - last_yield > YIELD_INTERVAL:
                await asyncio.sleep(0)
                last_yield = time.monotonic()
        if running:
            await _finish_running(running, results)
            if done is not None:
                done()
    except BaseException:
        _collect(running, results)  # the running ones were cancelled and waited for by gather_calls
        raise
    return results


async def gather_calls(tasks: Collection[asyncio.Future[CallResult]]) -> None:
    """Wait for every call's task. On the first failure, or if we are cancelled ourselves, cancel
    the rest and wait until each has unwound (``run_call`` bounds that by ``UNWIND_TIMEOUT``),
    then re-raise."""
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        raise


def finished_result(task: asyncio.Future[CallResult] | None) -> CallResult | None:
    """A call task's result if it finished with one (not cancelled, not failed), else None."""
    if task is not None and task.done() and not task.cancelled() and task.exception() is None:
        return task.result()
    return None


async def _finish_running(running: dict[int, asyncio.Future[CallResult]], results: list[CallResult | None]) -> None:
    """Wait for the running parallel calls (the first failure propagates at once, as ``gather``)."""
    await gather_calls(list(running.values()))
    _collect(running, results)
    running.clear()


def _collect(running: dict[int, asyncio.Future[CallResult]], results: list[CallResult | None]) -> None:
    for index, task in running.items():
        results[index] = finished_result(task)
