"""Asking the frontend: the part ``request_user_input``, ``request_permissions`` and the notebook
tools' approvals share.

``ask`` opens a request in the turn's frontend broker, emits its event, routes it to whoever
can answer (explicit policy, a rendered prompts widget, the environment policy, or
nobody: fail fast), and waits. The request never outlives the call: whatever way the
call ends, the ``finally`` settles it, and a ``frontend_request_resolved`` event
follows every request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol.events import WarningEvent
from ...frontend.answer_policy import AnswerPolicyError, how_to_answer, route
from ...frontend.requests import FrontendRequests, Outcome, RequestKind, Settlement
from ..tool_errors import Fatal
from ..invocation import ToolInvocation

if TYPE_CHECKING:
    from ...frontend.requests import RequestMsg


def broker_of(invocation: ToolInvocation) -> FrontendRequests:
    return invocation.turn.frontend


async def ask(invocation: ToolInvocation, kind: RequestKind, msg: RequestMsg, tool: str) -> Settlement:
    """Open, announce, route and await one request; always settles it."""
    broker = broker_of(invocation)
    request = broker.open(kind, turn_id=invocation.turn.turn_id, call_id=invocation.call_id, msg=msg)
    try:
        await invocation.emit(msg)
        if request.settled is None:
            try:
                await route(broker, request, what=tool, unanswerable=how_to_answer(tool))
            except AnswerPolicyError as err:  # a misconfigured policy fails the turn with its own message
                raise Fatal(str(err)) from None
        settlement = await broker.wait(request)
    finally:
        broker.cancel(request.id)
        if not request.future.done():
            request.future.cancel()
        outcome = request.settled.outcome if request.settled is not None else Outcome.CANCELLED
        from ...protocol.frontend import FrontendRequestResolved  # imported by the first request

        invocation.turn.emit(
            FrontendRequestResolved(
                request_id=request.id, kind=kind.value, call_id=request.call_id, outcome=outcome.value
            )
        )
    if settlement.outcome == Outcome.UNANSWERABLE:
        invocation.turn.emit(WarningEvent(message=str(settlement.response)))
    return settlement
