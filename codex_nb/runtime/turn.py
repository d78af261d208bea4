"""The turn loop: sample, route, dispatch, record outputs in call order, repeat.

One turn runs until the model answers without tool calls, the turn is interrupted,
or a Fatal error fails it. Every step plans from a fresh registry snapshot, repairs
history before sampling, and records all call items, then their outputs in call
order, as Codex records them whatever order they finished in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from ..errors import CassetteError, ModelError, ScriptedModelError
from ..protocol.events import (
    AgentMessage,
    ErrorEvent,
    Event,
    TurnAborted,
    TurnComplete,
    TurnStarted,
    UserMessage,
    WarningEvent,
)
from ..protocol.items import developer_message, malformed_item, message_text, user_message
from ..protocol.model import Model, ModelRequest
from ..protocol.model_stream import TokenCount, TokenUsage, TokenUsageInfo
from ..tools.calls import finished_result, gather_calls, run_call, run_calls_in_order, start_inline
from ..tools.cancellation import CancelSource
from ..tools.tool_errors import Fatal
from ..tools.handlers.clock import CurrentTimeReminder
from ..tools.handlers.context_budget import context_window_message
from ..tools.handlers.tool_search import namespaces_message
from ..tools.names import ToolName
from ..tools.invocation import TurnContext
from ..tools.payload import ToolCall
from ..tools.pipeline import CallResult
from ..tools.planner import ToolPlan, ToolPlanner
from ..tools.router import RoutingError, ToolRouter
from .history import PairingTracker, repair_history, repaired
from .proposed_plan import publish_proposed_plan
from .streaming import stream_step

TurnStatus = Literal["completed", "interrupted", "failed"]
TOOL_SEARCH = ToolName.of("tool_search")

TURN_ABORTED_MARKER = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may "
    "still be running in the background. If any tools/commands were aborted, they may have partially executed.\n"
    "</turn_aborted>"
)


@dataclass(kw_only=True)
class TurnResult:
    turn_id: str
    status: TurnStatus
    items: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    dropped_deltas: int = 0
    """Text and reasoning delta events not kept in ``events`` (past the first 10,000: the completed
    message holds their text; subscribers saw every one)."""
    error: str | None = None
    last_agent_message: str | None = None
    token_usage: TokenUsage | None = None
    """Token usage summed over this turn's responses (None if the model reported none)."""
    last_token_usage: TokenUsage | None = None
    """Usage of the turn's last response: what its context window holds now."""

    def outputs(self) -> dict[str, Any]:
        """``call_id -> output`` of every tool output item recorded in this turn."""
        return {i["call_id"]: i.get("output") for i in self.items if i.get("type", "").endswith("_output")}


@dataclass
class UsageTally:
    """A thread's token usage: the running ``total`` and the ``last`` response's usage."""

    total: TokenUsage | None = None
    last: TokenUsage | None = None


class TurnRunner:
    """Runs one turn; ``run()`` always returns a ``TurnResult``.

    It gets exactly what a turn needs (the turn's context, the model, the planner and the
    conversation history with its pairing tracker), not the session.
    """

    def __init__(
        self,
        *,
        turn: TurnContext,
        model: Model,
        user_text: str,
        planner: ToolPlanner,
        history: list[dict[str, Any]],
        pairing: PairingTracker,
        usage: UsageTally | None = None,
        time_reminder: CurrentTimeReminder | None = None,
    ) -> None:
        self.turn = turn
        self.time_reminder = time_reminder
        self.model = model
        self.user_text = user_text
        self.planner = planner
        self.history = history
        self.pairing = pairing
        self.start_index = len(history)
        self.last_agent_message: str | None = None
        self.usage = usage if usage is not None else UsageTally()
        self.token_usage: TokenUsage | None = None
        self.last_token_usage: TokenUsage | None = None
        self._archived_items: list[dict[str, Any]] = []  # this turn's items from earlier context windows
        self._last_request: ModelRequest | None = None
        self._router_without_search: ToolRouter | None = None

    @property
    def items(self) -> list[dict[str, Any]]:
        return self._archived_items + self.history[self.start_index :]

    async def run(self) -> TurnResult:
        turn = self.turn
        turn.emit(TurnStarted(turn_id=turn.turn_id, collaboration_mode_kind=str(turn.mode)))
        turn.emit(UserMessage(message=self.user_text))
        self.history.append(user_message(self.user_text))
        # Items a tool adds beside its output (Code Mode notify): Codex 0.169 records them
        # after the outputs of the step that produced them (conformance cm_notify).
        self.extra_items: list[dict[str, Any]] = []
        turn.record_item = self.extra_items.append
        try:
            await self._loop()
        except asyncio.CancelledError:
            first_party = turn.cancel.cancelled and turn.cancel.source == CancelSource.FIRST_PARTY
            result = self._aborted()
            if not first_party:
                raise  # an outer cancel (kernel shutdown...) is recorded, then honoured
            current = asyncio.current_task()
            if current is not None:
                current.uncancel()  # our own hard abort after the grace period: a normal result
            return result
        except (Fatal, ScriptedModelError, ModelError, CassetteError) as err:
            return self._failed(f"Fatal error: {err.message}" if isinstance(err, Fatal) else str(err))
        except Exception as err:  # a bug must surface as a failed turn, not a dead kernel
            return self._failed(f"turn failed: {type(err).__name__}: {err}")
        if turn.cancel.cancelled:
            return self._aborted()
        turn.emit(TurnComplete(turn_id=turn.turn_id, last_agent_message=self.last_agent_message))
        return self._result("completed")

    async def _loop(self) -> None:
        streams = callable(getattr(self.model, "stream", None))
        turn, history, pairing, reminder = self.turn, self.history, self.pairing, self.time_reminder
        cancel, pending_input, window = turn.cancel, turn.pending_input, turn.context_window
        # Every step runs this loop, and what it checks first is usually off (no steered input,
        # no new context, no reminder, no tool_search, no usage): the checks go through locals,
        # and nothing is called for a switch that is off.
        while not cancel.cancelled:
            if pending_input.pending:
                for text in pending_input.drain():  # steered input joins before the next request
                    turn.emit(UserMessage(message=text))
                    history.append(user_message(text))
            if window.new_context_requested:
                self._start_new_context_window()
            if reminder is not None and reminder.enabled:  # the clock feature's throttled <current_time_reminder>
                due = reminder.due_item()
                if due is not None:
                    history.append(due)
            plan = self.planner.plan(turn.mode)
            if plan.router is not self._router_without_search:
                self._announce_deferred_namespaces(plan.router)
            request = self._request(repaired(history, pairing), plan)
            if streams:
                streamed = await stream_step(self, request, plan.router)
                if streamed is None:
                    return
                calls = streamed
                if calls:
                    continue  # the calls ran (and were recorded) while the response streamed
            else:
                # A model that answers without waiting (ScriptedModel) costs no task and no race;
                # the step still lets the loop turn once, so a Stop click gets in between steps.
                items, sample = start_inline(self.model.sample(request), cancel)
                if sample is None:
                    await asyncio.sleep(0)
                else:
                    items = await self._race_sample(sample)
                if items is None or cancel.cancelled:
                    return  # an interrupted step's response is discarded, never recorded
                usage = getattr(self.model, "last_usage", None)  # e.g. ScriptedModel(usage=[...])
                if usage is not None:
                    self.record_usage(usage)
                calls = self._record_response(items, plan.router)
            if not calls:
                if pending_input.pending:
                    continue  # input arrived during the step: the turn goes on with it
                if hasattr(self.model, "check_turn_end"):
                    self.model.check_turn_end()
                return
            await self._run_calls(calls, plan.router)

    def _request(self, items: list[dict[str, Any]], plan: ToolPlan) -> ModelRequest:
        """This step's request. A paired history is sent as the live list itself, so with the
        same tools as the last step the request is equal to the last one: that (frozen)
        request is sent again instead of a copy."""
        last = self._last_request
        if last is not None and last.items is items and last.tools is plan.specs:
            return last
        self._last_request = ModelRequest(
            turn_id=self.turn.turn_id,
            items=items,
            tools=plan.specs,
            tool_generation=plan.generation,
            mode=str(self.turn.mode),
            thread_id=self.turn.thread_id,
        )
        return self._last_request

    async def _race_sample(self, sample: asyncio.Task[list[dict[str, Any]]]) -> list[dict[str, Any]] | None:
        """The response of a model that waits, raced against the turn's cancel token (None: cut off)."""
        try:
            with self.turn.cancel.future() as cancelled:
                racing: set[asyncio.Future[Any]] = {sample, cancelled}  # a model's response, the cancel
                await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not sample.done():
                sample.cancel()
                await asyncio.wait({sample})  # a model ignoring cancel is cut off by the hard abort
        if sample.cancelled() or self.turn.cancel.cancelled:
            return None
        return sample.result()

    def record_item(self, item: dict[str, Any], router: ToolRouter) -> ToolCall | RoutingError | None:
        """Record one output item in history; returns its call if it is one. An item that is
        not a valid Responses API item is dropped with a warning, as Codex drops it."""
        problem = malformed_item(item)
        if problem is not None:
            self.turn.emit(
                WarningEvent(
                    message=f"dropped a model output item that is not a valid Responses API "
                    f"item ({problem}), as Codex does"
                )
            )
            return None
        self.history.append(item)
        if item.get("type") == "message" and item.get("role") == "assistant":
            text = message_text(item)
            if self.turn.mode == "plan" and "<proposed_plan>" in text:
                text = publish_proposed_plan(self.turn, text)  # the plan is an item of its own, as in Codex
                if not text:
                    return router.build_tool_call(item)  # a message that is only the plan: the turn ends asking
            self.last_agent_message = text
            self.turn.emit(AgentMessage(message=self.last_agent_message))
        return router.build_tool_call(item)

    def record_usage(self, usage: TokenUsage | dict[str, Any] | None) -> None:
        """Count one response's usage for the turn and the thread; publish ``token_count``.

        The thread's ``last`` usage is what its context window holds now (get_context_remaining
        reads it as ``session.last_token_usage``); ``total`` is its running sum."""
        if isinstance(usage, dict):
            usage = (
                TokenUsage.from_responses_usage(usage)
                if "input_tokens_details" in usage or "output_tokens_details" in usage
                else TokenUsage(**usage)
            )
        if usage is None:
            return
        self.last_token_usage = usage
        self.turn.context_window.last_token_usage = usage  # what get_context_remaining counts
        self.token_usage = usage if self.token_usage is None else self.token_usage + usage
        tally = self.usage
        tally.last = usage
        tally.total = usage if tally.total is None else tally.total + usage
        window = getattr(self.model, "model_context_window", None)
        self.turn.emit(
            TokenCount(
                info=TokenUsageInfo(total_token_usage=tally.total, last_token_usage=usage, model_context_window=window)
            )
        )

    def _announce_deferred_namespaces(self, router: ToolRouter) -> None:
        """Tell the model which deferred namespaces tool_search can reach (a ``<tools>`` developer message).

        A router without tool_search is remembered, so the loop does not ask it again each step."""
        entry = router.lookup(TOOL_SEARCH)
        if entry is None or not hasattr(entry.tool, "namespaces"):
            self._router_without_search = router
            return
        window = self.turn.context_window
        current = entry.tool.namespaces()
        text = namespaces_message(window.announced_namespaces, current)
        if text is not None:
            self.history.append(developer_message(text))
            window.announced_namespaces = {**window.announced_namespaces, **current}

    def _start_new_context_window(self) -> None:
        """``new_context``: the next request starts on a fresh window without a summary (Codex 0.169).

        The items so far stay in this turn's result and in ``context_window.archived_history``."""
        self._archived_items.extend(self.items[len(self._archived_items) :])
        first, current, previous = self.turn.context_window.start_new(self.history)
        self.history[:] = [context_window_message(first=first, current=current, previous=previous)]
        self.start_index = len(self.history)

    def _record_response(self, items: list[dict[str, Any]], router: ToolRouter) -> list[ToolCall | RoutingError]:
        calls: list[ToolCall | RoutingError] = []
        for item in items:
            routed = self.record_item(item, router)
            if routed is not None:
                calls.append(routed)
        return calls

    async def _run_calls(self, calls: list[ToolCall | RoutingError], router: ToolRouter) -> None:
        """Run one response's calls (the gate's order, no task per exclusive call) and record
        their outputs in call order, each as soon as every call before it has one (``calls`` is
        consumed). If the turn is cut short (hard abort, ``Fatal``), what finished is recorded
        and history repair pairs the rest."""
        if len(calls) == 1 and not isinstance(calls[0], RoutingError):  # the common step: nothing to order
            result: CallResult | None = None
            try:
                result = await run_call(calls[0], self.turn, router)
            finally:
                self._record_output(calls[0], result)
                self._record_extra_items()
            return
        results: list[CallResult | None] = [None] * len(calls)
        pending = cast("list[ToolCall | RoutingError | None]", calls)  # consumed: recorded calls are cleared
        runnable: list[ToolCall | None] = [None if isinstance(call, RoutingError) else call for call in calls]
        recorded = 0

        def record_ready() -> None:
            nonlocal recorded
            recorded = self._record_ready(pending, runnable, results, recorded)

        try:
            await run_calls_in_order(runnable, self.turn, router, results=results, done=record_ready)
        finally:
            self._record_outputs(pending[recorded:], results[recorded:])

    def _record_ready(
        self,
        calls: list[ToolCall | RoutingError | None],
        runnable: list[ToolCall | None],
        results: list[CallResult | None],
        start: int,
    ) -> int:
        """Record the outputs of the finished calls from ``start`` on, in call order, up to the
        first call still running; returns where that is. A recorded call's entries are cleared,
        so nothing keeps it alive until the last call of a long response (the collector would
        walk every one of them, again and again). The history ends up exactly as if every
        output were recorded after the last call."""
        index = start
        while index < len(calls):
            call, result = calls[index], results[index]
            if result is None and not isinstance(call, RoutingError):
                break  # still running
            self._record_output(call, result)
            calls[index] = runnable[index] = results[index] = None
            index += 1
        return index

    async def finish_calls(
        self,
        calls: list[ToolCall | RoutingError],
        tasks: list[asyncio.Future[CallResult] | None],
        *,
        swallow: bool = False,
    ) -> None:
        """Wait for the started calls, then record their outputs in call order."""
        try:
            await gather_calls([t for t in tasks if t is not None])
        except BaseException:
            # What finished is kept; history repair pairs the rest.
            self._record_outputs(calls, [finished_result(t) for t in tasks])
            if swallow:
                return
            raise
        self._record_outputs(calls, [finished_result(t) for t in tasks])

    def _record_outputs(
        self, calls: Sequence[ToolCall | RoutingError | None], results: list[CallResult | None]
    ) -> None:
        """Outputs in CALL order, whatever order they finished in, as Codex does; then the items
        the calls added beside their outputs (Code Mode notify)."""
        for call, result in zip(calls, results, strict=True):
            self._record_output(call, result)
        self._record_extra_items()

    def _record_extra_items(self) -> None:
        """The items the step's calls added beside their outputs, after all outputs (Code Mode notify)."""
        if self.extra_items:
            self.history.extend(self.extra_items)
            self.extra_items.clear()

    def _record_output(self, call: ToolCall | RoutingError | None, result: CallResult | None) -> None:
        """One call's output (a routing error's, or what its handler answered; nothing for a call
        that got no output: history repair pairs it)."""
        if isinstance(call, RoutingError):
            self.history.append(call.item)
        elif result is not None:
            self.history.extend(result.context_items)
            self.history.append(result.item)

    def _aborted(self) -> TurnResult:
        turn = self.turn
        if not turn.cancel.cancelled:
            turn.cancel.cancel("external", CancelSource.EXTERNAL)
        self.history[:] = repair_history(self.history)
        first_party = turn.cancel.source == CancelSource.FIRST_PARTY
        reason = (
            turn.cancel.reason
            if turn.cancel.reason in ("interrupted", "replaced", "review_ended", "budget_limited")
            else "interrupted"
        )
        if first_party and reason == "interrupted":
            self.history.append(user_message(TURN_ABORTED_MARKER))
        completed_at = time.time()
        turn.emit(
            TurnAborted(
                turn_id=turn.turn_id,
                reason=reason,
                started_at=int(turn.started_at),
                completed_at=int(completed_at),
                duration_ms=int((completed_at - turn.started_at) * 1000),
            )
        )
        result = self._result("interrupted")
        result.error = None if first_party else f"turn cancelled from outside ({turn.cancel.reason})"
        return result

    def _failed(self, message: str) -> TurnResult:
        self.history[:] = repair_history(self.history)
        self.turn.emit(ErrorEvent(message=message))
        self.turn.emit(TurnComplete(turn_id=self.turn.turn_id, last_agent_message=self.last_agent_message))
        result = self._result("failed")
        result.error = message
        return result

    def _result(self, status: TurnStatus) -> TurnResult:
        return TurnResult(
            turn_id=self.turn.turn_id,
            status=status,
            items=list(self.items),
            last_agent_message=self.last_agent_message,
            token_usage=self.token_usage,
            last_token_usage=self.last_token_usage,
        )
