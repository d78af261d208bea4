"""PlanAnswersWidget: every control is a PlanAnswers call; refusals are replies saying why, sent nowhere."""

from __future__ import annotations

import asyncio
from typing import Any

import codex_nb as cx
from codex_nb.timeline.answers import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget
from codex_nb.widgets.testing import RecordingComm, recording_comms


def update(*steps: tuple[str, str]) -> list[dict[str, Any]]:
    return [cx.function_call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]})]


def make(answers: PlanAnswers) -> tuple[PlanAnswersWidget, RecordingComm]:
    with recording_comms():
        widget = PlanAnswersWidget(answers)
    assert isinstance(widget.comm, RecordingComm)
    return widget, widget.comm


async def test_comment_and_suggest_from_the_view_and_what_it_shows() -> None:
    model = cx.ScriptedModel(
        [
            update(("Read", "in_progress"), ("Plot", "pending")),
            update(("Read", "completed"), ("Clean", "pending"), ("Plot", "in_progress")),
            [cx.assistant_message("done")],
        ],
        record_requests=True,
    )
    session = cx.Session()
    widget, comm = make(PlanAnswers(session, model=model))
    assert widget.text() == "Plan: none yet"

    def on_plan(event: Any) -> None:
        if event.msg.type == "plan_update" and not widget.replies:
            comm.send_custom({"id": "r1", "kind": "comment", "step": 1, "text": "<script>alert(1)</script>"})
            comm.send_custom({"id": "r2", "kind": "suggest", "steps": ["Read", "Clean", "Plot"]})

    session.subscribe(on_plan)
    await session.run_turn("go", model=model)
    assert [r["outcome"] for r in widget.replies] == ["sent", "sent"]
    assert widget.comments[0]["state"] == "answered" and widget.suggestions[0]["state"] == "adopted"
    text = widget.text()
    assert "comment: <script>alert(1)</script>  (answered · steered into the running turn)" in text
    assert "Suggested change (adopted · steered into the running turn):" in text and "+ add step 2: Clean" in text
    assert "<script>" not in widget.html() and "&lt;script&gt;" in widget.html()
    assert widget.steps[1] == {"index": 1, "step": "Clean", "status": "pending"}


async def test_refusals_are_replies_and_nothing_is_sent() -> None:
    model = cx.ScriptedModel([update(("Only", "in_progress")), [cx.assistant_message("ok")]], record_requests=True)
    session = cx.Session()
    widget, comm = make(PlanAnswers(session, model=model))
    await session.run_turn("go", model=model)
    comm.send_custom({"id": "a", "kind": "comment", "step": 5, "text": "hi"})
    comm.send_custom({"id": "b", "kind": "comment", "step": 0, "text": "x" * 1_000_001})
    comm.send_custom({"id": "c", "kind": "suggest", "steps": []})
    comm.send_custom({"id": "d", "kind": "approve"})
    comm.send_custom({"id": "e", "kind": "comment", "step": "0", "text": "hi"})  # malformed: a protocol error
    assert [r["outcome"] for r in widget.replies] == ["refused"] * 4
    assert "has no step 5" in widget.replies[0]["message"]
    assert "more than the 20,000" in widget.replies[1]["message"]
    assert "empty the plan" in widget.replies[2]["message"]
    assert "no proposed plan" in widget.replies[3]["message"]
    assert "field 'step' must be integer" in widget.error
    assert session.active_turn is None and len(model.requests) == 2 and widget.answers.answers == ()


async def test_a_proposed_plan_is_approved_from_the_view() -> None:
    text = "<proposed_plan>\n1. Read\n2. Fix\n</proposed_plan>"
    model = cx.ScriptedModel([[cx.assistant_message(text)], [cx.assistant_message("implemented")]])
    session = cx.Session()
    widget, comm = make(PlanAnswers(session, model=model))
    await session.run_turn("plan it", model=model, mode="plan")
    assert widget.proposal == {"index": 0, "text": "1. Read\n2. Fix\n"}
    assert "Proposed plan, waiting for your decision: [Approve] [Revise] [Reject]" in widget.text()
    comm.send_custom({"id": "p", "kind": "approve"})
    assert widget.replies[-1]["outcome"] == "sent" and widget.proposal == {}
    result = await widget.answers.turns[-1]
    assert result.last_agent_message == "implemented"
    assert "Proposed plan approved" in widget.text()
    widget.close()


async def test_a_message_arriving_on_another_thread_is_handled_on_the_kernels_loop() -> None:
    import threading

    model = cx.ScriptedModel(
        [update(("Only", "in_progress")), [cx.assistant_message("ok")], [cx.assistant_message("noted")]],
        record_requests=True,
        allow_leftover=True,
    )
    session = cx.Session()
    widget, comm = make(PlanAnswers(session, model=model))
    await session.run_turn("go", model=model)
    replied = asyncio.Event()
    loop = asyncio.get_running_loop()
    widget.observe(lambda _change: loop.call_soon_threadsafe(replied.set), names="last_reply")
    sender = threading.Thread(target=comm.send_custom, args=({"id": "t", "kind": "comment", "step": 0, "text": "hi"},))
    sender.start()
    await replied.wait()
    sender.join()
    assert widget.replies == [{"id": "t", "outcome": "sent", "message": ""}]
    await widget.answers.turns[-1]  # the comment started the next turn on the loop, not on the thread
    assert model.requests[-1].items[-1]["content"][0]["text"].endswith("hi")


async def test_a_comment_that_starts_a_turn_shows_that_turn_and_the_agents_answer() -> None:
    model = cx.ScriptedModel(
        [
            update(("Read", "completed"), ("Plot", "pending")),
            [cx.assistant_message("Planned.")],
            [cx.assistant_message("Both steps are done.")],
        ]
    )
    session = cx.Session()
    answers = PlanAnswers(session, model=model)
    widget, comm = make(answers)
    await session.run_turn("go", model=model)
    comm.send_custom({"id": "r1", "kind": "comment", "step": 1, "text": "is plotting done too?"})
    assert widget.replies[-1]["outcome"] == "sent" and "started a turn" in widget.comments[0]["label"]
    await answers.turns[-1]
    assert [m for t in widget.turns for m in t["messages"]] == [
        {"role": "user", "text": widget.turns[0]["messages"][0]["text"]},
        {"role": "assistant", "text": "Both steps are done."},
    ]
    assert "is plotting done too?" in widget.turns[0]["messages"][0]["text"]
    text = widget.text()
    assert "  Turn your answer started:" in text and "    agent: Both steps are done." in text
