"""An ACP agent's form elicitation reaches the person as a question card and their answer reaches
the agent as ``accept`` / ``decline`` / ``cancel``, against a real subprocess
(``tests/acp_agents/form_agent.py``): answered, declined, refused, stopped, timed out."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp import quirks
from codex_nb.errors import AnswerError
from codex_nb.widgets.transcript_state import TranscriptState
from helpers.paths import ACP_AGENTS

# real processes: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow

FORM_AGENT = ACP_AGENTS / "form_agent.py"
TIMEOUT = 30
SCHEMA = {
    "type": "object",
    "properties": {
        "color": {"type": "string", "title": "Color", "oneOf": [{"const": "r", "title": "Red"}]},
        "ok": {"type": "boolean", "title": "Agree"},
    },
    "required": ["color"],
}


def agent(**kw: Any) -> cx.AcpAgent:
    return cx.AcpAgent(sys.executable, [str(FORM_AGENT)], cancel_grace=5.0, **kw)


def asking(schema: Any = SCHEMA, message: str = "Pick one", **extra: Any) -> str:
    return json.dumps({"message": message, "mode": "form", "requestedSchema": schema, **extra})


def told(result: Any) -> dict[str, Any]:
    """What the agent received (its message says it)."""
    text = result.last_agent_message
    assert text is not None and text.startswith("answer: "), text
    answer: dict[str, Any] = json.loads(text.removeprefix("answer: "))
    return answer


async def test_form_elicitation_is_offered_and_the_persons_answer_reaches_the_agent() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        assert acp.info.field_meta["offered"]["elicitation"] == {"form": {}}  # url stays opt-in
        seen: list[Any] = []
        session.subscribe(lambda e: seen.append(e.msg))
        session.answer_policy = cx.AnswerPolicy.scripted([{"color": "Red", "ok": "Yes"}])
        result = await asyncio.wait_for(session.prompt(asking()), TIMEOUT)
    assert told(result) == {"action": "accept", "content": {"color": "r", "ok": True}}
    card = next(m for m in seen if m.type == "request_user_input")
    assert [(q.id, q.header, [o.label for o in q.options or []]) for q in card.questions] == [
        ("color", "Color", ["Red"]),
        ("ok", "Agree", ["Yes", "No"]),
    ]
    assert [m.outcome for m in seen if m.type == "frontend_request_resolved"] == ["policy"]
    transcript = TranscriptState()  # the question is a tool item, as Codex's request_user_input is
    for event in result.events:
        transcript.apply(event)
    assert transcript.text().splitlines()[-2:] == [
        'tool request_user_input [completed]: {"action": "accept", "content": {"color": "r", "ok": true}}',
        'assistant: answer: {"action": "accept", "content": {"color": "r", "ok": true}}',
    ]
    record = session.frontend_requests.approvals[-1]
    assert (record.kind, record.outcome, record.answer) == (
        "user_input",
        "policy",
        {"answers": {"color": {"answers": ["Red"]}, "ok": {"answers": ["Yes"]}}},
    )


async def test_the_deny_policy_declines_and_a_wrong_answer_is_refused_at_once() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        session.answer_policy = "deny"
        result = await asyncio.wait_for(session.prompt(asking()), TIMEOUT)
        assert told(result) == {"action": "decline"}

        session.answer_policy = None
        asked = asyncio.Event()
        session.subscribe(lambda e: asked.set() if e.msg.type == "request_user_input" else None)
        session.frontend_requests.attach(_ReadyFrontend())  # a person at a widget: nothing answers for them
        handle = session.prompt(asking())
        await asyncio.wait_for(asked.wait(), TIMEOUT)
        (request,) = session.frontend_requests.pending
        with pytest.raises(AnswerError) as wrong:
            session.frontend_requests.answer(request.id, {"color": "Green"})
        assert "field 'color' must be one of ['Red']" in str(wrong.value)
        assert session.frontend_requests.pending == [request]  # still asked: the person can answer again
        session.frontend_requests.answer(request.id, {"color": "Red"}, by="widget")
        result = await asyncio.wait_for(handle, TIMEOUT)
    assert told(result) == {"action": "accept", "content": {"color": "r"}}


class _ReadyFrontend:
    """A prompts widget whose view rendered: a person answers, no policy does."""

    alive = True
    ready = True


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"deep": schema}}
    return schema


HOSTILE = {
    "nested": (
        _nested(2),
        "field 'deep' has type 'object'; an elicitation form takes only string, number, integer, boolean and enum fields",
    ),
    "deep": (
        _nested(200),
        "requestedSchema cannot be read (Maximum serialization depth exceeded); a form's fields are flat: string, "
        "number, integer, boolean and enum",
    ),
    "huge": (
        {"type": "object", "properties": {f"f{i}": {"type": "string", "title": "T" * 1000} for i in range(5000)}},
        "requestedSchema has 5000 fields; at most 50 are shown",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
async def test_a_form_that_cannot_be_shown_is_declined_with_a_warning(case: str) -> None:
    schema, why = HOSTILE[case]
    async with agent() as acp:
        session = await acp.new_session()
        session.answer_policy = cx.AnswerPolicy.scripted([])
        result = await asyncio.wait_for(session.prompt(asking(schema)), TIMEOUT)
    assert told(result) == {"action": "decline"}
    warnings = [e.msg.message for e in result.events if e.msg.type == "warning"]
    assert warnings == [
        f"codex_nb declined the ACP agent's question (its form cannot be shown as a question card): {why}"
    ]
    assert not [e for e in result.events if e.msg.type == "request_user_input"]
    assert session.frontend_requests.approvals[-1].answered_by == "codex_nb"


async def test_stop_answers_the_pending_question_cancel() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        asked = asyncio.Event()
        session.subscribe(lambda e: asked.set() if e.msg.type == "request_user_input" else None)
        session.frontend_requests.attach(_ReadyFrontend())
        handle = session.prompt(asking())
        await asyncio.wait_for(asked.wait(), TIMEOUT)
        assert session.interrupt() is True
        result = await asyncio.wait_for(handle, TIMEOUT)
        assert session.frontend_requests.pending == []
    assert (result.status, result.stop_reason) == ("interrupted", "cancelled")
    assert told(result) == {"action": "cancel"}


async def test_codex_acps_deadline_answers_cancel() -> None:
    meta = {"_meta": {"codex": {"autoResolutionMs": 50}}}
    async with agent() as acp:
        session = await acp.new_session()
        session.frontend_requests.attach(_ReadyFrontend())
        result = await asyncio.wait_for(
            session.prompt(asking(message=quirks.CODEX_USER_INPUT_MESSAGE, **meta)), TIMEOUT
        )
    assert told(result) == {"action": "cancel"}
    assert session.frontend_requests.approvals[-1].answered_by == "timeout"


async def test_without_form_elicitation_the_agent_is_not_offered_it_and_is_refused() -> None:
    async with agent(form_elicitation=False) as acp:
        session = await acp.new_session()
        assert acp.info.field_meta["offered"].get("elicitation") is None
        result = await asyncio.wait_for(session.prompt(asking()), TIMEOUT)
    assert told(result)["code"] == -32601
