"""The real Codex (``codex app-server``, the pinned version) driven by codex_nb against a local scripted
Responses server: plans, questions, approvals, interrupts, crashes, errors, schema."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import stat
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.app_server.process import live_process_groups
from codex_nb.testing import RecordingSubscriber, Stall, pinned_codex_version

from helpers.app_server_helpers import (
    SCOPE_QUESTION,
    Reached,
    Waiter,
    hook_trust_toml,
    live_members,
    of_type,
    plan_call,
    real_codex,
)
from helpers.app_server_peer import StandInThread
from helpers.sigint import previous_handler, sigint_once


# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


def _outputs(body: dict, call_id: str) -> list[str]:
    return [
        item["output"]
        for item in body["input"]
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id
    ]


@pytest.mark.requires_codex
async def test_growing_plan_becomes_events_checklist_and_result(tmp_path: Path) -> None:
    script = [
        [plan_call([("read", "in_progress"), ("write", "pending")], call_id="p1")],
        [plan_call([("read", "completed"), ("write", "in_progress"), ("test", "pending")], call_id="p2")],
        [
            plan_call(
                [("read", "completed"), ("write", "completed"), ("test", "completed")],
                call_id="p3",
                explanation="all done",
            )
        ],
        [cx.assistant_message("finished")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        checklist = cx.PlanChecklist(thread, max_rate=None)
        result = await thread.start_turn("plan and do it")
        await checklist.settled()
        assert server.connection.schema_errors == []
    assert result.status == "completed"
    assert result.error is None
    assert [i["type"] for i in result.items] == ["agentMessage"]
    plans = log.of_type("plan_update")
    assert [e.revision for e in plans] == [1, 2, 3]
    assert [[(s.step, str(s.status)) for s in e.msg.plan] for e in plans][1] == [
        ("read", "completed"),
        ("write", "in_progress"),
        ("test", "pending"),
    ]
    assert thread.latest_plan() is plans[-1]
    assert all(e.turn_id == result.turn_id and e.thread_id == thread.thread_id for e in plans)
    core = [t for t in log.types if t in ("turn_started", "plan_update", "turn_complete")]
    assert core == ["turn_started", "plan_update", "plan_update", "plan_update", "turn_complete"]
    assert log.of_type("turn_complete")[0].msg.last_agent_message == "finished"
    assert "".join(e.msg.delta for e in log.of_type("agent_message_delta")) == "finished"
    assert checklist.revision == 3 and checklist.turn_status == "completed"
    assert checklist.explanation == "all done"
    assert [s["status"] for s in checklist.steps] == ["completed"] * 3
    assert [e.msg.type for e in result.events if e.msg.type == "plan_update"] == ["plan_update"] * 3
    assert len(srv.requests) == 4 and _outputs(srv.requests[1], "p1") == ["Plan updated"]


@pytest.mark.requires_codex
async def test_question_in_plan_mode_answered_by_the_headless_policy(tmp_path: Path) -> None:
    script = [
        [cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")],
        [cx.assistant_message("ok")],
        [plan_call([("after", "in_progress")], call_id="p1")],
        [cx.assistant_message("back")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        thread.answer_policy = cx.AnswerPolicy.recommended()
        log = RecordingSubscriber(thread)
        result = await thread.start_turn("ask me", mode="plan")
        after = await thread.start_turn("plan again")  # default mode again: update_plan is allowed
    assert result.status == "completed" and after.status == "completed"
    assert _outputs(srv.requests[3], "p1") == ["Plan updated"]
    assert [e.msg.collaboration_mode_kind for e in log.of_type("turn_started")] == ["plan", "default"]
    asked = log.of_type("request_user_input")[0].msg
    assert [q.id for q in asked.questions] == ["scope"] and asked.turn_id == result.turn_id
    resolved = log.of_type("frontend_request_resolved")[0].msg
    assert resolved.outcome == "policy" and resolved.kind == "user_input"
    answer = json.loads(_outputs(srv.requests[1], "q1")[0])
    assert answer == {"answers": {"scope": {"answers": ["Small (Recommended)"]}}}
    assert thread.server_requests.answered == [
        ("item/tool/requestUserInput", {"answers": {"scope": {"answers": ["Small (Recommended)"]}}})
    ]


@pytest.mark.requires_codex
async def test_question_answered_through_the_prompts_widget(tmp_path: Path) -> None:
    script = [[cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")], [cx.assistant_message("ok")]]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        assert prompts.receive({"kind": "ready", "id": "view-1"})  # what a rendered view sends
        asked = Waiter(thread, of_type("request_user_input"))
        handle = thread.start_turn("ask me", mode="plan")
        await asked.wait()
        request = thread.frontend_requests.pending[0]
        assert prompts.requests[0]["id"] == request.id
        assert "Scope: Which scope?" in prompts.text()
        assert prompts.receive({"kind": "answer_user_input", "id": request.id, "answers": {"scope": "Large"}})
        result = await handle
        prompts.close()
    assert result.status == "completed"
    assert json.loads(_outputs(srv.requests[1], "q1")[0]) == {"answers": {"scope": {"answers": ["Large"]}}}
    assert prompts.resolved[-1]["outcome"] == "answered"


@pytest.mark.requires_codex
async def test_unanswerable_question_gets_the_documented_decline(tmp_path: Path) -> None:
    script = [[cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")], [cx.assistant_message("ok")]]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        result = await thread.start_turn("ask me", mode="plan")
    assert result.status == "completed"
    assert thread.server_requests.answered == [("item/tool/requestUserInput", {"answers": {}})]
    assert log.of_type("frontend_request_resolved")[0].msg.outcome == "unanswerable"
    warning = [e.msg.message for e in log.of_type("warning") if "declined" in e.msg.message]
    assert warning and "CODEX_NB_ANSWER_POLICY" in warning[0]
    assert len(srv.requests) == 2  # the turn went on: the model got an (empty) answer


@pytest.mark.requires_codex
async def test_interrupt_mid_turn(tmp_path: Path) -> None:
    sampling = Reached()
    script = [[plan_call([("wait", "in_progress")], call_id="p1")], sampling]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        controls = cx.TurnControls(thread)
        checklist = cx.PlanChecklist(thread, max_rate=None)
        handle = thread.start_turn("go")
        await sampling.wait()
        assert controls.status == "running" and controls.stoppable
        assert controls.stop(request_id="stop-1") == {"id": "stop-1", "outcome": "interrupting"}
        assert handle.interrupt() is False  # a second interrupt is a no-op
        result = await handle
        await checklist.settled()
    assert result.status == "interrupted"
    assert [e.msg.type for e in result.events if e.msg.type == "turn_aborted"] == ["turn_aborted"]
    assert controls.status == "interrupted"
    assert checklist.turn_status == "interrupted" and checklist.steps == [{"step": "wait", "status": "in_progress"}]


@pytest.mark.requires_codex
async def test_killed_server_fails_the_turn_with_the_stderr_tail(tmp_path: Path) -> None:
    sampling = Reached()
    script = [[plan_call([("wait", "in_progress")], call_id="p1")], sampling]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        checklist = cx.PlanChecklist(thread, max_rate=None)
        controls = cx.TurnControls(thread)
        handle = thread.start_turn("go")
        await sampling.wait()
        os.killpg(server.pid, signal.SIGKILL)
        result = await handle
        await checklist.settled()
        with pytest.raises(cx.app_server.AppServerExited, match="exited unexpectedly"):
            thread.start_turn("again")
    assert result.status == "failed"
    assert "exited unexpectedly (exit status -9)" in result.error
    assert "codex app-server stderr" in result.error and server.stderr_tail() in result.error
    assert checklist.turn_status == "failed" and "exited unexpectedly" in checklist.error
    assert controls.status == "failed"
    assert server.pid not in live_process_groups() and live_members(server.pid) == []


@pytest.mark.requires_codex
async def test_close_ends_the_process_group(tmp_path: Path) -> None:
    async with real_codex([], tmp_path / "home") as (server, _srv):
        pgid = server.pid
        assert pgid in live_members(pgid)
        assert pgid in live_process_groups()
    assert live_members(pgid) == []
    assert pgid not in live_process_groups()


@pytest.mark.requires_codex
async def test_json_rpc_errors_quote_the_server_and_timeouts_are_clear(tmp_path: Path) -> None:
    async with real_codex([], tmp_path / "home") as (server, _srv):
        with pytest.raises(cx.app_server.AppServerRpcError, match="rejected thread/resume: .*no rollout found") as info:
            await server.resume_thread("01a230d5-0000-7000-8000-000000000000")
        assert info.value.code and "no rollout found" in info.value.server_message
        with pytest.raises(cx.app_server.AppServerTimeout, match="did not answer thread/start within"):
            await server.request("thread/start", {"cwd": str(tmp_path)}, timeout=1e-6)
        with pytest.raises(cx.app_server.AppServerProtocolError, match="turn/start params breaks TurnStartParams"):
            await server.request("turn/start", {"threadId": "x"})


@pytest.mark.requires_codex
async def test_steer_and_resume_a_saved_thread(tmp_path: Path) -> None:
    seen: list[str] = []

    def second(body: dict) -> list:
        seen.extend(json.dumps(body["input"]).split("steered text")[1:2])
        return [cx.assistant_message("steered")]

    script = [
        Stall(0.5, then=[plan_call([("a", "in_progress")], call_id="p1")]),
        second,
        [cx.assistant_message("resumed")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        handle = thread.start_turn("go")
        await handle.started
        await thread.steer("steered text")
        result = await handle
        assert result.status == "completed" and seen
        again = await server.resume_thread(thread.thread_id)
        assert again is thread
        assert (await thread.start_turn("more")).status == "completed"
    with pytest.raises(cx.TurnError, match="nothing to steer"):
        await thread.steer("late")


def test_binary_resolution_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codex_nb.app_server.binary import check_version, codex_binary

    pinned = re.escape(pinned_codex_version())  # the protocol's version is the pin's (protocol.json)
    monkeypatch.setenv("CODEX_BIN", str(tmp_path / "missing"))
    with pytest.raises(
        cx.app_server.CodexBinaryError, match=f"does not exist; set CODEX_BIN.*npm install @openai/codex@{pinned}"
    ):
        codex_binary()
    old = tmp_path / "codex"
    old.write_text("#!/bin/sh\necho 'codex-cli 0.100.0'\n")
    old.chmod(old.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CODEX_BIN", str(old))
    with pytest.raises(
        cx.app_server.CodexBinaryError, match=r"is Codex 0.100.0, older than the releases codex_nb supports"
    ):
        check_version(codex_binary())


@pytest.mark.requires_codex
async def test_a_project_hook_keeps_codexs_project_source(tmp_path: Path) -> None:
    """Codex reports a trusted project's hook with ``source: "project"``: the event says so too
    (it used to read every non-sessionFlags source as ``user``)."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / ".codex").mkdir()
    hook = {"matcher": "update_plan", "hooks": [{"type": "command", "command": "echo '{}'"}]}
    (repo / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    home.mkdir()
    project = f'\n[projects.{json.dumps(str(repo.resolve()))}]\ntrust_level = "trusted"\n'
    async with real_codex([], home, extra_toml=project) as (server, _srv):
        listed = (await server.request("hooks/list", {"cwds": [str(repo)]}))["data"][0]["hooks"]
    assert [(h["source"], h["trustStatus"]) for h in listed] == [("project", "untrusted")]
    trust = project + hook_trust_toml(listed)
    script = [[plan_call([("a", "in_progress")], call_id="p1")], [cx.assistant_message("ok")]]
    async with real_codex(script, home, extra_toml=trust) as (server, _srv):
        thread = await server.start_thread(cwd=repo)
        log = RecordingSubscriber(thread)
        result = await thread.start_turn("go")
    assert result.status == "completed"
    (completed,) = log.of_type("hook_completed")
    assert completed.msg.run.source == "project"
    assert completed.msg.run.source_path == str((repo / ".codex" / "hooks.json").resolve())


@pytest.mark.requires_codex
async def test_hook_runs_become_hook_events(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    hook = {
        "matcher": "update_plan",
        "hooks": [{"type": "command", "command": "echo '{}'", "statusMessage": "checking the plan"}],
    }
    (home / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    async with real_codex([], home) as (server, _srv):  # Codex says the hook's trust key and hash
        listed = (await server.request("hooks/list", {"cwds": [str(home)]}))["data"][0]["hooks"]
    assert [h["trustStatus"] for h in listed] == ["untrusted"]
    trust = hook_trust_toml(listed)
    script = [[plan_call([("a", "in_progress")], call_id="p1")], [cx.assistant_message("ok")]]
    async with real_codex(script, home, extra_toml=trust) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        result = await thread.start_turn("go")
    assert result.status == "completed"
    started, completed = log.of_type("hook_started"), log.of_type("hook_completed")
    assert [e.msg.run.event_name for e in started + completed] == ["pre_tool_use", "pre_tool_use"]
    assert completed[0].msg.run.status == "completed" and completed[0].msg.run.status_message == "checking the plan"
    assert completed[0].msg.turn_id == result.turn_id
    types = [t for t in log.types if t in ("hook_started", "hook_completed", "plan_update")]
    assert types == ["hook_started", "hook_completed", "plan_update"]


ESCALATED = {"cmd": "touch approved.txt", "sandbox_permissions": "require_escalated", "justification": "make a file"}


async def _command_turn(
    tmp_path: Path, prepare
) -> tuple[list, cx.app_server.CodexThread, RecordingSubscriber, list[dict]]:
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("ok")]]
    async with real_codex(script, tmp_path / "home", approval_policy="on-request", sandbox_mode="workspace-write") as (
        server,
        srv,
    ):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        await prepare(thread)
        result = await thread.start_turn("make the file")
        assert result.status == "completed"
        return thread.server_requests.answered, thread, log, srv.requests


@pytest.mark.requires_codex
async def test_command_approval_is_a_prompt_answered_in_the_widget(tmp_path: Path) -> None:
    async def prepare(thread: cx.app_server.CodexThread) -> None:
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})

        def answer(event: cx.events.Event) -> None:  # what a person does when the card appears
            if event.msg.type == "exec_approval_request":
                request = thread.frontend_requests.pending[0]
                assert "run: /bin/bash -lc 'touch approved.txt'" in prompts.text()
                assert request.view()["request"]["reason"] == "make a file"
                assert prompts.receive({"kind": "answer_approval", "id": request.id, "decision": "approve"})

        thread.subscribe(answer)

    answered, _thread, log, _requests = await _command_turn(tmp_path, prepare)
    assert answered == [("item/commandExecution/requestApproval", {"decision": "accept"})]
    asked = log.of_type("exec_approval_request")[0].msg
    assert asked.command == "/bin/bash -lc 'touch approved.txt'" and asked.cwd == str(tmp_path)
    assert log.of_type("frontend_request_resolved")[0].msg.kind == "approval"
    done = [e.msg.item for e in log.of_type("item_completed") if e.msg.item["type"] == "commandExecution"]
    assert done and done[0]["status"] == "completed" and (tmp_path / "approved.txt").exists()


@pytest.mark.requires_codex
async def test_command_approval_headless_policies(tmp_path: Path) -> None:
    async def with_rule(thread: cx.app_server.CodexThread) -> None:  # the decision 0.169 offers besides accept
        thread.answer_policy = cx.AnswerPolicy.scripted(["approve_with_execpolicy_amendment"])

    answered, *_ = await _command_turn(tmp_path / "a", with_rule)
    rule = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch", "approved.txt"]}}
    assert answered == [("item/commandExecution/requestApproval", {"decision": rule})]

    async def nobody(thread: cx.app_server.CodexThread) -> None:
        return None

    answered, _thread, log, requests = await _command_turn(tmp_path / "b", nobody)
    assert answered == [("item/commandExecution/requestApproval", {"decision": "decline"})]
    assert not (tmp_path / "b" / "approved.txt").exists()
    assert any("declined" in e.msg.message for e in log.of_type("warning"))
    assert "rejected" in _outputs(requests[1], "e1")[0].lower()


@pytest.mark.requires_codex
async def test_server_request_resolved_closes_a_waiting_prompt(tmp_path: Path) -> None:
    script = [[cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")]]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})  # a person could answer: the request waits
        asked = Waiter(thread, of_type("request_user_input"))
        closed = Waiter(thread, of_type("frontend_request_resolved"))
        handle = thread.start_turn("ask", mode="plan")
        await asked.wait()
        assert len(prompts.requests) == 1
        handle.interrupt()  # Codex drops the request and says so with serverRequest/resolved
        resolved = await closed.wait()
        result = await handle
        assert prompts.requests == [] and thread.frontend_requests.pending == []
    assert resolved.msg.outcome == "cancelled"
    assert result.status == "interrupted"
    assert thread.server_requests.answered == []  # never answered twice
    assert len(thread.server_requests.closed_by_server) == 1


PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"


@pytest.mark.requires_codex
async def test_file_change_approval_shows_the_diff_and_can_be_declined(tmp_path: Path) -> None:
    script = [
        [cx.function_call("exec_command", {"cmd": f"apply_patch <<'EOF'\n{PATCH}EOF\n"}, call_id="a1")],
        [cx.assistant_message("ok")],
    ] * 2
    async with real_codex(script, tmp_path / "home", approval_policy="on-request", sandbox_mode="read-only") as (
        server,
        srv,
    ):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})

        def decline(event: cx.events.Event) -> None:
            if event.msg.type == "apply_patch_approval_request":
                request = thread.frontend_requests.pending[0]
                assert f"change: {tmp_path / 'hello.txt'}" in prompts.text()
                assert prompts.receive({"kind": "answer_approval", "id": request.id, "decision": "decline"})

        unsubscribe = thread.subscribe(decline)
        declined = await thread.start_turn("write hello.txt")
        assert not (tmp_path / "hello.txt").exists()
        unsubscribe()
        thread.answer_policy = cx.AnswerPolicy.recommended()  # approves once
        approved = await thread.start_turn("write hello.txt")
    assert declined.status == approved.status == "completed"
    asked = log.of_type("apply_patch_approval_request")[0].msg
    assert [(c.path, c.kind, c.diff) for c in asked.changes] == [(str(tmp_path / "hello.txt"), "add", "hi\n")]
    assert thread.server_requests.answered == [
        ("item/fileChange/requestApproval", {"decision": "decline"}),
        ("item/fileChange/requestApproval", {"decision": "accept"}),
    ]
    assert (tmp_path / "hello.txt").read_text() == "hi\n"
    assert "rejected" in _outputs(srv.requests[1], "a1")[0].lower()


@pytest.mark.requires_codex
async def test_config_overrides_per_server_and_per_thread(tmp_path: Path) -> None:
    from codex_nb.testing import ResponsesServer, codex_binary

    script = [[plan_call([("a", "in_progress")], call_id="p1")], [cx.assistant_message("ok")]] * 2
    env = {**os.environ, "OPENAI_API_KEY": "sk-local-test"}
    async with ResponsesServer(script) as srv:
        home = srv.write_codex_home(tmp_path / "home")  # no [tools.update_plan]: Codex 0.169 leaves it off
        async with cx.CodexAppServer(
            binary=codex_binary(), codex_home=home, env=env, validate=True, config={"tools.update_plan.enabled": True}
        ) as server:  # -c flags
            thread = await server.start_thread(cwd=tmp_path)
            assert (await thread.start_turn("go")).status == "completed" and thread.latest_plan() is not None
        async with cx.CodexAppServer(binary=codex_binary(), codex_home=home, env=env, validate=True) as server:
            thread = await server.start_thread(cwd=tmp_path, config={"tools": {"update_plan": {"enabled": True}}})
            assert (await thread.start_turn("go")).status == "completed" and thread.latest_plan() is not None
    assert [_outputs(srv.requests[i], "p1") for i in (1, 3)] == [["Plan updated"], ["Plan updated"]]


@pytest.mark.requires_codex
async def test_using_a_server_before_start_or_after_close_is_a_clear_error(tmp_path: Path) -> None:
    server = cx.CodexAppServer(codex_home=tmp_path)
    with pytest.raises(cx.app_server.AppServerError, match="not started; use `async with cx.CodexAppServer"):
        await server.start_thread(cwd=tmp_path)
    with pytest.raises(
        cx.app_server.CodexBinaryError, match=r"binary=.* is a directory, not an executable file; set CODEX_BIN"
    ):
        await cx.CodexAppServer(binary=tmp_path).start()
    async with real_codex([], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with pytest.raises(cx.TurnError, match="mode must be 'default' or 'plan'"):
            thread.start_turn("x", mode="review")
        with pytest.raises(cx.TurnError, match="takes the user's text"):
            thread.start_turn(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(cx.app_server.AppServerExited, match="codex app-server was closed"):
        thread.start_turn("after close")


async def test_a_request_that_cannot_be_read_is_declined_not_left_hanging() -> None:
    from codex_nb.app_server.server_requests import ServerRequests

    thread = StandInThread()
    requests = ServerRequests(thread)  # type: ignore[arg-type]
    requests.handle(7, "item/tool/requestUserInput", {"turnId": "t", "itemId": "q"})  # no questions: unreadable
    requests.handle(8, "item/unknown/request", {"turnId": "t"})
    await asyncio.gather(*requests.tasks)
    assert sorted(thread.server.sent, key=lambda sent: sent[0]) == [
        (7, {"answers": {}}),
        (8, -32601, "codex_nb does not handle the server request item/unknown/request"),
    ]
    warnings = [getattr(m, "message", m.type) for m in thread.events]
    assert any("could not handle item/tool/requestUserInput" in w for w in warnings)


@pytest.mark.requires_codex
async def test_the_keyboard_interrupt_during_await_stops_a_codex_turn_like_stop(tmp_path: Path) -> None:
    """A real SIGINT to the main thread while ``await handle`` waits in the loop's selector
    interrupts the turn (``turn/interrupt``) and ends the await with one ``TurnInterrupted``."""
    with previous_handler() as cancelled_cell:
        sampling = Reached()
        script = [[plan_call([("wait", "in_progress")], call_id="p1")], sampling]
        async with real_codex(script, tmp_path / "home") as (server, _srv):
            thread = await server.start_thread(cwd=tmp_path)
            handle = thread.start_turn("go")
            waiter = sigint_once(sampling.wait())
            with pytest.raises(cx.TurnInterrupted) as caught:
                await asyncio.wait_for(handle, 60)
            await waiter
            assert cancelled_cell == []  # the relay took the signal, not the previous handler
            assert caught.value.result.status == "interrupted"
            assert (await handle) is caught.value.result


def test_the_previous_pin_is_still_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a person who installed Codex 0.169 keeps a working %%codex: only what codex_nb does not read changed
    from codex_nb.app_server.binary import check_version

    older = tmp_path / "codex"
    older.write_text("#!/bin/sh\necho 'codex-cli 0.169.0'\n")
    older.chmod(older.stat().st_mode | stat.S_IEXEC)
    assert check_version(older) == "0.169.0"


@pytest.mark.requires_codex
async def test_a_start_turn_arriving_while_another_is_starting_gets_turn_error(tmp_path: Path) -> None:
    """The interleaving forced: a second ``start_turn`` comes while the first is between its check
    for a running turn and setting it (a plain check-then-set let both start)."""
    async with real_codex([[cx.assistant_message("only one")]], tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        check_open = server.check_open  # runs while the first start builds its turn
        second: list[BaseException] = []

        def another_start_now() -> None:
            server.check_open = check_open  # type: ignore[method-assign]  # once
            try:
                thread.start_turn("second")
            except cx.TurnError as err:
                second.append(err)
            check_open()

        server.check_open = another_start_now  # type: ignore[method-assign]
        handle = thread.start_turn("first")
        assert len(second) == 1 and "(starting) is still running" in str(second[0]), second
        result = await handle
        assert result.status == "completed" and thread.active_turn is None
    assert [json.dumps(r["input"]).count("second") for r in srv.requests] == [0]
