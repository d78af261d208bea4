"""``cx.compare``: one prompt on several sources at once, per-agent results, Stop one, a summary."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx

PLAN = {"plan": [{"step": "Look", "status": "completed"}, {"step": "Answer", "status": "in_progress"}]}


async def test_two_sessions_run_the_prompt_at_once_and_one_is_stopped() -> None:
    quick, slow = cx.Session(), cx.Session()
    entered, never = asyncio.Event(), asyncio.Event()

    @slow.tool(name="wait_forever", description="waits")
    async def wait_forever() -> str:
        entered.set()
        await never.wait()
        return "never"

    quick_model = cx.ScriptedModel([[cx.function_call("update_plan", PLAN)], [cx.assistant_message("done")]])
    slow_model = cx.ScriptedModel([[cx.function_call("update_plan", PLAN)], [cx.function_call("wait_forever", {})]])
    comparison = cx.compare({"quick": (quick, quick_model), "slow": (slow, slow_model)}, "Do it")
    view = comparison.widget()  # per agent: status, checklist, Stop, transcript; then Stop all; the summary
    columns, (stop_all,), table = view.children[0].children, view.children[1].children, view.children[2]
    assert len(columns) == 2 and [type(c).__name__ for c in columns[0].children[1:]] == [
        "PlanChecklist",
        "TurnControls",
        "Transcript",
    ]
    await asyncio.wait_for(entered.wait(), 10)
    with pytest.raises(KeyError, match="no agent 'other'"):
        comparison.stop("other")
    assert comparison.stop("slow") == ["slow"]
    runs = await asyncio.wait_for(comparison, 10)
    assert (runs["quick"].status, runs["quick"].last_agent_message) == ("completed", "done")
    assert runs["slow"].status == "interrupted"
    rows = {row["agent"]: row for row in comparison.summary()}
    assert (rows["quick"]["steps"], rows["quick"]["revisions"], rows["quick"]["tool_calls"]) == (2, 1, 1)
    assert (rows["slow"]["revisions"], rows["slow"]["tool_calls"]) == (1, 2)
    assert comparison.stop() == []  # nothing left running
    assert "<b>slow</b>: interrupted" in columns[1].children[0].value and stop_all.disabled
    assert "<td>quick</td><td>completed</td>" in table.value


async def test_bad_sources_say_what_to_pass() -> None:
    with pytest.raises(TypeError, match="'s' needs a model"):
        cx.compare({"s": cx.Session()}, "x")
    with pytest.raises(TypeError, match="'n' is a int, not a turn source"):
        cx.compare({"n": 3}, "x")
    with pytest.raises(ValueError, match="at least one source"):
        cx.compare({}, "x")
