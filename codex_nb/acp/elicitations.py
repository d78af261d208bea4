"""An ACP session's ``elicitation/create`` requests: the agent's questions to the person.

An agent asks in two ways. A form (``mode: "form"``, ``cx.AcpAgent(..., form_elicitation=True)``)
becomes the question card of Codex's own ``request_user_input`` (``form_questions``): codex-acp
asks its model's ``request_user_input`` questions this way, claude-agent-acp its AskUserQuestion
tool. A URL elicitation (``mode: "url"``, ``elicitation=True``) asks the person to finish
something in a browser: a Done / Decline question until they answer or the agent's
``elicitation/complete`` closes it.

``Elicitations`` belongs to one ``AcpSession`` (``session.elicitations``) and shares its prompts
broker and open requests, so Stop, the turn's end and closing the session settle its questions as
they settle permission requests.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol


from ..frontend.answer_policy import ask_and_wait
from ..frontend.elicitation import ContentError
from ..frontend.requests import FrontendRequests, Outcome, RequestKind
from ..protocol.events import Event, EventMsg, ItemCompleted, ItemStarted, WarningEvent
from ..protocol.frontend import FrontendRequestResolved, Question, QuestionOption, RequestUserInputEvent
from . import quirks
from .form_questions import FormQuestions, UnsupportedSchema, form_questions, schema_json

URL_QUESTION = "elicitation"
"""The question id of a URL elicitation's Done / Decline question."""
MAX_CALL_ID = 200
"""Characters of the agent's ``toolCallId`` kept as the question's call id."""
_PREVIEW = 200


class QuestionHost(Protocol):
    """What ``Elicitations`` needs of its session."""

    session_id: str
    closed: bool
    frontend_requests: FrontendRequests

    @property
    def tool_calls(self) -> Mapping[str, Any]: ...

    @property
    def active_turn(self) -> Any: ...

    def emit(self, msg: EventMsg) -> Event: ...


class Elicitations:
    """The open elicitations of one session, and how each is asked and answered."""

    def __init__(
        self,
        host: QuestionHost,
        *,
        turn_id: Callable[[], str | None],
        open_requests: dict[str, str],
        request_keys: Iterator[int],
    ) -> None:
        self.host = host
        self._turn_id = turn_id
        self._open_requests = open_requests
        """The session's open requests (request id -> turn id): the turn's end and Stop cancel them."""
        self._request_keys = request_keys
        self._urls: dict[str, str] = {}
        """Open URL elicitations: the agent's elicitation id -> the prompts broker's request id."""

    async def ask_url(self, message: str, *, elicitation_id: str, url: str) -> Any:
        """Show the agent's URL elicitation as a question (Done / Decline) until the person answers
        or the agent's ``elicitation/complete`` closes it (then the answer is ``accept``)."""
        from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse

        host = self.host
        turn_id = self._turn_id() or "no-turn"
        question = Question(
            id=URL_QUESTION,
            header="Elicitation",
            question=f"{message}\nOpen {url} and finish there.",
            options=[
                QuestionOption(label="Done", description="accept"),
                QuestionOption(label="Decline", description="decline"),
            ],
        )
        msg = RequestUserInputEvent(call_id=elicitation_id, turn_id=turn_id, questions=[question])
        broker = host.frontend_requests
        key = f"{turn_id}#elicitation-{next(self._request_keys)}"
        request = broker.open(RequestKind.USER_INPUT, turn_id=key, call_id=elicitation_id, msg=msg)
        self._open_requests[request.id] = turn_id
        self._urls[elicitation_id] = request.id
        try:
            host.emit(msg)
            settlement = await broker.wait(request)
        finally:
            broker.cancel(request.id)
            self._open_requests.pop(request.id, None)
            self._urls.pop(elicitation_id, None)
            outcome = request.settled.outcome if request.settled is not None else Outcome.CANCELLED
            host.emit(
                FrontendRequestResolved(
                    request_id=request.id,
                    kind=RequestKind.USER_INPUT.value,
                    call_id=elicitation_id,
                    outcome=outcome.value,
                )
            )
        if settlement.outcome == Outcome.CANCELLED and settlement.by == "server":
            return AcceptElicitationResponse(action="accept")
        answers = (settlement.response or {}).get("answers", {}).get(URL_QUESTION, {}).get("answers", [])
        if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY) and "Done" in answers:
            return AcceptElicitationResponse(action="accept")
        if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY):
            return DeclineElicitationResponse(action="decline")
        return CancelElicitationResponse(action="cancel")

    def complete(self, elicitation_id: str) -> bool:
        """The agent's ``elicitation/complete``: close the matching open request (the widget drops it)."""
        request_id = self._urls.get(elicitation_id)
        return request_id is not None and self.host.frontend_requests.cancel(request_id, by="server")

    async def ask_form(self, message: str, schema: Any, *, tool_call_id: str | None, meta: Mapping[str, Any]) -> Any:
        """Ask the person the agent's form elicitation as a question card (``form_questions``) and
        answer the agent: ``accept`` with the form's content, ``decline`` when the person declined or
        the form cannot be shown (said in a warning), ``cancel`` on Stop, the agent's deadline or a
        closed session."""
        from acp.schema import CancelElicitationResponse, DeclineElicitationResponse

        host = self.host
        turn_id = self._turn_id() or "no-turn"
        call_id = (tool_call_id or f"question-{next(self._request_keys)}")[:MAX_CALL_ID]
        handle = host.active_turn
        if host.closed or (handle is not None and handle.cancel.cancelled):
            return CancelElicitationResponse(action="cancel")
        broker = host.frontend_requests
        codex, auto_ms = quirks.codex_user_input(message, dict(meta))
        try:
            form = form_questions(
                message,
                schema_json(schema),
                call_id=call_id,
                turn_id=turn_id,
                auto_resolution_ms=auto_ms,
                codex_fields=codex,
            )
        except UnsupportedSchema as err:
            reason = str(err)[: _PREVIEW * 2]
            host.emit(
                WarningEvent(
                    message=f"codex_nb declined the ACP agent's question (its form cannot be shown as a "
                    f"question card): {reason}"
                )
            )
            broker.record_unshown(
                RequestKind.USER_INPUT,
                turn_id=turn_id,
                call_id=call_id,
                request={"message": message[:_PREVIEW]},
                answer={"action": "decline"},
                reason=reason,
            )
            return DeclineElicitationResponse(action="decline")
        key = f"{turn_id}#question-{next(self._request_keys)}"
        request = broker.open(RequestKind.USER_INPUT, turn_id=key, call_id=call_id, msg=form.event)
        request.check = form.check
        self._open_requests[request.id] = turn_id
        # codex-acp sends no tool call for its model's request_user_input: the transcript gets the
        # question as Codex's own tool item (an agent's own tool call, Claude's, is shown already)
        item = None if call_id in host.tool_calls else _question_item(call_id, form.event)
        if item is not None:
            host.emit(ItemStarted(thread_id=host.session_id, turn_id=turn_id, item=item, started_at_ms=_now_ms()))
        response: Any = CancelElicitationResponse(action="cancel")
        try:
            settlement = await ask_and_wait(broker, request, emit=host.emit, what="the ACP agent's question")
            response = self._form_response(form, settlement)
        finally:
            self._open_requests.pop(request.id, None)
            if item is not None:
                said = json.dumps(
                    response.model_dump(mode="json", exclude_none=True), ensure_ascii=False, sort_keys=True
                )
                done = {
                    **item,
                    "status": "completed",
                    "success": response.action == "accept",
                    "contentItems": [{"type": "inputText", "text": said}],
                }
                host.emit(
                    ItemCompleted(thread_id=host.session_id, turn_id=turn_id, item=done, completed_at_ms=_now_ms())
                )
        return response

    def _form_response(self, form: FormQuestions, settlement: Any) -> Any:
        """What the agent is told of a settled question: accept with the content, decline or cancel."""
        from acp.schema import AcceptElicitationResponse, CancelElicitationResponse, DeclineElicitationResponse

        if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY):
            if form.declined(settlement.response):
                return DeclineElicitationResponse(action="decline")
            try:
                return AcceptElicitationResponse(action="accept", content=form.content(settlement.response))
            except ContentError as err:  # checked when answered: only a changed answer gets here
                self.host.emit(WarningEvent(message=f"codex_nb declined the ACP agent's question: {err}"))
                return DeclineElicitationResponse(action="decline")
        if settlement.outcome == Outcome.UNANSWERABLE:
            self.host.emit(WarningEvent(message=f"{settlement.response}; codex_nb declined the ACP agent's question"))
            return DeclineElicitationResponse(action="decline")
        return CancelElicitationResponse(action="cancel")


def _question_item(call_id: str, event: RequestUserInputEvent) -> dict[str, Any]:
    """The question as the ``dynamicToolCall`` item Codex's ``request_user_input`` is shown as."""
    return {
        "type": "dynamicToolCall",
        "id": call_id,
        "namespace": None,
        "tool": "request_user_input",
        "arguments": {"questions": [q.model_dump(mode="json") for q in event.questions]},
        "status": "inProgress",
        "contentItems": None,
        "success": None,
        "durationMs": None,
    }


def _now_ms() -> int:
    return int(time.time() * 1000)
