"""One sampling step on a streaming model: items become calls as they complete.

Codex dispatches a tool call the moment its ``response.output_item.done`` arrives, while
the response goes on streaming (``codex-rs/core/src/codex.rs``, in-flight tool futures).
This step does the same: each completed item is recorded at once and, if it is a call,
started; each ``EventMsg`` the model yields (text and reasoning deltas, ``stream_error``)
is published as it is; ``ResponseCompleted`` carries the token usage. Tool calls are
published as ``item_started`` / ``item_completed`` with an app-server v2
``dynamicToolCall`` item, so a transcript shows each call with its status and output.
An interrupt cancels the stream at once (the model closes its HTTP stream) and every
started call still gets its paired output.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from ..protocol.events import EventMsg, ItemCompleted, ItemStarted
from ..protocol.model_stream import OutputItemDone, ResponseCompleted
from ..tools.parallel import ParallelGate
from ..tools.payload import ToolCall
from ..tools.pipeline import CallResult
from ..tools.invocation import TurnContext
from ..tools.router import RoutingError, ToolRouter
from ..tools.calls import run_call
from ..protocol.model import ModelRequest

Calls = list[ToolCall | RoutingError]
Tasks = list["asyncio.Future[CallResult] | None"]


class TurnRunner(Protocol):
    """What a streaming step needs from the turn that runs it (``runtime.turn.TurnRunner``)."""

    turn: TurnContext
    model: Any

    def record_item(self, item: dict[str, Any], router: ToolRouter) -> ToolCall | RoutingError | None: ...

    def record_usage(self, usage: Any) -> None: ...

    async def finish_calls(self, calls: Calls, tasks: Tasks, *, swallow: bool = False) -> None: ...


async def stream_step(runner: TurnRunner, request: ModelRequest, router: Any) -> Calls | None:
    """Consume ``runner.model.stream(request)`` and finish its calls (outputs recorded in call
    order); returns the calls, or None if the turn was interrupted."""
    turn = runner.turn
    calls: Calls = []
    tasks: Tasks = []
    gate = ParallelGate()

    async def consume() -> None:
        async for event in runner.model.stream(request):
            if isinstance(event, OutputItemDone):
                routed = runner.record_item(event.item, router)
                if routed is not None:
                    calls.append(routed)
                    tasks.append(None if isinstance(routed, RoutingError) else _start(runner, routed, router, gate))
            elif isinstance(event, ResponseCompleted):
                runner.record_usage(event.usage)
            elif isinstance(event, EventMsg):
                turn.emit(event)

    consumer = asyncio.ensure_future(consume())
    try:
        with turn.cancel.future() as cancelled:
            await asyncio.wait({consumer, cancelled}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not consumer.done():
            consumer.cancel()  # closes the model's HTTP stream now, not at the next event
            await asyncio.wait({consumer})
    if consumer.cancelled() or turn.cancel.cancelled:
        await runner.finish_calls(calls, tasks)  # each started call gets its (aborted) output
        return None
    error = consumer.exception()
    if error is not None:
        for task in tasks:
            if task is not None:
                task.cancel()
        await runner.finish_calls(calls, tasks, swallow=True)
        raise error
    await runner.finish_calls(calls, tasks)
    return calls


def _start(runner: TurnRunner, call: ToolCall, router: Any, gate: ParallelGate) -> asyncio.Future[CallResult]:
    turn = runner.turn
    started = time.time()
    item = _tool_item(call)
    turn.emit(ItemStarted(thread_id=turn.thread_id, turn_id=turn.turn_id, item=item, started_at_ms=int(started * 1000)))
    task = asyncio.ensure_future(run_call(call, turn, router, gate))

    def completed(done: asyncio.Future[CallResult]) -> None:
        final = dict(item)
        final["durationMs"] = int((time.time() - started) * 1000)
        if done.cancelled() or done.exception() is not None:
            final.update(status="failed", success=None, contentItems=[{"type": "inputText", "text": "aborted"}])
        else:
            result = done.result()
            success = result.success
            final.update(
                status="completed" if success is not False and not _aborted(result) else "failed",
                success=None if _aborted(result) else success,
                contentItems=[{"type": "inputText", "text": result.text}],
            )
        turn.emit(
            ItemCompleted(
                thread_id=turn.thread_id, turn_id=turn.turn_id, item=final, completed_at_ms=int(time.time() * 1000)
            )
        )

    task.add_done_callback(completed)
    return task


def _aborted(result: CallResult) -> bool:
    extra = getattr(result.output, "extra", None) or {}
    return bool(extra.get("aborted"))


def _tool_item(call: ToolCall) -> dict[str, Any]:
    name = call.tool_name
    arguments: Any = call.payload.text if hasattr(call.payload, "text") else None
    if call.payload.kind == "function" and isinstance(arguments, str):
        import json

        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass  # malformed JSON arguments are shown as the model sent them
    return {
        "type": "dynamicToolCall",
        "id": call.call_id,
        "namespace": None if name.is_default else name.namespace,
        "tool": name.name,
        "arguments": arguments,
        "status": "inProgress",
        "contentItems": None,
        "success": None,
        "durationMs": None,
    }
