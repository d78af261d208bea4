"""cx.compare: one prompt on several sources at once; one failing or hanging agent stops no other."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.widgets import compare as compare_module
from codex_nb.widgets.compare import Comparison
from codex_nb.widgets.testing import recording_comms
from helpers.paths import ACP_AGENTS

HOSTILE = ACP_AGENTS / "hostile_agent.py"


def plan(*steps: tuple[str, str]):
    return cx.function_call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]})


def planner(*, tool_calls: int = 0) -> cx.ScriptedModel:
    """Two plan revisions (two steps), ``tool_calls`` calls of a Python tool, then an answer."""
    script = [[plan(("Read", "in_progress"), ("Write", "pending"))]]
    script += [[cx.function_call("echo", {"text": f"call {i}"})] for i in range(tool_calls)]
    script += [[plan(("Read", "completed"), ("Write", "completed"))], [cx.assistant_message("Done.")]]
    return cx.ScriptedModel(script)


def session_with_echo() -> cx.Session:
    session = cx.Session()

    @session.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return session


def hanging(started: asyncio.Event) -> cx.ScriptedModel:
    async def wait_forever(_request):
        started.set()
        await asyncio.Event().wait()

    return cx.ScriptedModel([[plan(("Think", "in_progress"))], wait_forever])


class DeafSource:
    """A turn source whose turn ignores Stop: a hostile agent that never answers a cancel."""

    capabilities = cx.Capabilities(agent="a deaf agent", runs_turns=True, interrupt=True)
    active_turn = None

    def __init__(self) -> None:
        self.session = cx.Session()
        self.thread_id = self.session.thread_id
        self.interrupts = 0
        self.task: asyncio.Task | None = None

    def send_during_turn(self, text: str):
        raise cx.TurnError("a deaf agent takes nothing during a turn")

    def subscribe(self, fn):
        return self.session.subscribe(fn)

    def interrupt(self) -> bool:
        self.interrupts += 1
        return True

    def start_turn(self, text: str):
        self.task = asyncio.ensure_future(asyncio.Event().wait())
        return self


async def test_runs_every_source_at_once_and_sums_them_up(no_leaked_tasks) -> None:
    a, b = session_with_echo(), cx.Session()
    comparison = cx.compare({"tools": (a, planner(tool_calls=2)), "plain": (b, planner())}, "Do it")
    assert isinstance(comparison, Comparison)
    assert {r.status for r in comparison.runs.values()} == {"running"}  # returned before any turn ended
    runs = await comparison
    assert list(runs) == ["tools", "plain"]
    tools, plain = runs["tools"], runs["plain"]
    assert (tools.status, tools.steps, tools.plan_revisions, tools.tool_calls) == ("completed", 2, 2, 2)
    assert (plain.status, plain.steps, plain.plan_revisions, plain.tool_calls) == ("completed", 2, 2, 0)
    assert tools.result.last_agent_message == "Done." and tools.elapsed > 0
    rows = comparison.summary()
    assert [r["agent"] for r in rows] == ["tools", "plain"] and rows[0]["tool calls"] == 2
    text = comparison.text()
    assert text.splitlines()[0].split() == ["agent", "outcome", "steps", "revisions", "tool", "calls", "time"]
    assert "tools" in text and "completed" in text
    assert "<table" in comparison.html() and comparison.done()


async def test_a_failing_agent_does_not_stop_the_others(no_leaked_tasks) -> None:
    def boom(_request):
        raise RuntimeError("model exploded")

    comparison = cx.compare([(cx.Session(), cx.ScriptedModel([boom])), (cx.Session(), planner())], "Do it")
    runs = await comparison
    first, second = runs.values()
    assert first.name == "1. Session" and first.status == "failed" and "model exploded" in (first.error or "")
    assert second.status == "completed" and second.plan_revisions == 2
    assert "1. Session: " in comparison.text()


async def test_a_source_that_cannot_start_fails_only_its_row(no_leaked_tasks) -> None:
    busy = cx.Session()
    started = asyncio.Event()
    running = busy.start_turn("first", model=hanging(started))
    comparison = cx.compare({"busy": (busy, planner()), "ok": (cx.Session(), planner())}, "Do it")
    runs = await comparison
    assert runs["busy"].status == "failed" and "TurnError" in (runs["busy"].error or "")
    assert runs["ok"].status == "completed"
    running.interrupt()
    await running


async def test_a_hanging_agent_times_out_while_the_others_complete(no_leaked_tasks) -> None:
    started = asyncio.Event()
    comparison = cx.compare(
        {"hangs": (cx.Session(), hanging(started)), "ok": (cx.Session(), planner())}, "Go", timeout=0.5
    )
    runs = await comparison
    assert runs["ok"].status == "completed"
    assert runs["hangs"].status == "timed out" and runs["hangs"].plan_revisions == 1
    assert started.is_set()


async def test_stop_one_then_stop_all(no_leaked_tasks) -> None:
    one, two = asyncio.Event(), asyncio.Event()
    comparison = cx.compare({"a": (cx.Session(), hanging(one)), "b": (cx.Session(), hanging(two))}, "Go")
    await one.wait()
    await two.wait()
    assert comparison.stop("a") is True
    assert comparison.stop("a") is False  # already stopping
    assert comparison.stop_all() == ["b"]
    runs = await comparison
    assert {r.status for r in runs.values()} == {"interrupted"}
    assert comparison.stop_all() == []
    with pytest.raises(KeyError, match="names are a, b"):
        comparison.stop("c")


async def test_stop_all_ends_an_agent_that_ignores_stop(monkeypatch, no_leaked_tasks) -> None:
    monkeypatch.setattr(compare_module, "STOP_GRACE", 0.05)
    deaf = DeafSource()
    comparison = cx.compare({"deaf": deaf, "ok": (cx.Session(), planner())}, "Go")
    assert comparison.stop("deaf") is True
    runs = await comparison
    assert deaf.interrupts == 1 and deaf.task is not None and deaf.task.cancelled()
    assert runs["deaf"].status == "stopped" and "did not stop" in (runs["deaf"].error or "")
    assert runs["ok"].status == "completed"


async def test_cancelling_the_wait_leaves_no_task(no_leaked_tasks) -> None:
    started = asyncio.Event()
    comparison = cx.compare({"hangs": (cx.Session(), hanging(started))}, "Go")
    waiter = asyncio.ensure_future(comparison.wait())
    await started.wait()
    comparison.stop_all()
    runs = await waiter
    assert runs["hangs"].status == "interrupted"


async def test_views_are_the_widgets_every_source_uses(no_leaked_tasks) -> None:
    with recording_comms():
        comparison = cx.compare({"a": (cx.Session(), planner()), "b": (cx.Session(), planner())}, "Go", views=True)
    await comparison
    stop_all, grid, table = comparison.children
    assert stop_all.description == "Stop all" and stop_all.disabled
    assert stop_all.button_style == ""  # red asked to stop agents that had all ended
    columns = grid.children
    assert len(columns) == 2
    kinds = [type(w).__name__ for w in columns[0].children]
    assert kinds == ["HTML", "TurnControls", "PlanChecklist", "Transcript", "PlanTimelineWidget"]
    assert "completed" in columns[0].children[0].value
    assert columns[0].children[2].text().count("✔") == 2  # the checklist: both steps done
    assert len(columns[0].children[4].timeline) == 2
    assert "<table" in table.value
    data, _ = comparison._repr_mimebundle_()
    assert data["text/plain"] == comparison.text()
    assert "── a ──" in data["text/plain"] and "✔ Write" in data["text/plain"]
    assert data["text/html"].count("<h4>") == 2 and "Done." in data["text/html"]  # the transcript too
    comparison.close()


async def test_headless_builds_no_views(no_leaked_tasks) -> None:
    comparison = cx.compare([(cx.Session(), planner())], "Go")
    await comparison
    assert comparison.children == ()


@pytest.mark.parametrize(
    ("sources", "error", "match"),
    [
        ({}, ValueError, "at least one source"),
        ({"x": object()}, TypeError, "cannot run turns"),
        ({"x": cx.Session()}, TypeError, r"needs a model: pass \(source, model\)"),
    ],
)
async def test_bad_sources_say_what_to_pass(sources, error, match) -> None:
    with pytest.raises(error, match=match):
        cx.compare(sources, "Go")


async def test_bad_calls_say_what_to_pass() -> None:
    session = cx.Session()
    with pytest.raises(ValueError, match="listed twice"):
        cx.compare([(session, planner()), (session, planner())], "Go")
    with pytest.raises(ValueError, match="non-empty text"):
        cx.compare([(session, planner())], "  ")
    with pytest.raises(ValueError, match="positive number"):
        cx.compare([(session, planner())], "Go", timeout=0)
    with pytest.raises(TypeError, match="brings its own model"):
        cx.compare({"deaf": (DeafSource(), planner())}, "Go")


def test_outside_a_running_loop_says_so() -> None:
    with pytest.raises(RuntimeError, match="running event loop"):
        cx.compare([(cx.Session(), planner())], "Go")


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_a_real_agent_that_crashes_fails_only_its_row_and_leaves_no_process(no_leaked_tasks) -> None:
    async with cx.AcpAgent(sys.executable, [str(HOSTILE)]) as agent:
        session = await agent.new_session(Path.cwd())
        pid = agent.pid
        runs = await cx.compare({"crashes": session, "runtime": (cx.Session(), planner())}, "crash")
        assert runs["crashes"].status == "failed" and "3" in (runs["crashes"].error or "")
        assert runs["runtime"].status == "completed"
    assert gone(pid)


async def test_stop_all_ends_real_agents_that_ignore_cancel_and_leaves_no_process(no_leaked_tasks) -> None:
    """Two real ACP agent processes hang in their prompt and never answer ``session/cancel``: Stop
    all ends both (locally after the agent's ``cancel_grace``); closing leaves no process."""
    agents = [cx.AcpAgent(sys.executable, [str(HOSTILE)], cancel_grace=0.2) for _ in range(2)]
    async with agents[0], agents[1]:
        sessions = [await agent.new_session(Path.cwd()) for agent in agents]
        pids = [agent.pid for agent in agents]
        started = [asyncio.Event(), asyncio.Event()]
        for session, event in zip(sessions, started, strict=True):
            session.subscribe(lambda e, event=event: e.msg.type == "acp_tool_call" and event.set())
        comparison = cx.compare({"one": sessions[0], "two": sessions[1]}, "hang")
        for event in started:
            await event.wait()
        assert comparison.stop_all() == ["one", "two"]
        runs = await comparison
        assert {r.status for r in runs.values()} == {"interrupted"}, comparison.text()
    assert all(gone(pid) for pid in pids)


async def test_cancelling_the_wait_stops_every_agent(no_leaked_tasks) -> None:
    started = asyncio.Event()
    comparison = cx.compare({"hangs": (cx.Session(), hanging(started))}, "Go")
    waiter = asyncio.ensure_future(comparison.wait())
    await started.wait()
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    runs = await comparison
    assert runs["hangs"].status == "stopped" and runs["hangs"].error == "the comparison was cancelled"
