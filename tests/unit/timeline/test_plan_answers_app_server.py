"""PlanAnswers on the real Codex (the pinned ``codex app-server``): a comment goes in with
``turn/steer`` and the model's next request carries it; a proposed plan of Plan mode, approved,
starts the Default-mode turn Codex's TUI starts (``Implement the plan.``)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.app_server import AppServerError
from codex_nb.timeline.answers import IMPLEMENT_MESSAGE, PlanAnswers
from helpers.app_server_helpers import plan_call, real_codex

pytestmark = pytest.mark.requires_codex


@pytest.mark.requires_codex
async def test_a_comment_is_steered_into_the_running_codex_turn(tmp_path: Path) -> None:
    steered = threading.Event()
    renamed: list[int] = []

    def answer(body: dict[str, Any]) -> list[Any]:
        # the model's answers wait until turn/steer was accepted; the one that reads the comment
        # renames the step, one that does not yet repeats the plan (the turn goes on either way)
        steered.wait(60)
        if renamed:
            return [cx.assistant_message("done")]
        if "Use bars" in json.dumps(body["input"]):
            renamed.append(1)
            return [plan_call([("Read the data", "completed"), ("Plot it as bars", "in_progress")], call_id="p3")]
        return [plan_call([("Read the data", "in_progress"), ("Plot it", "pending")], call_id="p2")]

    script = [[plan_call([("Read the data", "in_progress"), ("Plot it", "pending")], call_id="p1")]] + [answer] * 3
    async with real_codex(script, tmp_path / "home", allow_leftover=True) as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        answers = PlanAnswers(thread)
        first_plan = asyncio.get_running_loop().create_future()
        thread.subscribe(
            lambda e: first_plan.set_result(e) if e.msg.type == "plan_update" and not first_plan.done() else None
        )
        handle = thread.start_turn("plot the data")
        await first_plan
        comment = answers.comment(1, "Use bars, <i>not</i> lines")
        await answers.settled()
        in_flight = len(srv.requests)  # requests Codex had sent when turn/steer was accepted
        steered.set()
        result = await handle
    assert result.status == "completed"
    comment = answers.comments[0]
    assert comment.delivery == "steered" and comment.turn_id == result.turn_id
    bodies = [json.dumps(b["input"]) for b in srv.requests]
    carrying = [i for i, b in enumerate(bodies) if "Use bars, <i>not</i> lines" in b]
    # at the latest the first request Codex began after accepting it (the one in flight then may
    # already have been built when the server counted it): within one model request boundary
    assert carrying and carrying[0] <= in_flight + 1, (carrying, in_flight)
    assert 'Comment on step 2 of your plan (\\"Plot it\\")' in bodies[carrying[0]]
    assert comment.state == "step_renamed" and comment.renamed_to == "Plot it as bars"


@pytest.mark.requires_codex
async def test_a_proposed_plan_approved_starts_the_default_mode_turn_codex_starts(tmp_path: Path) -> None:
    text = "<proposed_plan>\n# Tidy\n\n1. Read\n2. Fix\n</proposed_plan>\n"
    script = [[cx.assistant_message(text)], [cx.assistant_message("implemented")]]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        answers = PlanAnswers(thread)
        await thread.start_turn("plan it", mode="plan")
        assert answers.proposal is not None and answers.proposal.text.startswith("# Tidy")
        decision = answers.approve()
        assert decision.delivery == "new_turn" and decision.mode == "default"
        result = await thread.active_turn
        assert result.status == "completed"
    last = json.dumps(srv.requests[-1]["input"])
    assert IMPLEMENT_MESSAGE in last
    assert answers.decisions[0].turn_id == result.turn_id


@pytest.mark.requires_codex
async def test_a_decision_when_codex_has_closed_leaves_the_proposal_open(tmp_path: Path) -> None:
    script = [[cx.assistant_message("<proposed_plan>\n1. Read\n</proposed_plan>\n")]]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        answers = PlanAnswers(thread)
        await thread.start_turn("plan it", mode="plan")
        assert answers.proposal is not None
        await server.close()
        with pytest.raises(AppServerError):
            answers.approve()
        assert [d.delivery for d in answers.decisions] == ["failed"]
        assert answers.proposal is not None and answers.proposal.text == "1. Read\n"
        with pytest.raises(AppServerError):
            answers.revise("smaller")  # refused for what it is, not as "already answered"
