"""The app-server smoke suite ``bash .ci/compat`` runs on every Codex release of the supported range
(``.ci/codex-compat-versions``): a turn whose plan updates reach the checklist, its text, an
approval, a question, Stop, steer, resume and fork, a goal, history by pages, rewind and compact,
rename / archive / unarchive / delete, token usage, the turn's diff and Codex's automatic review, each
offline against the local Responses server and validated against the range's merged schema (a
message the schema does not cover fails the check). The test names are the checks of the
Compatibility page's table (``CHECKS`` here, ``tests/compat/report.py`` writes it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import RecordingSubscriber, ResponsesServer

from helpers.app_server_helpers import (
    ADD_NOTES,
    PLAN_TOOLS,
    SCOPE_QUESTION,
    Reached,
    Waiter,
    apply_patch_call,
    git_work_tree,
    of_type,
    plan_call,
)

pytestmark = pytest.mark.compat

ESCALATED = {"cmd": "touch approved.txt", "sandbox_permissions": "require_escalated", "justification": "make a file"}


@contextlib.asynccontextmanager
async def release_codex(
    binary: Path,
    script: list[Any],
    home: Path,
    *,
    background: Callable[[dict[str, Any]], Any] | None = None,
    **overrides: Any,
) -> AsyncIterator[tuple[cx.CodexAppServer, ResponsesServer]]:
    async with ResponsesServer(script, allow_leftover=True, background=background) as srv:
        srv.write_codex_home(home, **{**PLAN_TOOLS, **overrides})
        env = {**os.environ, "OPENAI_API_KEY": "sk-local-test"}
        async with cx.CodexAppServer(binary=binary, codex_home=home, env=env, validate=True) as server:
            yield server, srv
            assert server.connection is not None and server.connection.schema_errors == []


class Gate:
    """A script entry that tells the test Codex is sampling, then holds the answer until opened."""

    def __init__(self, then: list[Any]) -> None:
        self.loop = asyncio.get_running_loop()
        self.reached = asyncio.Event()
        self.opened = threading.Event()
        self.then = then

    def __call__(self, body: dict[str, Any]) -> list[Any]:
        self.loop.call_soon_threadsafe(self.reached.set)
        self.opened.wait(60)
        return self.then


async def test_plan(release_binary: Path, tmp_path: Path) -> None:
    script = [
        [plan_call([("read", "in_progress"), ("write", "pending")], call_id="p1")],
        [plan_call([("read", "completed"), ("write", "completed")], call_id="p2", explanation="done")],
        [cx.assistant_message("finished")],
    ]
    async with release_codex(release_binary, script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        checklist = cx.PlanChecklist(thread, max_rate=None)
        result = await thread.start_turn("plan it")
        await checklist.settled()
    assert result.status == "completed"
    assert checklist.revision == 2 and checklist.explanation == "done"
    assert [s["status"] for s in checklist.steps] == ["completed", "completed"]


async def test_text(release_binary: Path, tmp_path: Path) -> None:
    async with release_codex(release_binary, [[cx.assistant_message("hello there")]], tmp_path / "home") as (
        server,
        _srv,
    ):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        result = await thread.start_turn("say hello")
    assert result.status == "completed"
    assert "".join(e.msg.delta for e in log.of_type("agent_message_delta")) == "hello there"
    assert [i["type"] for i in result.items][-1] == "agentMessage"


async def test_approval(release_binary: Path, tmp_path: Path) -> None:
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("ok")]]
    home = tmp_path / "home"
    async with release_codex(
        release_binary, script, home, approval_policy="on-request", sandbox_mode="workspace-write"
    ) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})

        def person(event: cx.events.Event) -> None:
            if event.msg.type == "exec_approval_request":
                request = thread.frontend_requests.pending[0]
                assert prompts.receive({"kind": "answer_approval", "id": request.id, "decision": "approve"})

        thread.subscribe(person)
        result = await thread.start_turn("make the file")
        prompts.close()
    assert result.status == "completed" and (tmp_path / "approved.txt").exists()
    assert thread.server_requests.answered == [("item/commandExecution/requestApproval", {"decision": "accept"})]


async def test_question(release_binary: Path, tmp_path: Path) -> None:
    script = [[cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")], [cx.assistant_message("ok")]]
    async with release_codex(release_binary, script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})
        asked = Waiter(thread, of_type("request_user_input"))
        handle = thread.start_turn("ask me", mode="plan")
        await asked.wait()
        request = thread.frontend_requests.pending[0]
        assert prompts.receive({"kind": "answer_user_input", "id": request.id, "answers": {"scope": "Large"}})
        result = await handle
        prompts.close()
        second = srv.requests[1]
    assert result.status == "completed"
    outputs = [i["output"] for i in second["input"] if i.get("type") == "function_call_output"]
    assert json.loads(outputs[0]) == {"answers": {"scope": {"answers": ["Large"]}}}


async def test_stop(release_binary: Path, tmp_path: Path) -> None:
    sampling = Reached()
    script = [[plan_call([("wait", "in_progress")], call_id="p1")], sampling]
    async with release_codex(release_binary, script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        controls = cx.TurnControls(thread)
        handle = thread.start_turn("go")
        await sampling.wait()
        assert controls.stop(request_id="stop-1") == {"id": "stop-1", "outcome": "interrupting"}
        result = await handle
    assert result.status == "interrupted" and controls.status == "interrupted"


async def test_steer(release_binary: Path, tmp_path: Path) -> None:
    seen: list[bool] = []

    def after(body: dict[str, Any]) -> list[Any]:
        seen.append("steered text" in json.dumps(body["input"]))
        return [cx.assistant_message("steered")]

    gate = Gate([plan_call([("a", "in_progress")], call_id="p1")])
    async with release_codex(release_binary, [gate, after], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        assert server.features["turn/steer"]
        handle = thread.start_turn("go")
        await asyncio.wait_for(gate.reached.wait(), 60)
        await thread.steer("steered text")
        gate.opened.set()
        result = await handle
    assert result.status == "completed" and seen == [True]


async def _saved_thread(binary: Path, home: Path, cwd: Path) -> str:
    async with release_codex(binary, [[cx.assistant_message("first")]], home) as (server, _srv):
        thread = await server.start_thread(cwd=cwd)
        assert (await thread.start_turn("remember 42")).status == "completed"
        return thread.thread_id


def remembers(seen: list[bool]) -> Callable[[dict[str, Any]], list[Any]]:
    """A model step noting whether the saved turn's prompt is in the history Codex sends."""

    def step(body: dict[str, Any]) -> list[Any]:
        seen.append("remember 42" in json.dumps(body["input"]))
        return [cx.assistant_message("answered")]

    return step


async def test_resume(release_binary: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    thread_id = await _saved_thread(release_binary, home, tmp_path)
    seen: list[bool] = []
    async with release_codex(release_binary, [remembers(seen)], home) as (server, _srv):  # a new process: from disk
        thread = await server.resume_thread(thread_id)
        result = await thread.start_turn("what was it?")
        listed = await server.list_threads(limit=10)
    assert result.status == "completed" and seen == [True]
    assert thread_id in [t["id"] for t in listed["data"]]


async def test_fork(release_binary: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    thread_id = await _saved_thread(release_binary, home, tmp_path)
    seen: list[bool] = []
    async with release_codex(release_binary, [remembers(seen)], home) as (server, _srv):
        assert server.features["thread/fork"]
        fork = await server.fork_thread(thread_id)
        result = await fork.start_turn("and now?")
    assert fork.thread_id != thread_id and result.status == "completed" and seen == [True]


async def test_goal(release_binary: Path, tmp_path: Path) -> None:
    script = [
        [cx.assistant_message("working")],
        [cx.function_call("update_goal", {"status": "complete"}, call_id="g1")],
        [cx.assistant_message("done")],
    ]
    async with release_codex(release_binary, script, tmp_path / "home") as (server, srv):
        assert server.features["goals"]
        thread = await server.start_thread(cwd=tmp_path)
        controls = cx.TurnControls(thread)
        log = RecordingSubscriber(thread)
        try:  # bounded, and what was seen if it is not: a hang says nothing
            result = await asyncio.wait_for(thread.run_goal("finish", budget=1_000_000), 180)
        except (TimeoutError, cx.TurnError) as err:
            seen = [e.msg.type for e in log.events][-40:]
            raise AssertionError(
                f"{type(err).__name__}: {err}; model requests {len(srv.requests)}, goal {thread.goal}, "
                f"running turn {thread.goals.running_turn}, events {seen}"
            ) from err
    assert result.status == "complete" and [t.status for t in result.turns] == ["completed", "completed"]
    assert controls.goal["status"] == "complete"


async def test_history(release_binary: Path, tmp_path: Path) -> None:
    """Resume without turns, then the history by pages, newest first (``thread/turns/list``)."""
    home = tmp_path / "home"
    script = [[cx.assistant_message("first")], [cx.assistant_message("second")]]
    async with release_codex(release_binary, script, home) as (server, _srv):
        saved = await server.start_thread(cwd=tmp_path)
        for text in ("one", "two"):
            assert (await saved.start_turn(text)).status == "completed"
    async with release_codex(release_binary, [], home) as (server, _srv):
        assert server.features["thread history pages"]
        resumed = await server.resume_thread(saved.thread_id, excludeTurns=True)
        history = server.history(saved.thread_id, page_size=1)
        newest = await history.newest()
        every = await history.read_all()
    assert resumed.info["thread"]["turns"] == [] and [t.prompt for t in newest.turns] == ["two"]
    assert [t.prompt for t in every] == ["one", "two"] and history.pages == 2 and history.note == ""


async def test_rewind(release_binary: Path, tmp_path: Path) -> None:
    script = [[cx.assistant_message(f"answer {i}")] for i in range(3)] + [[cx.assistant_message("summary")]]
    async with release_codex(release_binary, script, tmp_path / "home") as (server, srv):
        assert server.features["thread/revert"] and server.features["thread/compact/start"]
        thread = await server.start_thread(cwd=tmp_path)
        for i in range(2):
            await thread.run_turn(f"question {i}")
        undone = await thread.rewind(turns=1)
        assert len(undone.turn_ids) == 1
        await thread.run_turn("question after")
        assert "question 1" not in json.dumps(srv.requests[-1]["input"])
        assert (await thread.compact()).status == "completed"


async def test_thread_verbs(release_binary: Path, tmp_path: Path) -> None:
    async with release_codex(release_binary, [[cx.assistant_message("hi")]], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        await thread.run_turn("hello")
        await thread.rename("named")
        assert [t["name"] for t in (await server.list_threads())["data"]] == ["named"]
        await thread.archive()
        assert (await server.list_threads())["data"] == []
        await thread.unarchive()
        await thread.delete()
        assert (await server.list_threads())["data"] == []


async def test_usage(release_binary: Path, tmp_path: Path) -> None:
    """``thread/tokenUsage/updated``: the thread's total and the turn's share (the local server
    reports usage with every response)."""
    async with release_codex(release_binary, [[cx.assistant_message("counted")]], tmp_path / "home") as (
        server,
        _srv,
    ):
        thread = await server.start_thread(cwd=tmp_path)
        result = await thread.start_turn("count")
    assert result.status == "completed"
    assert thread.token_usage is not None and thread.token_usage.total_tokens > 0
    assert result.token_usage is not None and result.token_usage.total_tokens == thread.token_usage.total_tokens


async def test_diff(release_binary: Path, tmp_path: Path) -> None:
    """``turn/diff/updated``: a patch applied in a git work tree is the turn's diff."""
    work = git_work_tree(tmp_path / "work")
    script = [
        [apply_patch_call(ADD_NOTES, "a1")],
        [cx.assistant_message("done")],
    ]
    async with release_codex(
        release_binary, script, tmp_path / "home", approval_policy="never", sandbox_mode="workspace-write"
    ) as (server, _srv):
        thread = await server.start_thread(cwd=work)
        thread.answer_policy = cx.AnswerPolicy.recommended()
        result = await thread.start_turn("write notes")
    assert result.status == "completed" and (work / "notes.txt").read_text() == "first\nsecond\n"
    assert result.diff is not None and thread.turn_diffs[result.turn_id] is result.diff
    assert "+++ b/notes.txt" in result.diff.unified_diff and "+second" in result.diff.unified_diff


ALLOW = {"risk_level": "low", "user_authorization": "high", "outcome": "allow", "rationale": "Asked for."}
DENY = {"risk_level": "high", "user_authorization": "low", "outcome": "deny", "rationale": "Not asked for."}
OVERRIDDEN = "The user has manually approved a specific action that was previously"
"""The developer message Codex adds after ``thread/approveGuardianDeniedAction``."""


def reviewer(body: dict[str, Any]) -> Any:
    """Codex's automatic reviewer (its own model requests): deny, until the person overrode it."""
    text = json.dumps(body.get("input"))
    if "APPROVAL REQUEST" not in text:
        return None
    return [cx.assistant_message(json.dumps(ALLOW if OVERRIDDEN in text else DENY))]


async def test_review(release_binary: Path, tmp_path: Path) -> None:
    """``approvals_reviewer = "auto_review"``: the reviewer denies (``item/autoApprovalReview/*``),
    the person overrides (``thread/approveGuardianDeniedAction``), the model asks again and the
    reviewer allows it; the person is never asked."""
    script = [
        [cx.function_call("exec_command", ESCALATED, call_id="e1")],
        [cx.assistant_message("denied")],
        [cx.function_call("exec_command", ESCALATED, call_id="e2")],
        [cx.assistant_message("made")],
    ]
    async with release_codex(
        release_binary,
        script,
        tmp_path / "home",
        background=reviewer,
        approval_policy="on-request",
        sandbox_mode="workspace-write",
        approvals_reviewer="auto_review",
    ) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        first = await thread.start_turn("make the file")
        assert first.status == "completed" and not (tmp_path / "approved.txt").exists()
        [denied] = [r for r in thread.auto_reviews.values() if r.status == "denied"]
        assert denied.can_override
        await thread.approve_denied_action(denied)
        second = await thread.start_turn("go ahead")
    assert second.status == "completed" and (tmp_path / "approved.txt").exists()
    assert [r.status for r in thread.auto_reviews.values()][-1] == "approved"
    assert thread.server_requests.answered == [] and not thread.frontend_requests.pending


CHECKS: list[Callable[..., Any]] = [
    test_plan,
    test_text,
    test_approval,
    test_question,
    test_stop,
    test_steer,
    test_resume,
    test_fork,
    test_goal,
    test_history,
    test_rewind,
    test_thread_verbs,
    test_usage,
    test_diff,
    test_review,
]
"""The Compatibility table's columns, in order."""


def test_the_table_has_a_column_per_check() -> None:
    from compat.report import CHECKS as COLUMNS

    assert COLUMNS == [check.__name__.removeprefix("test_") for check in CHECKS]
