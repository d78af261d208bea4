"""Server-to-client requests: the real Codex asks, the notebook answers.

``item/tool/requestUserInput`` and ``item/permissions/requestApproval`` open a request in
the thread's ``FrontendRequests`` broker and are routed exactly as for codex_nb's own
tools: an explicit ``thread.answer_policy``, else a rendered prompts widget (a person
answers), else ``$CODEX_NB_ANSWER_POLICY``, else nobody. Whatever happens, the server
gets exactly one answer: when nobody can answer (or the request is cancelled) it gets the
decline Codex documents for that request (``{"answers": {}}``, an empty turn grant,
``{"decision": "decline"}``, ``{"action": "decline"}``), never silence. A
``serverRequest/resolved`` for a request still open here (answered by another client, or
cleared by an interrupt) closes its prompt without answering twice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ...protocol.events import WarningEvent
from ...protocol.frontend import FrontendRequestResolved, Question, RequestPermissionsEvent, RequestUserInputEvent
from ...runtime.answer_policy import AnswerPolicy, AnswerPolicyError, env_policy, how_to_answer
from ...runtime.frontend_requests import AnswerError, FrontendRequest, Outcome, RequestKind, Settlement
from .permissions import granted_to_v2, profile_from_v2
from .rpc import METHOD_NOT_FOUND

if TYPE_CHECKING:
    from .thread import CodexThread

log = logging.getLogger("codex_nb.app_server.requests")

USER_INPUT = "item/tool/requestUserInput"
PERMISSIONS = "item/permissions/requestApproval"
COMMAND_APPROVAL = "item/commandExecution/requestApproval"
FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval"
ELICITATION = "mcpServer/elicitation/request"

DECLINE: dict[str, Any] = {
    USER_INPUT: {"answers": {}},
    PERMISSIONS: {"permissions": {}, "scope": "turn"},
    COMMAND_APPROVAL: {"decision": "decline"},
    FILE_CHANGE_APPROVAL: {"decision": "decline"},
    ELICITATION: {"action": "decline"},
}
"""Codex's documented answer for declining each server request."""


def user_input_event(params: dict[str, Any]) -> RequestUserInputEvent:
    return RequestUserInputEvent(call_id=params["itemId"], turn_id=params["turnId"],
                                 questions=[Question.model_validate(q) for q in params["questions"]],
                                 autoResolutionMs=params.get("autoResolutionMs"))


def permissions_event(params: dict[str, Any]) -> RequestPermissionsEvent:
    return RequestPermissionsEvent(call_id=params["itemId"], turn_id=params["turnId"],
                                   environment_id=params.get("environmentId") or "local",
                                   started_at_ms=params.get("startedAtMs") or 0, reason=params.get("reason"),
                                   permissions=profile_from_v2(params.get("permissions")), cwd=params.get("cwd", ""))


class ServerRequests:
    """Answers the server requests of one thread; keyed by JSON-RPC id while open."""

    def __init__(self, thread: CodexThread) -> None:
        self.thread = thread
        self.open: dict[Any, FrontendRequest] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self._elsewhere: set[str] = set()
        self.answered: list[tuple[str, Any]] = []
        """(method, response) of every answer sent, in order (for tests and notebooks)."""

    def handle(self, rpc_id: Any, method: str, params: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self._answer(rpc_id, method, params))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _answer(self, rpc_id: Any, method: str, params: dict[str, Any]) -> None:
        if method in (USER_INPUT, PERMISSIONS):
            response = await self._ask(rpc_id, method, params)
        elif method in DECLINE:
            response = await self._approval(method, params)
        else:
            self.thread.server.connection_respond_error(
                rpc_id, METHOD_NOT_FOUND, f"codex_nb does not handle the server request {method}")
            return
        if response is not None:
            self.answered.append((method, response))
            self.thread.server.connection_respond(rpc_id, response, method=method)

    async def _ask(self, rpc_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        thread = self.thread
        kind = RequestKind.USER_INPUT if method == USER_INPUT else RequestKind.PERMISSIONS
        msg = user_input_event(params) if kind == RequestKind.USER_INPUT else permissions_event(params)
        broker = thread.frontend_requests
        request = broker.open(kind, turn_id=params["turnId"], call_id=params["itemId"], msg=msg)
        self.open[rpc_id] = request
        tool = "request_user_input" if kind == RequestKind.USER_INPUT else "request_permissions"
        try:
            thread.emit(msg, turn_id=params["turnId"])
            if request.settled is None:
                await self._route(request, tool)
            settlement = await broker.wait(request)
        except AnswerPolicyError as err:
            broker.fail(request.id, str(err))
            settlement = request.settled or Settlement(outcome=Outcome.UNANSWERABLE, response=str(err))
        finally:
            self.open.pop(rpc_id, None)
            broker.cancel(request.id)
            outcome = request.settled.outcome if request.settled is not None else Outcome.CANCELLED
            thread.emit(FrontendRequestResolved(request_id=request.id, kind=kind.value, call_id=request.call_id,
                                                outcome=outcome.value), turn_id=params["turnId"])
        if request.id in self._elsewhere:
            return None  # the server already moved on; answering again would be an error
        if settlement.outcome == Outcome.UNANSWERABLE:
            thread.emit(WarningEvent(message=f"{settlement.response}; codex_nb declined the request"),
                        turn_id=params["turnId"])
        if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY, Outcome.AUTO_RESOLVED):
            if kind == RequestKind.USER_INPUT:
                return dict(settlement.response)
            return granted_to_v2(settlement.response, msg.permissions)  # type: ignore[union-attr]
        return DECLINE[method]

    async def _route(self, request: FrontendRequest, tool: str) -> None:
        """The precedence of codex_nb's own tools (``tools/handlers/ask.py``)."""
        broker = self.thread.frontend_requests
        policy = AnswerPolicy.from_value(self.thread.answer_policy)
        if policy is None:
            state = broker.frontend_state()
            if state == "ready":
                return
            policy = env_policy(broker.env_policy_cache)
            if policy is None:
                if state == "displayed":
                    broker.start_view_grace(request, how_to_answer(tool))
                else:
                    broker.fail(request.id, how_to_answer(tool))
                return
        value = await policy.answer(request)
        if request.settled is not None:
            return
        try:
            broker.answer(request.id, value, outcome=Outcome.POLICY)
        except AnswerError as err:
            raise AnswerPolicyError(f"answer policy {policy!r} gave an unusable answer to {tool} "
                                    f"(item {request.call_id}): {err}") from None

    async def _approval(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Command, file-change and MCP requests: an approval policy decides, else decline."""
        decide = getattr(self.thread, "approval_policy", None)
        turn_id = params.get("turnId")
        if callable(decide):
            value = decide(method, params)
            if asyncio.iscoroutine(value):
                value = await value
            if value is not None:
                return value
        self.thread.emit(WarningEvent(message=f"codex_nb declined {method} (item {params.get('itemId')}): no "
                                              f"approval policy is set on the thread"), turn_id=turn_id)
        return DECLINE[method]

    def resolved(self, rpc_id: Any) -> None:
        """``serverRequest/resolved``: close a prompt the server no longer waits for."""
        request = self.open.get(rpc_id)
        if request is not None and request.settled is None:
            self._elsewhere.add(request.id)
            self.thread.frontend_requests.cancel(request.id)

    def cancel_all(self) -> None:
        """The server is gone: close every prompt (there is nobody left to answer)."""
        for request in list(self.open.values()):
            self._elsewhere.add(request.id)
            self.thread.frontend_requests.cancel(request.id)
