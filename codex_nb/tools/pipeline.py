"""The dispatch pipeline: one call through Codex's dispatch steps, in Codex's order
(codex-rs/core/src/tools/registry.rs), so hooks and lifecycle see what they see in Codex.

    lookup -> payload-kind check -> PreToolUse hooks -> lifecycle start -> control guard
      -> HANDLER -> PostToolUse hooks (success only) -> lifecycle finish -> block/feedback

Each step is a small function below; ``dispatch`` reads like the list above.
Cancellation is layered around this by ``tools.calls``.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from .._records import record
from ..protocol.items import developer_message
from ..protocol.wire import dumps
from .tool_errors import Fatal, RespondToModel
from .hook_points import HookRequest, PostToolUseOutcome, PreToolUseOutcome
from .invocation import ToolInvocation, TurnContext
from .lifecycle import CallLifecycle, ControlToolGuard, ControlToolStatus, ToolCallOutcome
from .payload import Payload, ToolCall, ToolOutput
from .registry import RegisteredTool


@record(kw_only=True)
class CallResult:
    """The outcome of one call: its paired output item and what consumers need to know."""

    call: ToolCall
    item: dict[str, Any]
    output: ToolOutput
    context_items: list[dict[str, Any]] = field(default_factory=list)
    outcome: ToolCallOutcome | None = None
    blocked: bool = False

    @property
    def success(self) -> bool | None:
        return self.output.success

    @property
    def text(self) -> str:
        return self.output.text


def failure(call: ToolCall, message: str, *, success: bool | None = False) -> CallResult:
    output = ToolOutput(body=message, success=success)
    return CallResult(call=call, item=output.to_response_item(call), output=output)


async def dispatch(
    call: ToolCall,
    turn: TurnContext,
    entry: RegisteredTool | None,
    lifecycle: CallLifecycle,
    invocation: ToolInvocation | None = None,
) -> CallResult:
    """Run ``call`` (already looked up: ``entry``) through every pipeline step. Raises ``Fatal`` to fail the turn."""
    turn.tool_calls += 1
    if entry is None:
        return unknown_tool(call)
    if not entry.tool.accepts(call.payload.kind):
        return payload_kind_mismatch(call)
    inv = invocation or ToolInvocation(call=call, tool=entry.tool, turn=turn, cancel=turn.cancel.child())
    if not entry.tool.runs_hooks or getattr(turn.hooks, "idle", False):
        # No hook can change this call: the same steps without building hook requests.
        lifecycle.start()
        output = await run_handler_with_guard(entry, inv, lifecycle)
        finish_lifecycle(lifecycle, output)
        return CallResult(
            call=inv.call,
            item=output.to_response_item(call),
            output=output,
            context_items=[],
            outcome=lifecycle.outcome,
        )
    contexts: list[dict[str, Any]] = []
    pre = await run_pre_tool_use(entry, inv)
    contexts += [developer_message(text) for text in pre.additional_contexts]
    if pre.action == "block":
        return _with_contexts(reject_blocked_call(entry, inv, lifecycle, pre.reason), contexts)
    if pre.action == "rewrite":
        rewritten = apply_rewrite(entry, inv, lifecycle, pre.updated_input)
        if isinstance(rewritten, CallResult):
            return _with_contexts(rewritten, contexts)
        inv = rewritten
    lifecycle.start()
    output = await run_handler_with_guard(entry, inv, lifecycle)
    post = await run_post_tool_use(entry, inv, output)
    contexts += [developer_message(text) for text in post.additional_contexts]
    finish_lifecycle(lifecycle, output)
    output = apply_post_tool_use(output, post)
    return CallResult(
        call=inv.call,
        item=output.to_response_item(call),
        output=output,
        context_items=contexts,
        outcome=lifecycle.outcome,
    )


def unknown_tool(call: ToolCall) -> CallResult:
    """Step 2: no hooks, no lifecycle; the model is told the name it used."""
    name = call.tool_name.display
    if call.payload.kind == "custom":
        return failure(call, f"unsupported custom tool call: {name}")
    return failure(call, f"unsupported call: {name}")


PAYLOAD_KIND_MISMATCH_OUTPUT = "aborted"


def payload_kind_mismatch(call: ToolCall) -> CallResult:
    """Step 3: a payload the tool cannot take (a freeform call to a function tool, or the
    reverse). Codex 0.169 answers the call ``aborted`` in the call's own output type and
    the turn goes on; no hooks run and no lifecycle starts."""
    return failure(call, PAYLOAD_KIND_MISMATCH_OUTPUT)


async def run_pre_tool_use(entry: RegisteredTool, inv: ToolInvocation) -> PreToolUseOutcome:
    """Step 4: PreToolUse hooks (block, rewrite or continue)."""
    hooks = inv.turn.hooks
    if not entry.tool.runs_hooks or getattr(hooks, "idle", False):
        return PreToolUseOutcome()
    return await hooks.pre_tool_use(hook_request(entry, inv))


def reject_blocked_call(
    entry: RegisteredTool, inv: ToolInvocation, lifecycle: CallLifecycle, reason: str
) -> CallResult:
    """A PreToolUse block: Rejected guard, Blocked outcome, the exact block text Codex sends."""
    with _guard(entry, inv, lifecycle) as guard:
        if guard is not None:
            guard.finish(ControlToolStatus.REJECTED)
    lifecycle.finish(ToolCallOutcome.blocked())
    tool_name = entry.tool.hook_tool_name
    tool_input = entry.tool.hook_tool_input(inv.payload_text)
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if tool_name in ("Bash", "apply_patch") and isinstance(command, str):
        text = f"Command blocked by PreToolUse hook: {reason}. Command: {command}"
    else:
        text = f"Tool call blocked by PreToolUse hook: {reason}. Tool: {tool_name}"
    result = failure(inv.call, text)
    result.outcome, result.blocked = lifecycle.outcome, True
    return result


def apply_rewrite(
    entry: RegisteredTool, inv: ToolInvocation, lifecycle: CallLifecycle, updated_input: Any
) -> ToolInvocation | CallResult:
    """A PreToolUse rewrite re-serialises ``updatedInput`` as the new function arguments."""
    if inv.call.payload.kind != "function":
        with _guard(entry, inv, lifecycle) as guard:
            if guard is not None:
                guard.finish(ControlToolStatus.FAILED)
        lifecycle.finish(ToolCallOutcome.failed(handler_executed=False))
        result = failure(inv.call, "hook input rewrite received unsupported function tool payload")
        result.outcome = lifecycle.outcome
        return result
    arguments = updated_input if isinstance(updated_input, str) else dumps(updated_input)
    call = ToolCall(
        tool_name=inv.call.tool_name,
        call_id=inv.call.call_id,
        payload=Payload.function(arguments),
        source=inv.call.source,
        cell_id=inv.call.cell_id,
    )
    return ToolInvocation(
        call=call, tool=inv.tool, turn=inv.turn, cancel=inv.cancel, emitted=inv.emitted, on_emit=inv.on_emit
    )


async def run_handler_with_guard(entry: RegisteredTool, inv: ToolInvocation, lifecycle: CallLifecycle) -> ToolOutput:
    """Steps 6-8: guard around the handler; RespondToModel becomes a failed output."""
    with _guard(entry, inv, lifecycle) as guard:
        try:
            output = await entry.tool.handle(inv)
        except RespondToModel as err:
            if guard is not None:
                guard.finish(ControlToolStatus.FAILED)
            lifecycle.finish(ToolCallOutcome.failed(handler_executed=True))
            return ToolOutput(body=err.message, success=False)
        except Fatal:
            if guard is not None:
                guard.finish(ControlToolStatus.FAILED)
            lifecycle.finish(ToolCallOutcome.failed(handler_executed=True))
            raise
        except Exception as err:  # a handler bug must not kill the kernel: fail the turn, clearly
            if guard is not None:
                guard.finish(ControlToolStatus.FAILED)
            lifecycle.finish(ToolCallOutcome.failed(handler_executed=True))
            raise Fatal(f"tool {inv.call.tool_name.display} crashed: {type(err).__name__}: {err}") from err
        if guard is not None:
            guard.finish(_COMPLETED if output.success is not False else _FAILED)
        return output


async def run_post_tool_use(entry: RegisteredTool, inv: ToolInvocation, output: ToolOutput) -> PostToolUseOutcome:
    """Step 9: PostToolUse hooks, only after a handler that succeeded."""
    hooks = inv.turn.hooks
    if not entry.tool.runs_hooks or output.success is False or getattr(hooks, "idle", False):
        return PostToolUseOutcome()
    return await hooks.post_tool_use(hook_request(entry, inv, tool_response=output.body))


def hook_request(entry: RegisteredTool, inv: ToolInvocation, *, tool_response: Any = None) -> HookRequest:
    """The hook port's view of one call: plain facts, the input parsed only if a hook reads it."""
    turn, tool = inv.turn, entry.tool
    return HookRequest(
        tool_name=tool.hook_tool_name,
        tool_use_id=inv.call_id,
        thread_id=turn.thread_id,
        turn_id=turn.turn_id,
        cwd=turn.cwd,
        model=turn.model_slug,
        approval_policy=turn.config.approval_policy,
        emit=inv.emit,
        read_input=lambda: tool.hook_tool_input(inv.payload_text),
        aliases=getattr(tool, "hook_aliases", None),
        tool_response=tool_response,
    )


def finish_lifecycle(lifecycle: CallLifecycle, output: ToolOutput) -> None:
    """Step 11: exactly one terminal outcome (a handler error already claimed Failed)."""
    if not lifecycle.finished:
        lifecycle.finish(ToolCallOutcome.completed(output.success is not False))


def apply_post_tool_use(output: ToolOutput, post: PostToolUseOutcome) -> ToolOutput:
    """Step 12: a block replaces the output (success False); feedback replaces the text only."""
    if post.block_reason is not None:
        return ToolOutput(body=post.block_reason, success=False, extra={"post_tool_use_blocked": True})
    if post.feedback is not None:
        return ToolOutput(
            body=post.feedback,
            success=output.success,
            code_mode_result=output.code_mode_result,
            extra={**output.extra, "post_tool_use_feedback": True},
        )
    return output


def _with_contexts(result: CallResult, contexts: list[dict[str, Any]]) -> CallResult:
    result.context_items = contexts + result.context_items
    return result


# Enum members read through their class cost a lookup each; the common path reads these.
_COMPLETED, _FAILED = ControlToolStatus.COMPLETED, ControlToolStatus.FAILED


class _NoGuard:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _guard(entry: RegisteredTool, inv: ToolInvocation, lifecycle: CallLifecycle) -> ControlToolGuard | _NoGuard:
    if not entry.tool.is_control_tool:
        return _NoGuard()
    return ControlToolGuard(lifecycle, inv.call.cell_id)
