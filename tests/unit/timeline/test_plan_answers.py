"""PlanAnswers on codex_nb's runtime: comments and suggestions steered into the running turn at the
next model request, answers that start the next turn, a proposed plan approved, and bad input."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.timeline.answer_records import PlanAnswerError, answer_from_data
from codex_nb.timeline.answers import IMPLEMENT_MESSAGE, PlanAnswers
from codex_nb.timeline.suggestions import suggestion_diff, verdict


def plan(*steps: tuple[str, str]) -> dict[str, Any]:
    return {"plan": [{"step": s, "status": st} for s, st in steps]}


def update(*steps: tuple[str, str]) -> list[dict[str, Any]]:
    return [cx.function_call("update_plan", plan(*steps))]


def user_texts(request: Any) -> list[str]:
    texts = []
    for item in request.items:
        if item.get("type") == "message" and item.get("role") == "user":
            texts.append("".join(c.get("text", "") for c in item["content"]))
    return texts


async def test_a_comment_during_a_turn_reaches_the_next_model_request_with_its_step() -> None:
    model = cx.ScriptedModel(
        [
            update(("Read the data", "in_progress"), ("Plot it", "pending")),
            update(("Read the data", "completed"), ("Plot it as bars", "in_progress")),
            [cx.assistant_message("done")],
        ],
        record_requests=True,
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    said: list[Any] = []

    def on_plan(event: Any) -> None:
        if event.msg.type == "plan_update" and not said:  # the person comments while the step runs
            said.append(answers.comment(1, "Use a histogram, <b>not</b> bars"))

    session.subscribe(on_plan)
    result = await session.run_turn("plot the data", model=model)
    assert result.status == "completed"
    [comment] = answers.comments
    assert comment.delivery == "steered" and comment.turn_id == result.turn_id
    # the second request (the one right after the call) carries it, naming the step
    assert user_texts(model.requests[0]) == ["plot the data"]
    second = user_texts(model.requests[1])
    assert second[-1] == 'Comment on step 2 of your plan ("Plot it"):\nUse a histogram, <b>not</b> bars'
    # the agent renamed the step in its next snapshot: the comment says so
    assert answers.comments[0].state == "step_renamed"
    assert answers.comments[0].renamed_to == "Plot it as bars"
    assert sum(t.startswith("Comment on step") for t in user_texts(model.requests[2])) == 1  # sent once


async def test_a_suggestion_is_one_steering_message_and_is_marked_by_the_next_snapshot() -> None:
    model = cx.ScriptedModel(
        [
            update(("Read", "in_progress"), ("Plot", "pending"), ("Publish", "pending")),
            update(("Read", "completed"), ("Clean", "pending"), ("Plot", "pending")),
            [cx.assistant_message("done")],
        ],
        record_requests=True,
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    session.subscribe(
        lambda e: (
            answers.suggest(["Read", "Clean", "Plot"]) if e.msg.type == "plan_update" and not answers.answers else None
        )
    )
    await session.run_turn("go", model=model)
    [suggestion] = answers.suggestions
    message = user_texts(model.requests[1])[-1]
    assert "+ add step 2: Clean" in message and "- remove step: Publish" in message
    assert message.count("I suggest this change") == 1
    assert suggestion.state == "adopted" and suggestion.missed == ()


def test_verdicts_compare_snapshots() -> None:
    before, after = ["A", "B", "C"], ["C", "A", "B", "D"]
    assert "> move step to 1: C" in suggestion_diff(before, after)
    assert "+ add step 4: D" in suggestion_diff(before, after)
    assert verdict(before, after, ["C", "A", "B", "D"])[0] == "adopted"
    state, held, missed = verdict(before, after, ["A", "B", "C", "D"])
    assert state == "partly_adopted" and any("move" in m for m in missed) and held
    assert verdict(before, after, ["A", "B", "C"])[0] == "ignored"


async def test_with_no_turn_running_a_comment_starts_the_next_turn() -> None:
    model = cx.ScriptedModel(
        [update(("Fix it", "in_progress")), [cx.assistant_message("ok")], [cx.assistant_message("noted")]],
        record_requests=True,
        allow_leftover=True,
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    await session.run_turn("fix", model=model)
    comment = answers.comment("Fix it", "Add a test first")
    assert comment.delivery == "new_turn" and session.active_turn is not None
    await session.active_turn
    assert user_texts(model.requests[-1])[-1].endswith("Add a test first")
    assert answers.comments[0].state == "answered"


async def test_a_comment_as_the_turn_ends_is_sent_once_in_the_next_turn() -> None:
    model = cx.ScriptedModel(
        [update(("Step", "in_progress")), [cx.assistant_message("done")], [cx.assistant_message("next")]],
        record_requests=True,
        allow_leftover=True,
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    # the turn's loop has ended (turn_complete is emitted after it): the steer lands too late
    session.subscribe(
        lambda e: answers.comment(0, "late one") if e.msg.type == "turn_complete" and not answers.answers else None
    )
    first = await session.run_turn("go", model=model)
    assert first.status == "completed"
    await asyncio.sleep(0)  # the done callback of the first turn starts the next
    second = session.active_turn
    assert second is not None
    await second
    late = [t for r in model.requests for t in user_texts(r) if "late one" in t]
    assert len(late) == 1 and answers.comments[0].delivery == "new_turn"


async def test_a_proposed_plan_in_plan_mode_is_approved_the_way_codex_does() -> None:
    text = "<proposed_plan>\n# Tidy\n\n1. Read\n2. Fix\n</proposed_plan>\n"
    model = cx.ScriptedModel(
        [
            [cx.assistant_message(text)],
            update(("Read", "in_progress"), ("Fix", "pending")),
            [cx.assistant_message("done")],
        ],
        record_requests=True,
        allow_leftover=True,
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    result = await session.run_turn("plan it", model=model, mode="plan")
    assert result.last_agent_message is None
    proposal = answers.proposal
    assert proposal is not None and proposal.text == "# Tidy\n\n1. Read\n2. Fix\n"
    decision = answers.approve()
    assert decision.message == IMPLEMENT_MESSAGE and decision.mode == "default" and decision.delivery == "new_turn"
    await session.active_turn
    assert model.requests[1].mode == "default" and user_texts(model.requests[1])[-1] == IMPLEMENT_MESSAGE
    assert answers.proposal is None
    with pytest.raises(PlanAnswerError, match="no proposed plan waiting"):
        answers.approve()
    data = json.loads(answers.to_json())["answers"]
    assert data[0]["kind"] == "proposal_answer" and answer_from_data(data[0]) == answers.decisions[0]


async def test_bad_input_is_refused_with_what_to_do_and_nothing_is_sent() -> None:
    model = cx.ScriptedModel([update(("Only", "in_progress")), [cx.assistant_message("ok")]], record_requests=True)
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    with pytest.raises(PlanAnswerError, match="no plan yet"):
        answers.comment(0, "hi")
    await session.run_turn("go", model=model)
    with pytest.raises(PlanAnswerError, match="has no step 3"):
        answers.comment(3, "hi")
    with pytest.raises(PlanAnswerError, match="has no step 'Gone'"):
        answers.comment("Gone", "hi")
    with pytest.raises(PlanAnswerError, match="more than the 20,000"):
        answers.comment(0, "x" * 1_000_000)
    with pytest.raises(PlanAnswerError, match="empty the plan"):
        answers.suggest([])
    with pytest.raises(PlanAnswerError, match="as it is"):
        answers.suggest(["Only"])
    with pytest.raises(PlanAnswerError, match="empty"):
        answers.comment(0, "   ")
    assert answers.answers == () and session.active_turn is None and len(model.requests) == 2


async def test_two_comments_at_once_are_each_sent_once() -> None:
    model = cx.ScriptedModel(
        [update(("A", "in_progress"), ("B", "pending")), [cx.assistant_message("done")]], record_requests=True
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)

    def both(event: Any) -> None:
        if event.msg.type == "plan_update" and not answers.answers:
            answers.comment(0, "first")
            answers.comment(1, "second")

    session.subscribe(both)
    await session.run_turn("go", model=model)
    texts = user_texts(model.requests[1])
    assert [t.rsplit("\n", 1)[-1] for t in texts[1:]] == ["first", "second"]
    assert all(c.state == "answered" for c in answers.comments)


async def test_answers_are_exported_with_the_timeline() -> None:
    model = cx.ScriptedModel(
        [
            update(("Read", "in_progress"), ("Plot", "pending")),
            [cx.assistant_message("ok")],
            [cx.assistant_message("k")],
        ],
        allow_leftover=True,
    )
    session = cx.Session()
    timeline = cx.PlanTimeline(session)
    answers = PlanAnswers(session, model=model, timeline=timeline, who="ana")
    await session.run_turn("go", model=model)
    empty = json.loads(timeline.to_json())
    assert "answers" not in empty  # an export without answers is as it was
    answers.comment(1, "bars, please")
    await answers.turns[-1]
    data = json.loads(timeline.to_json())["answers"]
    assert [(d["kind"], d["who"], d["text"], d["delivery"], d["state"]) for d in data] == [
        ("comment", "ana", "bars, please", "new_turn", "answered")
    ]
    assert answer_from_data(data[0]) == answers.comments[0]
    report = timeline.to_markdown()
    assert (
        "### Answers" in report and "ana commented on step 2 “Plot”: bars, please \\[new\\_turn, answered\\]" in report
    )
    answers.close()
    assert timeline.answers == answers.answers  # the caller's timeline keeps reporting them


async def test_revise_plans_again_with_the_note_and_reject_sends_nothing() -> None:
    first = "<proposed_plan>\n1. Rewrite everything\n</proposed_plan>"
    second = "<proposed_plan>\n1. Fix the one bug\n</proposed_plan>"
    model = cx.ScriptedModel([[cx.assistant_message(first)], [cx.assistant_message(second)]], record_requests=True)
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    await session.run_turn("plan it", model=model, mode="plan")
    revised = answers.revise("Smaller: only the bug")
    assert (revised.decision, revised.mode, revised.delivery) == ("revised", "plan", "new_turn")
    await answers.turns[-1]
    assert model.requests[1].mode == "plan" and user_texts(model.requests[1])[-1] == "Smaller: only the bug"
    assert answers.proposal is not None and answers.proposal.text == "1. Fix the one bug\n"
    rejected = answers.reject()
    assert (rejected.decision, rejected.delivery, rejected.message) == ("rejected", "not_sent", None)
    assert session.active_turn is None and len(model.requests) == 2 and answers.proposal is None
    with pytest.raises(PlanAnswerError, match="revision note is empty"):
        answers.revise(" ")


async def test_a_decision_that_fails_to_send_leaves_the_proposal_open() -> None:
    text = "<proposed_plan>\n1. Fix the bug\n</proposed_plan>"
    model = cx.ScriptedModel([[cx.assistant_message(text)], [cx.assistant_message("fixed")]], record_requests=True)
    session = cx.Session()
    answers = PlanAnswers(session)  # no model yet: an approval cannot start the turn
    await session.run_turn("plan it", model=model, mode="plan")
    with pytest.raises(PlanAnswerError, match="no model to start one"):
        answers.approve()
    assert answers.decisions[0].delivery == "failed" and "no model" in (answers.decisions[0].error or "")
    assert answers.proposal is not None and answers.proposal.text == "1. Fix the bug\n"
    with pytest.raises(PlanAnswerError, match="no model to start one"):
        answers.revise("smaller")
    answers.model = model
    approved = answers.approve()  # the proposal is still there to approve
    assert approved.delivery == "new_turn"
    await answers.turns[-1]
    assert user_texts(model.requests[1])[-1] == IMPLEMENT_MESSAGE and answers.proposal is None


async def test_a_decision_on_a_closed_session_leaves_the_proposal_open() -> None:
    model = cx.ScriptedModel([[cx.assistant_message("<proposed_plan>\n1. Read\n</proposed_plan>")]])
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    await session.run_turn("plan it", model=model, mode="plan")
    await session.aclose()
    with pytest.raises(cx.TurnError, match="session is closed"):
        answers.approve()
    assert [d.delivery for d in answers.decisions] == ["failed"] and answers.proposal is not None
    with pytest.raises(cx.TurnError, match="session is closed"):
        answers.revise("again")  # refused for the same reason, not as "already answered"
    assert [d.delivery for d in answers.decisions] == ["failed", "failed"] and answers.proposal is not None
