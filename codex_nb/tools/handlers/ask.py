"""Asking the frontend: the part ``request_user_input`` and ``request_permissions`` share.

``ask`` opens a request in the turn's frontend broker, emits its event, routes it to whoever
can answer (explicit policy, a rendered prompts widget, the environment policy, or
nobody: fail fast), and waits. The request never outlives the call: whatever way the
call ends, the ``finally`` settles it, and a ``frontend_request_resolved`` event
follows every request.
"""

from __future__ import annotations

from ...protocol.frontend import FrontendRequestResolved, RequestPermissionsEvent, RequestUserInputEvent
from ...protocol.events import WarningEvent
from ...frontend.answer_policy import AnswerPolicy, AnswerPolicyError, env_policy, how_to_answer
from ...frontend.requests import (
    AnswerError,
    FrontendRequest,
    FrontendRequests,
    Outcome,
    RequestKind,
    Settlement,
)
from ..errors import Fatal
from ..invocation import ToolInvocation


def broker_of(invocation: ToolInvocation) -> FrontendRequests:
    return invocation.turn.frontend


async def ask(invocation: ToolInvocation, kind: RequestKind, msg: RequestUserInputEvent | RequestPermissionsEvent,
              tool: str) -> Settlement:
    """Open, announce, route and await one request; always settles it."""
    broker = broker_of(invocation)
    request = broker.open(kind, turn_id=invocation.turn.turn_id, call_id=invocation.call_id, msg=msg)
    try:
        await invocation.emit(msg)
        if request.settled is None:
            try:
                await _route(invocation, broker, request, tool)
            except AnswerPolicyError as err:  # a misconfigured policy fails the turn with its own message
                raise Fatal(str(err)) from None
        settlement = await broker.wait(request)
    finally:
        broker.cancel(request.id)
        if not request.future.done():
            request.future.cancel()
        outcome = request.settled.outcome if request.settled is not None else Outcome.CANCELLED
        invocation.turn.emit(FrontendRequestResolved(request_id=request.id, kind=kind.value, call_id=request.call_id,
                                                     outcome=outcome.value))
    if settlement.outcome == Outcome.UNANSWERABLE:
        invocation.turn.emit(WarningEvent(message=str(settlement.response)))
    return settlement


async def _route(invocation: ToolInvocation, broker: FrontendRequests, request: FrontendRequest, tool: str) -> None:
    policy = AnswerPolicy.from_value(broker.answer_policy)
    if policy is None:
        state = broker.frontend_state()
        if state == "ready":
            return  # a person can answer in the widget
        policy = env_policy(broker.env_policy_cache)
        if policy is None:
            if state == "displayed":  # the widget's view may still be loading
                broker.start_view_grace(request, how_to_answer(tool))
            else:
                broker.fail(request.id, how_to_answer(tool))
            return
    value = await policy.answer(request)
    if request.settled is not None:
        return  # replaced or cancelled while the policy was thinking
    try:
        broker.answer(request.id, value, outcome=Outcome.POLICY)
    except AnswerError as err:
        raise AnswerPolicyError(f"answer policy {policy!r} gave an unusable answer to {tool} "
                                f"(call {request.call_id}): {err}") from None
