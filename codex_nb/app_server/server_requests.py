"""Server-to-client requests: the real Codex asks, the notebook answers.

``item/tool/requestUserInput``, ``item/permissions/requestApproval``, the command and
file-change approvals and ``mcpServer/elicitation/request`` open a request in the thread's
``FrontendRequests`` broker (an approval shows the command with the decisions Codex lists in
``availableDecisions``, or the diff of the ``fileChange`` item it is about; an elicitation
shows its form or its URL) and are routed exactly as for codex_nb's own tools: an explicit ``thread.answer_policy``, else a rendered prompts widget (a person
answers), else ``$CODEX_NB_ANSWER_POLICY``, else nobody. Whatever happens, the server
gets exactly one answer: when nobody can answer (or the request is cancelled) it gets the
decline Codex documents for that request (``{"answers": {}}``, an empty turn grant,
``{"decision": "decline"}``, ``{"action": "decline"}``), never silence. An elicitation
codex_nb cannot show whole (a field type outside MCP's primitive set, a mode it does not
know) is declined at once with a warning that names the field or mode. A
``serverRequest/resolved`` for a request still open here (answered by another client, or
cleared by an interrupt) closes its prompt without answering twice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from ..errors import CassetteError
from ..protocol.events import WarningEvent
from ..protocol.frontend import (
    ApplyPatchApprovalRequestEvent,
    ElicitationRequestEvent,
    ExecApprovalRequestEvent,
    FileChange,
    NetworkApprovalContext,
    Question,
    RequestPermissionsEvent,
    RequestUserInputEvent,
)
from ..frontend.answer_policy import ask_and_wait
from ..frontend.decisions import choose, default_options, options_from_app_server, to_app_server
from ..frontend.elicitation import UnsupportedSchema, event_from_params
from ..frontend.requests import FrontendRequest, FrontendRequests, Outcome, RequestKind, RequestMsg
from .permission_profiles import granted_to_v2, profile_from_v2
from .rpc import METHOD_NOT_FOUND


class _Asker(Protocol):
    """What the requests of a thread need from it (``CodexThread``)."""

    server: Any
    frontend_requests: FrontendRequests
    items: dict[str, dict[str, Any]]

    def emit(self, msg: Any, *, turn_id: str | None) -> Any: ...


log = logging.getLogger("codex_nb.app_server.requests")

USER_INPUT = "item/tool/requestUserInput"
PERMISSIONS = "item/permissions/requestApproval"
COMMAND_APPROVAL = "item/commandExecution/requestApproval"
FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval"
ELICITATION = "mcpServer/elicitation/request"

DECLINE: dict[str, dict[str, Any]] = {
    USER_INPUT: {"answers": {}},
    PERMISSIONS: {"permissions": {}, "scope": "turn"},
    COMMAND_APPROVAL: {"decision": "decline"},
    FILE_CHANGE_APPROVAL: {"decision": "decline"},
    ELICITATION: {"action": "decline"},
}
"""Codex's documented answer for declining each server request."""

_KINDS = {
    USER_INPUT: RequestKind.USER_INPUT,
    PERMISSIONS: RequestKind.PERMISSIONS,
    COMMAND_APPROVAL: RequestKind.APPROVAL,
    FILE_CHANGE_APPROVAL: RequestKind.APPROVAL,
    ELICITATION: RequestKind.ELICITATION,
}
_TOOLS = {
    USER_INPUT: "request_user_input",
    PERMISSIONS: "request_permissions",
    COMMAND_APPROVAL: "a command approval",
    FILE_CHANGE_APPROVAL: "a file-change approval",
    ELICITATION: "an MCP elicitation",
}


def user_input_event(params: dict[str, Any]) -> RequestUserInputEvent:
    return RequestUserInputEvent(
        call_id=params["itemId"],
        turn_id=params["turnId"],
        questions=[Question.model_validate(q) for q in params["questions"]],
        isBlocking=params.get("isBlocking", True) is not False,
        autoResolutionMs=params.get("autoResolutionMs"),
    )


def command_approval_event(params: dict[str, Any]) -> ExecApprovalRequestEvent:
    return ExecApprovalRequestEvent(
        call_id=params["itemId"],
        turn_id=params["turnId"],
        command=params.get("command") or "(command not given)",
        cwd=params.get("cwd"),
        reason=params.get("reason"),
        available_decisions=options_from_app_server(params.get("availableDecisions"), what="command"),
        network_approval_context=(
            NetworkApprovalContext.model_validate(params["networkApprovalContext"])
            if params.get("networkApprovalContext")
            else None
        ),
    )


def file_change_event(params: dict[str, Any], item: dict[str, Any] | None) -> ApplyPatchApprovalRequestEvent:
    """The diff is not in the request: it comes from the ``fileChange`` item Codex started."""
    changes = [
        FileChange(path=c.get("path", "?"), kind=(c.get("kind") or {}).get("type", "update"), diff=c.get("diff", ""))
        for c in (item or {}).get("changes") or []
    ]
    return ApplyPatchApprovalRequestEvent(
        call_id=params["itemId"],
        turn_id=params["turnId"],
        changes=changes,
        reason=params.get("reason"),
        grant_root=params.get("grantRoot"),
        available_decisions=default_options("changes"),
    )


def elicitation_event(params: dict[str, Any], *, call_id: str) -> ElicitationRequestEvent:
    return event_from_params(
        params, call_id=call_id, turn_id=params.get("turnId") or "", server_name=str(params.get("serverName") or "?")
    )


def permissions_event(params: dict[str, Any]) -> RequestPermissionsEvent:
    return RequestPermissionsEvent(
        call_id=params["itemId"],
        turn_id=params["turnId"],
        environment_id=params.get("environmentId") or "local",
        started_at_ms=params.get("startedAtMs") or 0,
        reason=params.get("reason"),
        permissions=profile_from_v2(params.get("permissions")),
        cwd=params.get("cwd", ""),
    )


class ServerRequests:
    """Answers the server requests of one thread; keyed by JSON-RPC id while open."""

    def __init__(self, thread: _Asker) -> None:
        self.thread = thread
        self.open: dict[Any, FrontendRequest] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self._elsewhere: set[str] = set()
        self.closed_by_server: list[Any] = []
        """JSON-RPC ids of requests a ``serverRequest/resolved`` closed before we answered."""
        self.answered: list[tuple[str, Any]] = []
        """(method, response) of every answer sent, in order (for tests and notebooks)."""

    def handle(self, rpc_id: Any, method: str, params: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self._answer(rpc_id, method, params))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _answer(self, rpc_id: Any, method: str, params: dict[str, Any]) -> None:
        try:
            await self._answer_or_raise(rpc_id, method, params)
        except CassetteError:
            # a replay whose recorded answer differs: it stopped there, and the turn fails saying why
            log.info("the replayed %s was answered otherwise than recorded", method)
        except Exception as err:  # a request we cannot even read still gets an answer, never silence
            log.exception("answering %s failed", method)
            self.thread.emit(
                WarningEvent(
                    message=f"codex_nb could not handle {method} ({type(err).__name__}: {err}); it was declined"
                ),
                turn_id=params.get("turnId"),
            )
            if method in _KINDS:
                self.thread.frontend_requests.record_unshown(
                    _KINDS[method],
                    turn_id=params.get("turnId") or "",
                    call_id=str(params.get("itemId") or f"rpc-{str(rpc_id)[:100]}")[:200],
                    request={"method": method},
                    answer=DECLINE[method],
                    reason=f"{type(err).__name__}: {err}"[:500],
                )
            if method in DECLINE:
                self.answered.append((method, DECLINE[method]))
                self.thread.server.connection_respond(rpc_id, DECLINE[method], method=method)
            else:
                self.thread.server.connection_respond_error(rpc_id, -32603, f"codex_nb failed on {method}: {err}")

    async def _answer_or_raise(self, rpc_id: Any, method: str, params: dict[str, Any]) -> None:
        if method in _KINDS:
            try:
                response = await self._ask(rpc_id, method, params)
            except UnsupportedSchema as err:  # shown whole or not at all
                server = str(params.get("serverName") or "?")[:200]
                self.thread.frontend_requests.record_unshown(
                    RequestKind.ELICITATION,
                    turn_id=params.get("turnId") or "",
                    call_id=f"elicitation-{str(rpc_id)[:100]}",
                    request={"method": method, "serverName": server, "mode": str(params.get("mode"))[:100]},
                    answer=DECLINE[method],
                    reason=str(err),
                )
                self.thread.emit(
                    WarningEvent(message=f"codex_nb declined the elicitation of MCP server `{server}`: {err}"),
                    turn_id=params.get("turnId"),
                )
                response = DECLINE[method]
        else:
            self.thread.server.connection_respond_error(
                rpc_id, METHOD_NOT_FOUND, f"codex_nb does not handle the server request {method}"
            )
            return
        if response is not None:
            self.answered.append((method, response))
            self.thread.server.connection_respond(rpc_id, response, method=method)

    async def _ask(self, rpc_id: Any, method: str, params: dict[str, Any]) -> dict[str, Any] | None:
        thread = self.thread
        kind, tool = _KINDS[method], _TOOLS[method]
        msg = self._event(rpc_id, method, params)
        turn_id = params.get("turnId") or ""
        broker = thread.frontend_requests
        request = broker.open(kind, turn_id=turn_id, call_id=msg.call_id, msg=msg)
        self.open[rpc_id] = request
        try:
            settlement = await ask_and_wait(
                broker, request, emit=lambda m: thread.emit(m, turn_id=turn_id or None), what=tool
            )
        finally:
            self.open.pop(rpc_id, None)
        if request.id in self._elsewhere:
            return None  # the server already moved on; answering again would be an error
        if settlement.outcome == Outcome.UNANSWERABLE:
            thread.emit(
                WarningEvent(message=f"{settlement.response}; codex_nb declined the request"), turn_id=turn_id or None
            )
        if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY, Outcome.AUTO_RESOLVED):
            if kind in (RequestKind.USER_INPUT, RequestKind.ELICITATION):
                return dict(settlement.response)
            if isinstance(msg, (ExecApprovalRequestEvent, ApplyPatchApprovalRequestEvent)):
                return {"decision": to_app_server(choose(msg.available_decisions, settlement.response))}
            assert isinstance(msg, RequestPermissionsEvent)  # the one kind left: a permissions request
            return granted_to_v2(settlement.response, msg.permissions)
        return DECLINE[method]

    def _event(self, rpc_id: Any, method: str, params: dict[str, Any]) -> RequestMsg:
        if method == ELICITATION:
            return elicitation_event(params, call_id=f"elicitation-{str(rpc_id)[:100]}")
        if method == USER_INPUT:
            return user_input_event(params)
        if method == PERMISSIONS:
            return permissions_event(params)
        if method == COMMAND_APPROVAL:
            return command_approval_event(params)
        return file_change_event(params, self.thread.items.get(params["itemId"]))

    def resolved(self, rpc_id: Any) -> None:
        """``serverRequest/resolved``: close a prompt the server no longer waits for."""
        request = self.open.get(rpc_id)
        if request is not None and request.settled is None:
            self.closed_by_server.append(rpc_id)
            self._elsewhere.add(request.id)
            self.thread.frontend_requests.cancel(request.id, by="server")

    def cancel_all(self) -> None:
        """The server is gone: close every prompt (there is nobody left to answer)."""
        for request in list(self.open.values()):
            self._elsewhere.add(request.id)
            self.thread.frontend_requests.cancel(request.id)
