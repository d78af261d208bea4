""" "Why is there no plan?": the one line the timeline and the checklist show when a turn ends
without a plan, from what the source showed (its tool plan, the call's error, the peer's
silence), and Plan mode's proposed plans, recorded as their own kind of entry. Real sources:
a ``cx.Session``, the pinned ``codex app-server`` and a real ACP agent subprocess."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.timeline import NoPlan, PlanProposal
from codex_nb.timeline.why import CONFIG_FIX
from codex_nb.widgets.testing import RecordingComm, recording_comms
from codex_nb.widgets.timeline import PlanTimelineWidget

from helpers.app_server_helpers import real_codex
from helpers.paths import ACP_AGENTS

PLAN = [cx.function_call("update_plan", {"plan": [{"step": "a", "status": "pending"}]}, call_id="p1")]
DONE = [cx.assistant_message("done")]


async def _turn(
    session: cx.Session, script: list, *, mode: str = "default"
) -> tuple[cx.PlanTimeline, cx.PlanChecklist]:
    timeline = cx.PlanTimeline(session)
    with recording_comms():
        checklist = cx.PlanChecklist(session)
    await session.run_turn("go", model=cx.ScriptedModel(script), mode=mode)
    checklist.flush()
    return timeline, checklist


async def test_update_plan_off_in_the_config_names_the_key_that_turns_it_on() -> None:
    session = cx.Session(config=cx.Config(update_plan_enabled=False))
    timeline, checklist = await _turn(session, [DONE])
    why = timeline.no_plan
    assert isinstance(why, NoPlan) and why.reason == "tool_off" and why.fix == CONFIG_FIX
    assert "[tools.update_plan] enabled = true" in why.line
    assert checklist.no_plan == why.line
    # said once: not under "Updated Plan" after "(no plan yet)" (notebook 14's Gemini column)
    assert checklist.text() == f"• Plan\n  └ {why.line}"
    assert "Updated Plan" not in checklist.html() and "(no plan yet)" not in checklist.html()
    assert "[tools.update_plan] enabled = true" in checklist.html()
    assert why.line in timeline.text() and html.escape(why.line) in PlanTimelineWidget(timeline).html()
    assert "(no plan revisions yet)" not in PlanTimelineWidget(timeline).html()  # the why says it, once
    assert json.loads(timeline.to_json())["no_plan"]["reason"] == "tool_off"


async def test_a_plan_mode_call_quotes_the_error_the_model_got() -> None:
    timeline, checklist = await _turn(cx.Session(), [PLAN, DONE], mode="plan")
    why = timeline.no_plan
    assert why is not None and why.reason == "rejected" and why.fix is None
    assert "“update_plan is a TODO/checklist tool and is not allowed in Plan mode”" in why.line
    assert checklist.no_plan == why.line


async def test_invalid_arguments_quote_the_parse_error() -> None:
    bad = [cx.function_call("update_plan", {"plan": "not a list"}, call_id="bad")]
    timeline, _ = await _turn(cx.Session(), [bad, DONE])
    why = timeline.no_plan
    assert why is not None and why.reason == "rejected"
    assert "failed to parse function arguments" in why.message


async def test_a_model_that_never_calls_update_plan_is_said_so() -> None:
    timeline, checklist = await _turn(cx.Session(), [DONE])
    assert timeline.no_plan is not None and timeline.no_plan.reason == "not_called"
    assert "the model never called update_plan" in checklist.no_plan


async def test_a_turn_with_a_plan_has_no_line_and_a_later_plan_clears_it() -> None:
    session = cx.Session()
    timeline, checklist = await _turn(session, [DONE])
    assert checklist.no_plan
    await session.run_turn("again", model=cx.ScriptedModel([PLAN, DONE]))
    checklist.flush()
    assert timeline.no_plan is None and checklist.no_plan == ""
    assert json.loads(timeline.to_json())["no_plan"] is None


@pytest.mark.slow
async def test_an_acp_agent_that_sends_no_plan_is_said_so_without_naming_a_cause() -> None:
    agent = cx.AcpAgent(sys.executable, [str(ACP_AGENTS / "hostile_agent.py")])
    async with agent:
        session = await agent.new_session()
        timeline = cx.PlanTimeline(session)
        result = await session.prompt("hello")
    assert result.status == "completed"
    assert timeline.no_plan is not None and timeline.no_plan.reason == "no_update"
    assert "the ACP agent sent no plan update" in timeline.no_plan.line and timeline.no_plan.fix is None
    assert "write_todos" not in timeline.no_plan.line


@pytest.mark.slow
async def test_an_acp_todo_tool_call_without_its_todos_is_named_as_why_there_is_no_plan() -> None:
    """Gemini CLI 0.61's write_todos call carries no todos over ACP (the hostile agent plays its
    shape): the line says so; a call that carried them made a plan, so there is no line."""
    agent = cx.AcpAgent(sys.executable, [str(ACP_AGENTS / "hostile_agent.py")])
    async with agent:
        session = await agent.new_session()
        timeline = cx.PlanTimeline(session)
        await session.prompt("todos -")
        assert timeline.no_plan is not None and timeline.no_plan.reason == "no_update"
        assert timeline.no_plan.line == (
            "No plan: the ACP agent sent no plan update in turn turn-1; its write_todos call carried no "
            "todos (Gemini CLI 0.61 sends only its title)"
        )
        await session.prompt('todos {"todos": [{"description": "a", "status": "pending"}]}')
        assert timeline.no_plan is None


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_plan_mode_proposal_is_its_own_entry_not_a_checklist(tmp_path: Path) -> None:
    text = "<proposed_plan>\n# Fix the parser\n\n1. Read the <b>bug</b> report\n2. Fix it\n</proposed_plan>\n"
    async with real_codex([[cx.assistant_message(text)]], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        timeline = cx.PlanTimeline(thread)
        result = await thread.start_turn("plan it", mode="plan")
    assert result.status == "completed"
    assert timeline.revisions == () and timeline.no_plan is None  # a proposal is a plan: no why-line
    [proposal] = timeline.proposals
    assert isinstance(proposal, PlanProposal) and proposal.turn_id == result.turn_id
    # the pinned binary's shape: the block's inner text, in a "plan" item (0.169 named it
    # "<turn>-plan"; 0.171 gives it an id of its own, a uuid)
    assert proposal.text == "# Fix the parser\n\n1. Read the <b>bug</b> report\n2. Fix it\n"
    assert proposal.item_id in (f"{result.turn_id}-plan",) or re.fullmatch(r"[0-9a-f-]{36}", proposal.item_id)
    assert proposal.turn_ended and proposal.awaiting_decision  # no agent message besides the plan
    report = timeline.to_markdown()
    assert "Proposed plan 0" in report and "&lt;b&gt;bug&lt;/b&gt;" in report and "<b>" not in report
    assert json.loads(timeline.to_json())["proposals"][0]["awaiting_decision"] is True
    with recording_comms():
        widget = PlanTimelineWidget(timeline)
    assert isinstance(widget.comm, RecordingComm)
    widget.comm.request_state()
    shown = widget.comm.updates()[-1]["proposals"][0]
    assert shown["text"] == proposal.text and shown["awaiting"] is True
    assert "Read the &lt;b&gt;bug&lt;/b&gt; report" in widget.html()


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_codex_turn_without_a_plan_says_codex_sent_none(tmp_path: Path) -> None:
    async with real_codex([[cx.assistant_message("no plan today")]], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        timeline = cx.PlanTimeline(thread)
        await thread.start_turn("hello")
    assert timeline.no_plan is not None and timeline.no_plan.reason == "no_update"
    assert timeline.no_plan.message.startswith("Codex sent no turn/plan/updated in turn ")
