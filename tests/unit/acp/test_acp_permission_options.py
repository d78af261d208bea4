"""An ACP agent's ``session/request_permission`` shows every ``PermissionOption`` it offers
(allow_once, allow_always, reject_once, reject_always) with the agent's own label, and the
person's choice in the prompts widget goes back as that option's id; the approvals record
says who chose what."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from acp.schema import PermissionOption

import codex_nb as cx
from codex_nb.frontend.requests import FrontendRequests, RequestKind
from codex_nb.acp.permissions import QUESTION_ID, choice_from, question_event

OPTIONS = [
    PermissionOption(option_id="yes", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow `git`", kind="allow_always"),
    PermissionOption(option_id="no", name="Reject", kind="reject_once"),
    PermissionOption(option_id="never", name="Never allow `git`", kind="reject_always"),
]
TOOL_CALL = SimpleNamespace(title="git push", content=[])


class _Source:  # what PromptsWidget needs: a broker, a subscription and capabilities saying it asks
    capabilities = cx.Capabilities(answers=True)

    def __init__(self) -> None:
        self.frontend_requests = FrontendRequests()

    def subscribe(self, fn):  # noqa: ANN001, ANN201
        return lambda: None


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: str(o.kind))
async def test_each_option_is_shown_with_its_label_and_chosen_in_the_widget(option: PermissionOption) -> None:
    source = _Source()
    prompts = cx.PromptsWidget(source)
    prompts.receive({"kind": "ready", "id": "view"})
    msg, labels = question_event(call_id="x1", turn_id="t", tool_call=TOOL_CALL, options=OPTIONS)
    (question,) = msg.questions
    assert [(o.label, o.description) for o in question.options or []] == [
        ("Allow once", "allow_once"),
        ("Always allow `git`", "allow_always"),
        ("Reject", "reject_once"),
        ("Never allow `git`", "reject_always"),
    ]
    broker = source.frontend_requests
    request = broker.open(RequestKind.USER_INPUT, turn_id="t#permission-1", call_id="x1", msg=msg)
    answer = {QUESTION_ID: {"answers": [option.name]}}
    assert prompts.receive({"kind": "answer_user_input", "id": request.id, "answers": answer}), prompts.error
    settlement = await asyncio.wait_for(broker.wait(request), 5)
    assert choice_from(settlement, labels, OPTIONS).option_id == option.option_id
    (record,) = broker.approvals
    assert (record.answered_by, record.call_id) == ("widget", "x1")
    assert f"{QUESTION_ID}={option.name}" in record.line()
    prompts.close()
