"""The ``exec`` and ``wait`` tools, and how a nested ``tools.X(...)`` call is dispatched.

A nested call becomes an ordinary ``ToolCall`` (call id ``exec-<uuid4>``, source
``code_mode``, the cell id) and runs through ``run_call``: the same pipeline as a
direct call, with hooks, lifecycle, events and per-call cancellation.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._records import record
from ..protocol import serde
from ..protocol.serde import SerdeError
from ..protocol.serde_json import SerdeJsonError, from_str, missing_field, struct_shape
from ..tools.base import Tool
from ..tools.calls import run_call
from ..tools.tool_errors import Fatal, RespondToModel
from ..tools.invocation import ToolInvocation, TurnContext
from ..tools.names import ToolName
from ..tools.payload import CallSource, Payload, PayloadKind, ToolCall, ToolOutput
from ..tools.router import ToolRouter
from .cell import CANCELLED, NestedCallError
from .description import DEFAULT_MAX_OUTPUT_TOKENS, RUNTIME_DEFAULT_YIELD_TIME_MS
from .output import CellSnapshot, result_body
from .pragma import PragmaError, parse_exec_source
from .cell_manager import CodeModeRuntime, NestedToolEntry, TooManyCells
from .tool_names import EXEC_TOOL_NAME, WAIT_TOOL_NAME
from .specs import exec_spec, wait_spec

EXEC_RECURSION = "exec cannot invoke itself"


@record(frozen=True, kw_only=True)
class NestedTarget:
    tool_name: ToolName
    kind: str  # "function" | "freeform"


def code_mode_result(output: ToolOutput) -> Any:
    """What a nested call resolves to: the tool's own code-mode result if it has one, else its output."""
    if output.code_mode_result is not None:
        return output.code_mode_result
    if isinstance(output.body, str):
        return output.body
    parts = [
        item.get("text") or item.get("image_url") or item.get("audio_url")
        for item in output.body
        if item.get("type") != "encrypted_content"
    ]
    return "\n".join(p for p in parts if p)


class NestedDispatcher:
    """Turns ``tools.X(input)`` from one exec call into pipeline dispatches in ``turn``."""

    def __init__(self, *, targets: dict[str, NestedTarget], router: ToolRouter, turn: TurnContext) -> None:
        self._targets = targets
        self._router = router
        self._turn = turn

    async def __call__(self, cell_id: str, identifier: str, payload: str) -> Any:
        if identifier in (EXEC_TOOL_NAME, WAIT_TOOL_NAME):
            raise NestedCallError(
                EXEC_RECURSION if identifier == EXEC_TOOL_NAME else f"tool `{identifier}` is not available in code mode"
            )
        target = self._targets.get(identifier)
        if target is None:
            raise NestedCallError(f"tool `{identifier}` is not available in code mode")
        if target.kind == "function":
            try:
                valid = isinstance(serde.loads(payload), dict)
            except SerdeError as err:  # e.g. a lone surrogate, which JSON.stringify writes as an escape
                raise NestedCallError(f"failed to serialize JavaScript value: {err}") from None
            if not valid:
                raise NestedCallError(f"tool `{identifier}` expects a JSON object for arguments")
        kind: PayloadKind = "function" if target.kind == "function" else "custom"
        call = ToolCall(
            tool_name=target.tool_name,
            call_id=f"exec-{uuid.uuid4()}",
            payload=Payload(kind, payload),
            source=CallSource.CODE_MODE,
            cell_id=cell_id,
        )
        try:
            result = await run_call(call, self._turn, self._router)
        except Fatal as err:
            raise NestedCallError(f"Fatal error: {err.message}") from None
        if result.output.extra.get("aborted"):
            raise NestedCallError(CANCELLED)
        if result.output.success is False:
            raise NestedCallError(result.output.text)
        return code_mode_result(result.output)


class ExecTool(Tool):
    """``exec``: run the model's JavaScript in a fresh isolate (freeform, lark grammar)."""

    kind = "custom"
    runs_hooks = False

    def __init__(
        self,
        *,
        runtime: CodeModeRuntime,
        description: str,
        targets: dict[str, NestedTarget],
        entries: list[NestedToolEntry],
        router: ToolRouter | None = None,
        default_yield_time_ms: int = RUNTIME_DEFAULT_YIELD_TIME_MS,
    ) -> None:
        super().__init__(EXEC_TOOL_NAME)
        self.runtime = runtime
        self.description = description
        self.targets = targets
        self.entries = entries
        self.router = router
        self.default_yield_time_ms = default_yield_time_ms

    def spec(self) -> dict[str, Any]:
        return exec_spec(self.description)

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.source == CallSource.CODE_MODE:
            raise RespondToModel(EXEC_RECURSION)
        try:
            parsed = parse_exec_source(invocation.payload_text)
        except PragmaError as err:
            raise RespondToModel(str(err)) from None
        if self.router is None:  # the finalizer sets it once exec's own entry exists
            raise Fatal("exec has no router for nested calls; build it through CodeModeFinalizer")
        dispatch = NestedDispatcher(targets=self.targets, router=self.router, turn=invocation.turn)
        yield_ms = parsed.yield_time_ms if parsed.yield_time_ms is not None else self.default_yield_time_ms
        max_tokens = parsed.max_output_tokens if parsed.max_output_tokens is not None else DEFAULT_MAX_OUTPUT_TOKENS
        async with terminate_cells_on_cancel(self.runtime, invocation.turn):
            try:
                cell = await self.runtime.start_cell(
                    parsed.code, self.entries, dispatch=dispatch, on_notify=notifier(invocation)
                )
            except TooManyCells as err:
                raise RespondToModel(str(err)) from None
            snapshot = await self.runtime.next_output(cell.cell_id, yield_ms)
        return cell_output(cell.cell_id, snapshot, max_tokens)


class WaitTool(Tool):
    """``wait``: new output of a yielded cell, or its completion; ``terminate`` stops it."""

    runs_hooks = False

    def __init__(self, *, runtime: CodeModeRuntime) -> None:
        super().__init__(WAIT_TOOL_NAME)
        self.runtime = runtime

    def spec(self) -> dict[str, Any]:
        return wait_spec()

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        args = _wait_args(invocation.payload_text)
        cell_id = args["cell_id"]
        max_tokens = int(args.get("max_tokens", DEFAULT_MAX_OUTPUT_TOKENS))
        async with terminate_cells_on_cancel(self.runtime, invocation.turn):
            if args.get("terminate"):
                snapshot = await self.runtime.terminate(cell_id)
            else:
                snapshot = await self.runtime.next_output(
                    cell_id, int(args.get("yield_time_ms", RUNTIME_DEFAULT_YIELD_TIME_MS))
                )
        return cell_output(cell_id, snapshot, max_tokens)


def cell_output(cell_id: str, snapshot: CellSnapshot | None, max_tokens: int) -> ToolOutput:
    """The tool output for ``snapshot``; None (the runtime does not know ``cell_id``) is a failure."""
    if snapshot is None:
        snapshot = CellSnapshot(
            cell_id=cell_id, status="failed", wall_time_s=0.0, error=f"exec cell {cell_id} not found"
        )
    return ToolOutput(
        body=result_body(snapshot, max_output_tokens=max_tokens),
        success=snapshot.success,
        extra={"cell_id": snapshot.cell_id, "cell_status": snapshot.status},
    )


class WaitArgs(BaseModel):
    """Codex's ``wait`` arguments, as serde_json reads them (unknown keys are ignored; the
    optional fields may be null)."""

    model_config = ConfigDict(defer_build=True, extra="ignore", frozen=True)

    cell_id: str
    yield_time_ms: int | None = None
    max_tokens: int | None = None
    terminate: bool | None = None


_WAIT_U64 = frozenset({"yield_time_ms", "max_tokens"})


def _wait_args(text: str) -> dict[str, Any]:
    """Codex's ``wait`` arguments: ``cell_id`` string, ``yield_time_ms``/``max_tokens`` u64, ``terminate`` bool."""
    try:
        if not text.strip():  # nothing to read: the struct lacks its one required field
            raise SerdeJsonError(missing_field("cell_id"), (1, 0))
        args: dict[str, Any] = from_str(struct_shape(WaitArgs, _WAIT_U64), text)
    except SerdeJsonError as err:
        raise RespondToModel(f"failed to parse function arguments: {err}") from None
    return {key: value for key, value in args.items() if value is not None}


def notifier(invocation: ToolInvocation) -> Callable[[str], None]:
    """``notify(v)``: an extra ``custom_tool_call_output`` for the exec call. During a turn it
    joins the conversation right after the outputs of its step, as in Codex 0.169 (outside a
    turn, e.g. ``call_tool``, it is kept in ``turn.notifications``)."""

    def notify(text: str) -> None:
        item = {
            "type": "custom_tool_call_output",
            "call_id": invocation.call_id,
            "name": EXEC_TOOL_NAME,
            "output": text,
        }
        invocation.turn.notifications.append(item)
        record = invocation.turn.record_item
        if record is not None:
            record(item)

    return notify


class terminate_cells_on_cancel:  # noqa: N801 - used as a context manager
    """While an exec/wait call runs, interrupting its turn terminates every active cell.

    The cancel callback starts the termination at once (from any thread); leaving the
    block under cancellation also awaits it, so the turn ends with no cell running.
    """

    def __init__(self, runtime: CodeModeRuntime, turn: TurnContext) -> None:
        self._runtime = runtime
        self._turn = turn
        self._remove: Callable[[], None] = lambda: None

    async def __aenter__(self) -> None:
        loop = asyncio.get_running_loop()
        runtime = self._runtime

        def on_cancel() -> None:
            loop.call_soon_threadsafe(runtime.spawn, runtime.terminate_all("turn interrupted"))

        self._remove = self._turn.cancel.on_cancel(on_cancel)

    async def __aexit__(self, *exc: object) -> None:
        self._remove()
        if self._turn.cancel.cancelled:
            await asyncio.shield(self._runtime.terminate_all("turn interrupted"))
