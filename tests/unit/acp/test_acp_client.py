"""The ACP client against real agents: the pinned codex-acp on the local Responses server,
and a hostile agent script (a real subprocess on the SDK) for what codex-acp never does.

Nothing here is a protocol fake: codex-acp is the npm build (Codex inside), the model is
the scripted ``ResponsesServer`` over real HTTP, and synchronisation is by events and
handshakes (a script entry that sets a ``threading.Event``), never by sleeping.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp import AcpTurnResult
from codex_nb.testing import ResponsesServer, Stall, codex_acp_binary, write_codex_acp_home

from helpers.acp_helpers import ESCALATED, PLAN_1, PLAN_2, approved_write_script, record_events
from helpers.sigint import previous_handler, sigint_once
from helpers.paths import ACP_AGENTS

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


HOSTILE = ACP_AGENTS / "hostile_agent.py"


def codex_acp(home: Path, **env: str) -> cx.AcpAgent:
    return cx.AcpAgent(codex_acp_binary(), env={"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-local", **env})


def hostile(*args: str, cancel_grace: float = 5.0, **env: str) -> cx.AcpAgent:
    return cx.AcpAgent(sys.executable, [str(HOSTILE), *args], env=env, cancel_grace=cancel_grace)


def kinds(events: list[cx.events.Event]) -> list[str]:
    return [e.msg.type for e in events]


def entered(gate: threading.Event, entry: Any) -> Any:
    """A script entry that opens ``gate`` when codex asks for it (the handshake)."""

    def answer(_body: dict[str, Any]) -> Any:
        gate.set()
        return entry

    return answer


async def wait_gate(gate: threading.Event) -> None:
    assert await asyncio.to_thread(gate.wait, 60), "codex-acp never asked the model"


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# -- codex-acp: plan, tool calls, permission, messages -------------------------------------
@pytest.mark.requires_acp_agent
async def test_codex_acp_prompt_maps_plan_tools_permission_and_message(tmp_path: Path) -> None:
    tool_done = threading.Event()
    script = approved_write_script(tool_done)
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer(script) as srv:
        async with codex_acp(write_codex_acp_home(srv, tmp_path / "home")) as agent:
            session = await agent.new_session(work)
            assert isinstance(session, cx.events.EventSource)
            seen = record_events(session, tool_done.set)
            session.answer_policy = cx.AnswerPolicy.scripted([{"permission": "Yes, proceed"}])
            result = await session.prompt("Write f.txt")
            pid = agent.pid
        assert gone(pid)
    assert result.status == "completed" and result.stop_reason == "end_turn"
    assert result.last_agent_message == "All done."
    assert (work / "f.txt").read_text() == "hi\n"  # the approval really let the command run
    order = kinds(seen)
    assert order[0] == "turn_started" and order[-1] == "turn_complete"
    assert not [e for e in seen if e.msg.type == "warning"]
    plans = [e for e in seen if e.msg.type == "plan_update"]
    assert [p.msg.model_dump(mode="json") for p in plans] == [
        {"type": "plan_update", "explanation": None, **PLAN_1},
        {"type": "plan_update", "explanation": None, **PLAN_2},
    ]
    assert [p.revision for p in plans] == [1, 2] and plans[0].msg.priorities == ("medium", "medium")
    assert session.latest_plan() is plans[-1]
    question = next(e.msg for e in seen if e.msg.type == "request_user_input")
    assert question.call_id == "x1"
    assert [o.label for o in question.questions[0].options] == [
        "Yes, proceed",
        "Yes, and don't ask again for commands that start with `/bin/bash -lc echo hi > f.txt`",
        "No, and tell Codex what to do differently",
    ]
    assert [o.description for o in question.questions[0].options] == ["allow_once", "allow_always", "reject_once"]
    asked = question.questions[0].question.splitlines()  # what it runs, not only its title
    assert asked[0] == "The agent asks for permission: echo hi > f.txt", asked
    assert "Command: /bin/bash -lc echo hi > f.txt" in asked and "OUTSIDE" not in "".join(asked), asked
    resolved = next(e.msg for e in seen if e.msg.type == "frontend_request_resolved")
    assert resolved.outcome == "policy"
    calls = [e.msg for e in seen if e.msg.type == "acp_tool_call"]
    assert [(c.phase, c.status) for c in calls] == [("started", "in_progress"), ("updated", "completed")]
    assert calls[0].title == "echo hi > f.txt" and calls[0].kind == "execute"
    items = [e.msg for e in seen if e.msg.type in ("item_started", "item_completed")]
    assert [(i.type, i.item["type"], i.item["status"], i.item["success"]) for i in items] == [
        ("item_started", "dynamicToolCall", "inProgress", None),
        ("item_completed", "dynamicToolCall", "completed", True),
    ]
    assert items[0].item["tool"] == "echo hi > f.txt" and items[0].item["arguments"]["command"][-1] == "echo hi > f.txt"
    assert [d.msg.delta for d in seen if d.msg.type == "agent_message_delta"] == ["All done."]
    assert order.index("agent_message") < order.index("turn_complete")
    assert [(r.phase, r.call_id, str(r.outcome)) for r in session.lifecycle_log] == [
        ("start", "x1", "None"),
        ("finish", "x1", "Completed{success:true}"),
    ]


async def rejected_command(tmp_path: Path, policy: Any) -> tuple[Path, list[cx.events.Event], AcpTurnResult]:
    """A prompt whose command needs approval, answered by ``policy`` (None: nobody)."""
    script = [[cx.function_call("exec_command", ESCALATED, call_id="x1")], [cx.assistant_message("ok")]]
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer(script, allow_leftover=True) as srv:
        async with codex_acp(write_codex_acp_home(srv, tmp_path / "home")) as agent:
            session = await agent.new_session(work)
            session.answer_policy = policy
            seen: list[cx.events.Event] = []
            session.subscribe(seen.append)
            result = await session.prompt("Write f.txt")
    return work, seen, result


@pytest.mark.requires_acp_agent
async def test_permission_without_anyone_to_answer_is_rejected_with_how_to(tmp_path: Path) -> None:
    work, seen, result = await rejected_command(tmp_path, None)
    assert not (work / "f.txt").exists()
    warning = next(e.msg.message for e in seen if e.msg.type == "warning")
    assert "could not be answered" in warning and "cx.PromptsWidget(session)" in warning
    assert next(e.msg.outcome for e in seen if e.msg.type == "frontend_request_resolved") == "unanswerable"
    # the agent's reject option is "abort": Codex ends the turn as aborted
    assert (result.status, result.stop_reason) == ("interrupted", "cancelled")


@pytest.mark.requires_acp_agent
async def test_deny_policy_picks_the_agents_reject_option(tmp_path: Path) -> None:
    work, seen, result = await rejected_command(tmp_path, "deny")
    assert not (work / "f.txt").exists()
    assert not [e for e in seen if e.msg.type == "warning"]
    assert next(e.msg.outcome for e in seen if e.msg.type == "frontend_request_resolved") == "policy"
    assert (result.status, result.stop_reason) == ("interrupted", "cancelled")


@pytest.mark.requires_acp_agent
async def test_cancel_mid_prompt_interrupts_and_the_session_goes_on(tmp_path: Path) -> None:
    gate = threading.Event()
    script = [entered(gate, Stall(60)), [cx.assistant_message("second prompt")]]
    with ResponsesServer(script) as srv:
        async with codex_acp(write_codex_acp_home(srv, tmp_path / "home")) as agent:
            session = await agent.new_session(tmp_path)
            seen: list[cx.events.Event] = []
            session.subscribe(seen.append)
            handle = session.prompt("take your time")
            await wait_gate(gate)
            assert session.interrupt() is True
            assert session.interrupt() is False  # a second Stop is a no-op
            result = await handle
            assert result.status == "interrupted" and result.stop_reason == "cancelled"
            assert not handle.hard_aborted  # codex-acp answered session/cancel itself
            assert kinds(seen)[-1] == "turn_aborted" and seen[-1].msg.reason == "interrupted"
            again = await session.prompt("go on")
            assert again.status == "completed" and again.last_agent_message == "second prompt"
            assert session.interrupt() is False


@pytest.mark.requires_acp_agent
async def test_codex_acp_killed_mid_prompt_fails_the_turn_with_its_stderr(tmp_path: Path) -> None:
    gate = threading.Event()
    with ResponsesServer([entered(gate, Stall(60))]) as srv:
        # a CODEX_HOME under the temp dir makes codex-acp write a warning to stderr at start
        async with codex_acp(write_codex_acp_home(srv, tmp_path / "home")) as agent:
            session = await agent.new_session(tmp_path)
            seen: list[cx.events.Event] = []
            session.subscribe(seen.append)
            handle = session.prompt("work")
            await wait_gate(gate)
            os.kill(agent.pid, signal.SIGKILL)
            result = await handle
            tail = agent.stderr_tail()
            with pytest.raises(cx.acp.AcpError, match="was killed by SIGKILL"):
                session.prompt("anyone there?")
    assert result.status == "failed" and result.stop_reason is None
    assert "was killed by SIGKILL during session/prompt" in result.error
    assert tail and tail.splitlines()[-1] in result.error
    assert kinds(seen)[-2:] == ["error", "turn_complete"]


@pytest.mark.requires_acp_agent
async def test_codex_acp_without_a_key_cannot_authenticate_and_says_how(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir()
    async with cx.AcpAgent(codex_acp_binary(), env=env, inherit_env=False) as agent:
        with pytest.raises(cx.acp.AcpAuthError) as caught:
            await agent.new_session(tmp_path)
    text = str(caught.value)
    assert "requires authentication for session/new" in text
    assert "Use OPENAI_API_KEY (openai-api-key): set OPENAI_API_KEY in AcpAgent(env=...)" in text
    assert "Login with ChatGPT (chatgpt): not supported here" in text


# -- hostile agent -------------------------------------------------------------------------
async def test_malformed_messages_are_reported_and_the_session_survives() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        result = await session.prompt("malformed")
        assert result.status == "completed" and result.last_agent_message == "still here"
        warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
        assert len(warnings) == 5 and len(agent.malformed) == 5
        assert "not JSON" in warnings[0] and "this is not json" in warnings[0]
        assert "JSON list" in warnings[1] and "JSON int" in warnings[2]
        assert "neither a request" in warnings[3] and "session/update with invalid params" in warnings[4]
        plan = session.latest_plan()
        assert plan is not None and plan.msg.plan[0].step == "survive the garbage"
        assert plan.msg.priorities == ("high",)
        again = await session.prompt("hello")
        assert again.last_agent_message == "echo: hello"


async def test_file_requests_are_confined_to_the_session_cwd(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "notes.txt").write_text("one\ntwo\nthree\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    (work / "link.txt").symlink_to(secret)
    (work / "linkdir").symlink_to(tmp_path)
    ops = [
        {"op": "read", "path": str(work / "notes.txt")},
        {"op": "read", "path": str(work / "notes.txt"), "line": 2, "limit": 1},
        {"op": "write", "path": str(work / "sub" / "new" / "out.txt"), "content": "written"},
        {"op": "read", "path": str(secret)},
        {"op": "read", "path": str(work / "link.txt")},
        {"op": "read", "path": str(work / "linkdir" / "secret.txt")},
        {"op": "read", "path": str(work / ".." / "secret.txt")},
        {"op": "read", "path": "notes.txt"},
        {"op": "read", "path": str(work / "missing.txt")},
        {"op": "write", "path": str(work / "link.txt"), "content": "overwrite"},
        {"op": "write", "path": str(tmp_path / "outside.txt"), "content": "x"},
    ]
    async with hostile() as agent:
        session = await agent.new_session(work)
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        result = await session.prompt("fs " + json.dumps({"ops": ops}))
    got = json.loads(result.last_agent_message)
    assert got[0] == {"ok": "one\ntwo\nthree\n"} and got[1] == {"ok": "two\n"} and got[2] == {"ok": None}
    assert (work / "sub" / "new" / "out.txt").read_text() == "written"
    assert "outside the session directory" in got[3]["error"]
    assert "'link.txt' is a symbolic link" in got[4]["error"]
    assert "'linkdir' is a symbolic link" in got[5]["error"]
    assert "contains '..'" in got[6]["error"]
    assert "must be absolute" in got[7]["error"]
    assert got[8]["code"] == -32002 and "no such file" in got[8]["error"]
    assert "'link.txt' is a symbolic link" in got[9]["error"]
    assert "outside the session directory" in got[10]["error"]
    assert secret.read_text() == "do not read" and not (tmp_path / "outside.txt").exists()
    refusals = [e.msg.message for e in seen if e.msg.type == "warning"]
    assert len(refusals) == 7 and all(m.startswith("refused the ACP agent's fs/") for m in refusals)


async def test_terminal_requests_are_refused_with_a_clear_error() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        result = await session.prompt("terminal")
    answer = json.loads(result.last_agent_message)
    assert answer["code"] == -32601 and "does not offer terminals" in answer["error"]


async def test_enabled_terminals_run_in_the_session_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    cases = {
        "pwd": {"command": "sh", "args": ["-c", "pwd; echo oops >&2; exit 4"], "cwd": str(tmp_path / "sub")},
        "capped": {"command": "sh", "args": ["-c", "printf 'aé%.0s' $(seq 100)"], "limit": 11},
        "killed": {"command": "sleep", "args": ["60"], "kill": True},
        "outside": {"command": "pwd", "cwd": "/"},
        "line": {"command": "echo ran > ./line.txt && cat line.txt"},  # a command line, no args: the shell runs it
    }
    got = {}
    async with cx.AcpAgent(sys.executable, [str(HOSTILE)], terminals=True) as agent:
        assert agent.info is None  # capabilities are sent at start
        session = await agent.new_session(tmp_path)
        for name, spec in cases.items():
            got[name] = json.loads((await session.prompt("terminal" + json.dumps(spec))).last_agent_message)
    assert got["pwd"]["output"] == f"{tmp_path / 'sub'}\noops\n" and got["pwd"]["exit"] == 4
    assert "unknown or released terminal" in got["pwd"]["after_release"]
    assert got["capped"]["truncated"] and got["capped"]["output"] == "éaéaéaé"[-7:]  # 11 bytes, whole characters
    assert got["killed"]["signal"] == "SIGKILL" and got["killed"]["exit"] is None
    assert "outside the session directory" in got["outside"]["error"]
    assert got["line"]["output"] == "ran\n" and got["line"]["exit"] == 0 and (tmp_path / "line.txt").is_file()


async def test_env_var_authentication_when_the_agent_demands_it() -> None:
    async with hostile("--require-auth", HOSTILE_KEY="k") as agent:
        session = await agent.new_session()
        assert (await session.prompt("hi")).last_agent_message == "echo: hi"
    async with hostile("--require-auth", HOSTILE_KEY="") as agent:
        with pytest.raises(cx.acp.AcpAuthError, match=r"Use HOSTILE_KEY \(hostile-key\): set HOSTILE_KEY"):
            await agent.new_session()


async def test_an_agent_that_ignores_cancel_is_ended_locally_after_the_grace() -> None:
    async with hostile(cancel_grace=0.5) as agent:
        session = await agent.new_session()
        seen: list[cx.events.Event] = []
        started = asyncio.Event()
        session.subscribe(seen.append)
        session.subscribe(lambda e: started.set() if e.msg.type == "acp_tool_call" else None)
        records: list[Any] = []
        session.on_lifecycle(lambda record: 1 / 0)  # a faulty observer is detached, not fatal
        session.on_lifecycle(records.append)
        handle = session.prompt("hang")
        await started.wait()
        assert session.interrupt() is True
        result = await handle
        assert result.status == "interrupted" and handle.hard_aborted and result.stop_reason is None
        assert any("did not end the prompt within 0.5 s" in e.msg.message for e in seen if e.msg.type == "warning")
        assert [(r.phase, str(r.outcome)) for r in session.lifecycle_log] == [("start", "None"), ("finish", "Aborted")]
        assert records == session.lifecycle_log
        assert any(
            "lifecycle observer" in e.msg.message and "ZeroDivisionError" in e.msg.message
            for e in seen
            if e.msg.type == "warning"
        )
        done = next(e.msg.item for e in seen if e.msg.type == "item_completed")
        assert (done["status"], done["success"]) == ("failed", None)  # a transcript shows "aborted"
        assert kinds(seen)[-1] == "turn_aborted"
        assert (await session.prompt("still there?")).last_agent_message == "echo: still there?"


async def test_stop_reasons_map_to_turn_statuses() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        got = {
            reason: await session.prompt(f"stop {reason}")
            for reason in ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
        }
    assert {r: x.status for r, x in got.items()} == {
        "end_turn": "completed",
        "max_tokens": "failed",
        "max_turn_requests": "failed",
        "refusal": "failed",
        "cancelled": "interrupted",
    }
    assert "token limit" in got["max_tokens"].error and "refused" in got["refusal"].error
    assert "limit of model requests" in got["max_turn_requests"].error


async def test_agent_exit_mid_prompt_shows_the_stderr_tail() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        result = await session.prompt("crash")
    assert result.status == "failed"
    assert "exited with code 3 during session/prompt" in result.error
    assert result.error.endswith("hostile agent: fatal error: the flux capacitor broke")


async def test_bad_calls_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(cx.acp.AcpError, match="args must be a list of strings"):
        cx.AcpAgent("x", "--flag")  # type: ignore[arg-type]
    agent = cx.AcpAgent(tmp_path / "no-such-agent")
    with pytest.raises(FileNotFoundError, match="was not found"):
        await agent.new_session(tmp_path)
    await agent.aclose()
    async with hostile() as agent:
        with pytest.raises(cx.acp.AcpError, match="does not exist"):
            await agent.new_session(tmp_path / "nope")
        session = await agent.new_session()
        handle = session.prompt("one")
        with pytest.raises(cx.acp.AcpError, match="already running"):
            session.prompt("two")
        await handle
        with pytest.raises(cx.acp.AcpError, match="cannot load sessions"):
            await agent.load_session("hostile-x")


# -- when a turn is complete ------------------------------------------------------------------
@pytest.mark.requires_acp_agent
async def test_codex_acp_command_that_outlives_the_turn_is_closed_when_the_turn_ends(tmp_path: Path) -> None:
    """codex-acp never reports the end of a command that ends after the turn did: the turn's
    result must not leave the call running forever (it did: no finish record, ever)."""
    work = tmp_path / "work"
    work.mkdir()
    fifo = work / "release"
    os.mkfifo(fifo)
    command = {
        "cmd": "read line < release; echo hi > f.txt",
        "sandbox_permissions": "require_escalated",
        "justification": "write f.txt",
        "yield_time_ms": 250,
    }
    script = [[cx.function_call("exec_command", command, call_id="x1")], [cx.assistant_message("Started it.")]]
    with ResponsesServer(script) as srv:
        async with codex_acp(write_codex_acp_home(srv, tmp_path / "home")) as agent:
            session = await agent.new_session(work)
            seen: list[cx.events.Event] = []
            session.subscribe(seen.append)
            session.answer_policy = cx.AnswerPolicy.scripted([{"permission": "Yes, proceed"}])
            try:
                result = await session.prompt("Write f.txt in the background")
            finally:
                release(fifo)
    assert result.status == "completed" and result.last_agent_message == "Started it."
    assert [(r.phase, r.call_id, str(r.outcome)) for r in session.lifecycle_log] == [
        ("start", "x1", "None"),
        ("finish", "x1", "Aborted"),
    ]
    done = [e.msg.item for e in result.events if e.msg.type == "item_completed"]
    assert [(i["id"], i["status"]) for i in done] == [("x1", "failed")]
    warning = next(e.msg.message for e in result.events if e.msg.type == "warning")
    assert "without a final status for tool call x1" in warning and "recorded as aborted" in warning


def release(fifo: Path) -> None:
    """Let a command blocked reading ``fifo`` go on (no-op if nobody reads it any more)."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return
    os.write(fd, b"go\n")
    os.close(fd)


async def test_the_last_update_before_the_prompt_response_is_in_the_turn() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        for _ in range(20):  # the SDK dispatches each notification as a task: not one may be late
            seen.clear()
            result = await session.prompt("last-update")
            calls = [(e.msg.phase, e.msg.status) for e in result.events if e.msg.type == "acp_tool_call"]
            assert calls == [("started", "in_progress"), ("updated", "completed")]
            assert result.last_agent_message == "done "
            assert kinds(seen)[-1] == "turn_complete" and not [e for e in seen if e.msg.type == "warning"]
        assert [str(r.outcome) for r in session.lifecycle_log if r.phase == "finish"] == [
            "Completed{success:true}"
        ] * 20


async def test_updates_after_the_prompt_response_belong_to_no_turn() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        late_update = asyncio.Event()
        seen = record_events(session, late_update.set)
        first = await session.prompt("late")
        await late_update.wait()  # the agent sends "LATE" and then this update, after its response
        second = await session.prompt("hello")
    assert first.last_agent_message == "answer" and second.last_agent_message == "echo: hello"
    assert [e.msg.message for e in second.events if e.msg.type == "agent_message"] == ["echo: hello"]
    assert not [e for e in second.events if e.msg.type == "acp_tool_call"]
    assert session.late_updates == 1
    warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
    assert any("after its prompt had ended" in w and "'LATE'" in w for w in warnings)
    assert [(r.phase, str(r.outcome)) for r in session.lifecycle_log] == [("start", "None"), ("finish", "Aborted")]
    late = next(e for e in seen if e.msg.type == "acp_tool_call" and e.msg.status == "completed")
    assert late.turn_id == first.turn_id  # shown with its own turn


# -- what the agent sends, bounded and never silently dropped ----------------------------------
async def test_plan_steps_with_unknown_values_are_kept_and_reported() -> None:
    async with hostile() as agent:
        session = await agent.new_session()
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        await session.prompt("badplan")
        await session.prompt("badplan")  # the same plan again: no second round of warnings
    plan = session.latest_plan().msg
    assert [(s.step, s.status) for s in plan.plan] == [
        ("fine", "completed"),
        ("blocked one", "pending"),
        ("urgent one", "pending"),
        ('{"title": "an object"}', "in_progress"),
    ]
    assert plan.priorities == ("high", "low", "medium", "medium")
    warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
    assert len(warnings) == 3 and not agent.malformed
    assert "step 2 ('blocked one'): its status blocked is not an ACP status" in warnings[0]
    assert "step 3 ('urgent one'): its priority urgent is not an ACP priority" in warnings[1]
    assert "step 4" in warnings[2] and "content was a JSON object" in warnings[2]


async def test_tool_call_records_are_capped_and_the_drops_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from codex_nb.acp import acp_session

    monkeypatch.setattr(acp_session, "RECORD_LIMIT", 5, raising=False)
    async with hostile() as agent:
        session = await agent.new_session()
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        records: list[Any] = []
        session.on_lifecycle(records.append)
        await session.prompt("flood 20")
    assert len(session.tool_calls) == 5 and sorted(session.tool_calls) == [f"flood-{i}" for i in range(15, 20)]
    assert len(session.lifecycle_log) == 5 and session.lifecycle_log == records[-5:]
    assert len(records) == 40  # observers see every record
    assert session.records_dropped == 15 + 35
    assert len([e for e in seen if e.msg.type == "warning" and "records_dropped" in e.msg.message]) == 1


async def test_updates_for_unknown_sessions_are_bounded_and_counted() -> None:
    from codex_nb.acp import client

    async with hostile() as agent:
        MAX_EARLY_SESSIONS = getattr(client, "MAX_EARLY_SESSIONS", 16)
        session = await agent.new_session()
        await session.prompt("ghosts 100")
        assert len(agent._client.early_updates) == MAX_EARLY_SESSIONS
        assert agent.dropped_updates == 100 - MAX_EARLY_SESSIONS


# -- file requests are untrusted -----------------------------------------------------------------
async def test_file_requests_refuse_fifos_hard_links_and_oversized_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codex_nb.acp import fs as files

    monkeypatch.setattr(files, "MAX_WRITE_BYTES", 10, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    os.mkfifo(work / "pipe")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    os.link(outside, work / "hard.txt")
    ops = [
        {"op": "read", "path": str(work / "pipe")},
        {"op": "write", "path": str(work / "pipe"), "content": "x"},
        {"op": "read", "path": str(work / "hard.txt")},
        {"op": "write", "path": str(work / "hard.txt"), "content": "gone"},
        {"op": "write", "path": str(work / "big.txt"), "content": "x" * 11},
        {"op": "write", "path": str(work / "ok.txt"), "content": "x" * 10},
        {"op": "read", "path": f"/proc/self/root{work}/ok.txt"},
        {"op": "read", "path": str(work)},
    ]
    done = threading.Event()

    def unblock() -> None:
        # Before the fix the kernel's loop blocked in open() of the FIFO: this lets the test
        # fail instead of hanging (opening the write end ends a blocked reader's open).
        if not done.wait(30):
            release(work / "pipe")
            with open(work / "pipe", "rb", buffering=0) as reader:  # ends a blocked writer's open
                reader.read(1)

    watchdog = threading.Thread(target=unblock, daemon=True)
    watchdog.start()
    try:
        async with hostile() as agent:
            session = await agent.new_session(work)
            result = await session.prompt("fs " + json.dumps({"ops": ops}))
    finally:
        done.set()
        watchdog.join()
    got = json.loads(result.last_agent_message)
    assert "not a regular file (a FIFO (named pipe))" in got[0]["error"] and "not a regular file" in got[1]["error"]
    assert "2 hard links" in got[2]["error"] and "2 hard links" in got[3]["error"]
    assert outside.read_text() == "keep me"
    assert "more than this client writes at once" in got[4]["error"] and not (work / "big.txt").exists()
    assert got[5] == {"ok": None} and (work / "ok.txt").read_text() == "x" * 10
    assert "outside the session directory" in got[6]["error"]
    assert "the session directory itself" in got[7]["error"]


async def test_file_reads_run_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codex_nb.acp import fs as files

    (tmp_path / "a.txt").write_text("text")
    loop_threads: list[bool] = []

    def spy(real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                asyncio.get_running_loop()
                loop_threads.append(True)
            except RuntimeError:
                loop_threads.append(False)
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(files.ConfinedFiles, "read", spy(files.ConfinedFiles.read))
    monkeypatch.setattr(files.ConfinedFiles, "write", spy(files.ConfinedFiles.write))
    ops = [
        {"op": "read", "path": str(tmp_path / "a.txt")},
        {"op": "write", "path": str(tmp_path / "b.txt"), "content": "b"},
    ]
    async with hostile() as agent:
        session = await agent.new_session(tmp_path)
        got = json.loads((await session.prompt("fs " + json.dumps({"ops": ops}))).last_agent_message)
    assert got == [{"ok": "text"}, {"ok": None}] and loop_threads == [False, False]


async def test_a_prompt_that_ended_is_not_the_active_turn_and_new_controls_show_no_running_turn() -> None:
    """Every event source answers ``active_turn`` None once its turn is done: TurnControls made
    for an ACP session after a prompt ended showed that prompt as running, with a Stop button."""
    async with hostile() as agent:
        session = await agent.new_session()
        handle = session.prompt("stop end_turn")
        assert session.active_turn is handle
        await handle
        assert session.active_turn is None
        controls = cx.TurnControls(session)
        try:
            assert controls.text() == "Turn: no turn yet" and not controls.stoppable
            assert session.interrupt() is False
        finally:
            controls.close()


async def test_the_keyboard_interrupt_during_await_stops_an_acp_prompt_like_stop() -> None:
    """The kernel's interrupt button (a real SIGINT to the main thread, where the loop waits in
    its selector) during ``await handle`` sends ``session/cancel``; an agent that ignores it is
    ended locally after ``cancel_grace``, and the await ends with one ``TurnInterrupted``."""
    with previous_handler() as cancelled_cell:
        async with hostile(cancel_grace=0.5) as agent:
            session = await agent.new_session()
            running = asyncio.Event()
            session.subscribe(lambda e: e.msg.type == "acp_tool_call" and running.set())
            handle = session.prompt("hang")
            waiter = sigint_once(running.wait())
            with pytest.raises(cx.TurnInterrupted) as caught:
                await asyncio.wait_for(handle, 30)
            await waiter
            assert cancelled_cell == []  # the relay took the signal, not the previous handler
            assert caught.value.result.status == "interrupted" and handle.hard_aborted
            assert (await handle) is caught.value.result


@pytest.mark.requires_acp_agent
async def test_a_prompt_arriving_while_another_is_starting_is_refused(tmp_path: Path) -> None:
    """The interleaving forced: a second ``start_turn`` comes while the first is between its check
    for a running prompt and setting it (a plain check-then-set let both start)."""
    with ResponsesServer([[cx.assistant_message("only one")]]) as srv:
        async with codex_acp(write_codex_acp_home(srv, tmp_path / "home")) as agent:
            session = await agent.new_session(tmp_path)
            require_running = agent._require_running  # runs while the first start builds its turn
            second: list[BaseException] = []

            def another_start_now() -> None:
                agent._require_running = require_running  # type: ignore[method-assign]  # once
                try:
                    session.start_turn("second")
                except cx.acp.AcpError as err:
                    second.append(err)
                require_running()

            agent._require_running = another_start_now  # type: ignore[method-assign]
            handle = session.start_turn("first")
            assert len(second) == 1 and "already running" in str(second[0]), second
            result = await handle
            assert result.status == "completed" and result.last_agent_message == "only one"
    assert len(srv.requests) == 1
