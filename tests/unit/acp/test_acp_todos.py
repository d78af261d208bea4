"""Gemini CLI's ``write_todos`` arguments as the checklist's plan (``mapping.todo_plan``), including
what a hostile agent may send instead; and, over a real ACP subprocess (the hostile agent playing
Gemini's call shape), that the checklist and the timeline show it marked as taken from the tool."""

from __future__ import annotations

import html
import json
import sys
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp.mapping import MAX_PLAN_ENTRIES, MAX_TODO_TEXT, TODO_NOTE, TODO_ORIGIN, todo_plan
from codex_nb.acp import quirks
from codex_nb.widgets.testing import recording_comms
from helpers.paths import ACP_AGENTS

HOSTILE = ACP_AGENTS / "hostile_agent.py"


def steps(raw: Any) -> list[tuple[str, str]]:
    event, error = todo_plan(raw)
    assert event is not None, error
    return [(s.step, str(s.status)) for s in event.plan]


def test_gemini_todos_map_to_plan_steps_marked_as_from_the_tool() -> None:
    raw = {
        "todos": [
            {"description": "Read the code", "status": "completed"},
            {"description": "Write the fix", "status": "in_progress"},
            {"description": "Ask for review", "status": "blocked"},
            {"description": "Port to Windows", "status": "cancelled"},
            {"description": "  Ship it  ", "status": "pending"},
        ]
    }
    assert steps(raw) == [
        ("Read the code", "completed"),
        ("Write the fix", "in_progress"),
        ("Ask for review (blocked)", "pending"),
        ("Port to Windows (cancelled)", "completed"),
        ("Ship it", "pending"),
    ]
    event, _ = todo_plan(raw)
    assert event is not None and event.origin == TODO_ORIGIN and event.explanation == TODO_NOTE
    assert event.priorities == ()  # Gemini's todos have none, so none is shown
    # the wire form stays Codex's plan_update: where it came from is not a field of it
    assert "origin" not in event.model_dump(mode="json")
    assert steps({"todos": []}) == []  # Gemini's "Cleared todo list": an empty plan


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (None, "JSON null without a todos list"),
        ("todos", "JSON string without a todos list"),
        ([{"description": "a", "status": "pending"}], "JSON array without a todos list"),
        ({"todos": {"description": "a"}}, "JSON object without a todos list"),
        ({"todos": ["a"]}, "todo 1 has no description"),
        ({"todos": [{"status": "pending"}]}, "todo 1 has no description"),
        ({"todos": [{"description": "   ", "status": "pending"}]}, "todo 1 has no description"),
        ({"todos": [{"description": 7, "status": "pending"}]}, "todo 1 has no description"),
        ({"todos": [{"description": "a", "status": "done"}]}, "todo 1 ('a') has the status \"done\""),
        ({"todos": [{"description": "a", "status": None}]}, "has the status null"),
        ({"todos": [{"description": "a", "status": ["pending"]}]}, 'has the status ["pending"]'),
        (
            {"todos": [{"description": "a", "status": "pending"}] * (MAX_PLAN_ENTRIES + 1)},
            f"it has {MAX_PLAN_ENTRIES + 1} todos",
        ),
    ],
)
def test_a_malformed_todo_list_is_refused_whole_with_the_reason(raw: Any, why: str) -> None:
    event, error = todo_plan(raw)
    assert event is None and error is not None and why in error


def test_a_long_description_is_cut_and_a_long_bad_value_is_previewed() -> None:
    (step,) = steps({"todos": [{"description": "x" * 100_000, "status": "pending"}]})
    assert len(step[0]) == MAX_TODO_TEXT + 3
    _, error = todo_plan({"todos": [{"description": "a", "status": "y" * 100_000}]})
    assert error is not None and len(error) < 400


def test_only_geminis_write_todos_call_is_a_todo_tool() -> None:
    assert quirks.todo_tool("write_todos__write_todos_1796407501624_0")
    assert not quirks.todo_tool("run_shell_command__run_shell_command_1_0")
    assert not quirks.todo_tool("write_todos")  # an id that only names the tool is another agent's


def todos(raw: Any) -> str:
    return "todos " + ("-" if raw is None else json.dumps(raw))


@pytest.mark.slow
async def test_a_write_todos_call_is_the_checklists_plan_and_bad_ones_are_warned_about() -> None:
    plan_1 = {"todos": [{"description": "Write f.txt", "status": "in_progress"}]}
    plan_2 = {"todos": [{"description": "Write f.txt", "status": "completed"}]}
    async with cx.AcpAgent(sys.executable, [str(HOSTILE)]) as agent:
        session = await agent.new_session(str(HOSTILE.parent))
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        timeline = cx.PlanTimeline(session)
        with recording_comms():
            checklist = cx.PlanChecklist(session, max_rate=None)
            await session.prompt(todos(plan_1))
            await session.prompt(todos({"todos": [{"description": "x", "status": "nope"}]}))
            await session.prompt(todos(None))
            await session.prompt(todos(None))  # said once a session, not at every call
            await session.prompt(todos(plan_2))
        plans = [e.msg for e in seen if e.msg.type == "plan_update"]
        warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
        assert [[(s.step, str(s.status)) for s in p.plan] for p in plans] == [
            [("Write f.txt", "in_progress")],
            [("Write f.txt", "completed")],
        ]
        assert all(p.origin == TODO_ORIGIN for p in plans)
        assert len(warnings) == 2, warnings
        assert "was not shown as its plan: todo 1 ('x') has the status \"nope\"" in warnings[0]
        assert "carries no todos" in warnings[1]
        # the checklist shows the plan and where it came from, live and in its saved fallback
        assert checklist.explanation == TODO_NOTE
        assert [(s["step"], s["status"]) for s in checklist.steps] == [("Write f.txt", "completed")]
        assert html.escape(TODO_NOTE) in checklist.html() and TODO_NOTE in checklist.text()
        assert "priority" not in checklist.html()
        # the timeline records it like any plan
        assert [(r.revision, r.explanation) for r in timeline.revisions] == [(1, TODO_NOTE), (2, TODO_NOTE)]
