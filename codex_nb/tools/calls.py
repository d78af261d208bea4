"""The call runner: one call under the turn's cancellation (spec 04 §3) and the parallel gate.

The dispatch task races the call's cancel token. If the handler already claimed its
outcome, its real result is kept. Otherwise the task is cancelled and the call gets
its paired aborted output (``aborted by user after {secs:.1}s``, success None) and
the lifecycle reports ``Aborted``.
"""

from __future__ import annotations

import asyncio
import time

from ..protocol.items import empty_tool_search_output
from .invocation import ToolInvocation, TurnContext
from .cancellation import CancelToken
from .lifecycle import CallLifecycle, ToolCallOutcome
from .parallel import ParallelGate
from .payload import ToolCall, ToolOutput
from .pipeline import CallResult, dispatch
from .router import ToolRouter, parallel_capable

UNWIND_TIMEOUT = 1.0
"""Seconds a hard-aborted call's handler gets to unwind before it is abandoned."""


def aborted_output(call: ToolCall, secs: float) -> CallResult:
    secs = max(secs, 0.1)
    if call.payload.kind == "tool_search":
        output = ToolOutput(body="", success=None)
        return CallResult(call=call, item=empty_tool_search_output(call.call_id), output=output,
                          outcome=ToolCallOutcome.aborted())
    if call.tool_name.is_default and call.tool_name.name == "exec_command":
        text = f"Wall time: {secs:.1f} seconds\naborted by user"
    else:
        text = f"aborted by user after {secs:.1f}s"
    output = ToolOutput(body=text, success=None, extra={"aborted": True})
    return CallResult(call=call, item=output.to_response_item(call), output=output, outcome=ToolCallOutcome.aborted())


async def run_call(call: ToolCall, turn: TurnContext, router: ToolRouter, gate: ParallelGate | None = None) -> CallResult:
    """Dispatch ``call`` with per-call cancellation; always returns the paired output."""
    started = time.monotonic()
    token = turn.cancel.child()
    lifecycle = CallLifecycle(turn.records.record_lifecycle, thread_id=turn.thread_id, turn_id=turn.turn_id,
                              call_id=call.call_id, tool_name=call.tool_name)
    entry = router.lookup(call.tool_name)  # the one lookup of this call
    invocation = None
    if entry is not None:
        invocation = ToolInvocation(call=call, tool=entry.tool, turn=turn, cancel=token)
    shared = parallel_capable(entry)

    async def admitted() -> CallResult:
        if gate is None:
            return await dispatch(call, turn, entry, lifecycle, invocation)
        async with gate.hold(shared=shared):
            if token.cancelled:  # cancelled while waiting at the gate: never start the handler
                raise asyncio.CancelledError
            return await dispatch(call, turn, entry, lifecycle, invocation)

    task = asyncio.ensure_future(admitted())
    try:
        await _first_of(task, token)
        if lifecycle.finished or (task.done() and not task.cancelled()):
            return await task  # the handler claimed its outcome first: the real result is kept
        return await _abort(task, call, lifecycle, time.monotonic() - started)
    except asyncio.CancelledError:
        # We ourselves were cancelled (hard abort, outer cancel): the call never gets an
        # output here; history repair pairs it with "aborted" (spec 04 §5, last row).
        lifecycle.finish(ToolCallOutcome.aborted())
        await _unwind(task)
        raise


async def _first_of(task: asyncio.Future[CallResult], token: CancelToken) -> None:
    """Return when ``task`` is done or ``token`` is cancelled, whichever comes first.

    One future woken by two callbacks: cheaper than ``asyncio.wait`` on every call, and
    it leaves no callback or task behind.
    """
    if task.done() or token.cancelled:
        return
    loop = asyncio.get_running_loop()
    woken: asyncio.Future[None] = loop.create_future()

    def wake(_: object = None) -> None:
        if not woken.done():
            woken.set_result(None)

    def wake_threadsafe() -> None:
        try:
            loop.call_soon_threadsafe(wake)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    task.add_done_callback(wake)
    remove = token.on_cancel(wake_threadsafe)
    try:
        await woken
    finally:
        remove()
        task.remove_done_callback(wake)


async def _abort(task: asyncio.Future[CallResult], call: ToolCall, lifecycle: CallLifecycle,
                 elapsed: float) -> CallResult:
    task.cancel()
    try:
        return await task  # it completed anyway: the real result wins
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # we ourselves are being cancelled (hard abort): propagate
    lifecycle.finish(ToolCallOutcome.aborted())
    return aborted_output(call, elapsed)


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
