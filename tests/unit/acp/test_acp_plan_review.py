"""An ACP agent's plan review (codex-acp's ``switch_mode`` permission with ``rawInput.plan``) is the
proposed-plan card ``PlanAnswers`` drives, against a real subprocess
(``tests/acp_agents/plan_review_agent.py``): Approve selects the option that implements, Revise
keeps planning and sends the note as the next prompt, Reject keeps planning and sends nothing, Stop
answers ``cancelled``; the Markdown plans it streams (by id, one removed) become one proposal."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.timeline.answer_records import PlanAnswerError
from codex_nb.timeline.answers import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget
from codex_nb.widgets.testing import recording_comms
from helpers.paths import ACP_AGENTS

# real processes: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow

PLAN_AGENT = ACP_AGENTS / "plan_review_agent.py"
TIMEOUT = 30
PLAN = "# Plan\n\n1. Read notes.txt\n2. Add a line\n"


def agent() -> cx.AcpAgent:
    return cx.AcpAgent(sys.executable, [str(PLAN_AGENT)], cancel_grace=5.0)


async def proposed(answers: PlanAnswers) -> None:
    """Wait (event-driven) until the agent's proposal waits for a decision."""
    ready = asyncio.Event()
    remove = answers.on_change(lambda: answers.proposal is not None and ready.set())
    try:
        if answers.proposal is None:
            await asyncio.wait_for(ready.wait(), TIMEOUT)
    finally:
        remove()


def told(result: Any) -> dict[str, Any]:
    text = result.last_agent_message
    assert text is not None and text.startswith("answer: "), text
    answer: dict[str, Any] = json.loads(text.removeprefix("answer: ").split("\n")[0])
    return answer


async def test_the_plan_capability_is_offered_and_approve_implements_the_proposal() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        assert acp.info.field_meta["offered"]["plan"] == {}
        answers = PlanAnswers(session)
        handle = session.prompt("Plan: " + PLAN)
        await proposed(answers)
        assert session.plan_review is not None and session.plan_review.options == (
            "Yes, implement this plan",
            "No, and tell Codex what to do differently",
        )
        assert (answers.proposal.text, answers.proposal.item_id) == (PLAN, "item-1")  # type: ignore[union-attr]
        decision = answers.approve()
        result = await asyncio.wait_for(handle, TIMEOUT)
    assert (decision.decision, decision.delivery, decision.turn_id) == ("approved", "answered", handle.turn_id)
    assert told(result) == {"outcome": {"optionId": "implement_plan", "outcome": "selected"}}
    assert result.last_agent_message.endswith("implementing")  # type: ignore[union-attr]
    assert answers.proposal is None and session.plan_review is None and not answers.turns
    # the two updates of item-1 are one proposal; the removed draft is none
    assert [(p.item_id, p.text) for p in answers.timeline.proposals] == [("item-1", PLAN)]
    assert list(session.markdown_plans.plans) == ["item-1"]
    with pytest.raises(PlanAnswerError, match="no proposed plan waiting"):
        answers.approve()


async def test_revise_keeps_planning_and_sends_the_note_as_the_next_prompt() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        answers = PlanAnswers(session)
        handle = session.prompt("Plan: " + PLAN)
        await proposed(answers)
        sent = asyncio.Event()
        answers.on_change(lambda: answers.turns and sent.set())
        decision = answers.revise("Add a test first")
        first = await asyncio.wait_for(handle, TIMEOUT)
        await asyncio.wait_for(sent.wait(), TIMEOUT)
        second = await asyncio.wait_for(answers.turns[0], TIMEOUT)
    assert told(first) == {"outcome": {"optionId": "revise_plan", "outcome": "selected"}}
    assert second.last_agent_message == "heard: Add a test first"
    [record] = answers.decisions
    assert (record.decision, record.comment, record.delivery, record.turn_id) == (
        "revised",
        "Add a test first",
        "queued",
        second.turn_id,
    )
    assert decision.id == record.id


async def test_reject_keeps_planning_and_sends_nothing_more() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        answers = PlanAnswers(session)
        handle = session.prompt("Plan: " + PLAN)
        await proposed(answers)
        decision = answers.reject()
        result = await asyncio.wait_for(handle, TIMEOUT)
    assert told(result) == {"outcome": {"optionId": "revise_plan", "outcome": "selected"}}
    assert (decision.decision, decision.delivery) == ("rejected", "answered")
    assert not answers.turns and answers.proposal is None


async def test_the_widget_shows_the_card_and_its_approve_answers_the_agent() -> None:
    with recording_comms():
        async with agent() as acp:
            session = await acp.new_session()
            widget = PlanAnswersWidget.of(session)
            handle = session.prompt("Plan: " + PLAN)
            await proposed(widget.answers)
            assert widget.proposal == {"index": 0, "text": PLAN}
            assert "Proposed plan, waiting for your decision: [Approve] [Revise] [Reject]" in widget.text()
            reply = widget.handle_message({"id": "v1", "kind": "approve"})
            result = await asyncio.wait_for(handle, TIMEOUT)
    assert reply["outcome"] == "sent"
    assert told(result)["outcome"]["optionId"] == "implement_plan"
    assert widget.proposal == {} and "Proposed plan approved" in widget.text()


async def test_stop_answers_the_review_cancelled_and_closes_the_proposal() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        answers = PlanAnswers(session)
        handle = session.prompt("Plan: " + PLAN)
        await proposed(answers)
        assert session.interrupt()
        result = await asyncio.wait_for(handle, TIMEOUT)
    assert result.status == "interrupted"
    assert told(result) == {"outcome": {"outcome": "cancelled"}}
    assert answers.proposal is None and session.plan_review is None and not answers.decisions
    with pytest.raises(PlanAnswerError, match="no proposed plan waiting"):
        answers.approve()


async def test_with_nobody_following_the_answer_policy_decides_as_for_any_permission() -> None:
    async with agent() as acp:
        session = await acp.new_session()
        session.answer_policy = cx.AnswerPolicy.scripted([{"permission": "Yes, implement this plan"}])
        result = await asyncio.wait_for(session.prompt("Plan: " + PLAN), TIMEOUT)
        with pytest.raises(cx.acp.AcpError, match="no plan review waiting"):
            session.answer_plan_review("approve")
    assert told(result)["outcome"]["optionId"] == "implement_plan"


async def test_a_loaded_sessions_markdown_plan_is_its_history_not_the_next_turns_proposal() -> None:
    replayed: list[Any] = []
    async with agent() as acp:
        session = await acp.load_session("plan-9", on_replay=replayed.append)
        answers = PlanAnswers(session)
        result = await asyncio.wait_for(session.prompt("hello"), TIMEOUT)
    plans = [e.msg.item for e in replayed if e.msg.type == "item_completed"]
    assert plans == [{"type": "plan", "id": "old-item", "text": "# An old plan"}]
    assert result.last_agent_message == "heard: hello"
    assert [p.turn_id for p in answers.timeline.proposals if p.turn_id == result.turn_id] == []
    assert answers.proposal is None


async def test_a_plan_file_in_the_session_folder_is_the_proposal_and_approve_allows(tmp_path: Any) -> None:
    """Gemini CLI's shape: the request names the plan's file; read safely, it is the proposed plan."""
    (tmp_path / "plan.md").write_text(PLAN, encoding="utf-8")
    async with agent() as acp:
        session = await acp.new_session(tmp_path)
        answers = PlanAnswers(session)
        handle = session.prompt(f"File plan: {tmp_path / 'plan.md'}")
        await proposed(answers)
        assert session.plan_review is not None and session.plan_review.options == ("Allow", "Reject")
        assert answers.proposal is not None and answers.proposal.text == PLAN
        answers.approve()
        result = await asyncio.wait_for(handle, TIMEOUT)
    assert told(result) == {"outcome": {"optionId": "proceed_once", "outcome": "selected"}}
    assert [p.text for p in answers.timeline.proposals] == [PLAN]


async def test_a_plan_file_in_the_agents_plans_folder_of_the_session_is_read_and_reject_keeps_planning(
    tmp_path: Any,
) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    async with cx.AcpAgent(sys.executable, [str(PLAN_AGENT)], env={"HOME": str(home)}, cancel_grace=5.0) as acp:
        session = await acp.new_session(work)
        plans = home / ".gemini" / "tmp" / "work" / session.session_id / "plans"
        plans.mkdir(parents=True)
        (plans / "greeting.md").write_text(PLAN, encoding="utf-8")
        answers = PlanAnswers(session)
        handle = session.prompt(f"File plan: {plans / 'greeting.md'}")
        await proposed(answers)
        assert answers.proposal is not None and answers.proposal.text == PLAN
        answers.reject()
        result = await asyncio.wait_for(handle, TIMEOUT)
    assert told(result) == {"outcome": {"optionId": "cancel", "outcome": "selected"}}


@pytest.mark.parametrize("target", ["passwd", "symlink", "fifo"])
async def test_a_hostile_plan_file_stays_a_permission_question_and_is_never_read(tmp_path: Any, target: str) -> None:
    """A path out of the session's folders (also through a symlink) or a FIFO is not read: a warning
    says why, and the request is the permission question it is (the answer policy answers it)."""
    import os

    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET-TEXT", encoding="utf-8")
    (work / "link.md").symlink_to(outside / "secret.md")
    os.mkfifo(work / "fifo.md")
    path = {"passwd": "/etc/passwd", "symlink": str(work / "link.md"), "fifo": str(work / "fifo.md")}[target]
    seen: list[Any] = []
    async with agent() as acp:
        session = await acp.new_session(work)
        answers = PlanAnswers(session)
        session.subscribe(seen.append)
        session.answer_policy = cx.AnswerPolicy.scripted([{"permission": "Reject"}])
        result = await asyncio.wait_for(session.prompt(f"File plan: {path}"), TIMEOUT)
    assert told(result) == {"outcome": {"optionId": "cancel", "outcome": "selected"}}
    assert answers.proposal is None and not answers.timeline.proposals and session.plan_review is None
    warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
    assert any("did not read" in w and "asked as a permission question" in w for w in warnings), warnings
    assert "SECRET-TEXT" not in json.dumps([e.msg.model_dump(mode="json") for e in seen])


async def test_a_session_closed_while_its_plan_file_is_read_asks_nothing(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan file is read off the event loop; a session closed meanwhile answers the agent
    ``cancelled`` and opens no question nobody could answer (the handler would wait for ever)."""
    from codex_nb.acp import acp_session

    reading, release = asyncio.Event(), asyncio.Event()

    async def slow_read(path: str, folders: Any) -> str:
        reading.set()
        await release.wait()
        return PLAN

    monkeypatch.setattr(acp_session, "read_plan_file", slow_read)
    (tmp_path / "plan.md").write_text(PLAN, encoding="utf-8")
    async with cx.AcpAgent(sys.executable, [str(PLAN_AGENT)], cancel_grace=0.5) as acp:
        session = await acp.new_session(tmp_path)
        answered: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        asked = session.request_permission

        async def request_permission(options: list[Any], tool_call: Any) -> Any:
            response = await asked(options, tool_call)
            answered.set_result(response)
            return response

        monkeypatch.setattr(session, "request_permission", request_permission)
        handle = session.prompt(f"File plan: {tmp_path / 'plan.md'}")
        await asyncio.wait_for(reading.wait(), TIMEOUT)
        await session.aclose()
        release.set()
        response = await asyncio.wait_for(answered, TIMEOUT)
        await asyncio.wait_for(handle, TIMEOUT)
    assert response.outcome.outcome == "cancelled"
    assert session.frontend_requests.pending == [] and session.plan_review is None
