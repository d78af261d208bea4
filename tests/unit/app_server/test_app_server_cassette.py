"""``CodexAppServer(cassette=...)``: record the real Codex (the pinned binary) against a local Responses
server once, then replay the conversation with no binary anywhere: same events, items and
answers; a different answer or request is a ``CassetteMismatch`` naming the cassette line."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.errors import CassetteError
from codex_nb.app_server import binary as binary_module
from codex_nb.cassettes.rpc_cassette import CassetteMismatch
from codex_nb.testing import RecordingSubscriber, ResponsesServer, Stall

from helpers.app_server_helpers import PLAN_TOOLS, SCOPE_QUESTION, Waiter, plan_call

SECRET = "tok-0123456789abcdefSECRET"


def _script() -> list:
    return [
        [plan_call([("read", "in_progress"), ("write", "pending")], call_id="p1")],
        [plan_call([("read", "completed"), ("write", "completed")], call_id="p2", explanation="done")],
        [cx.assistant_message("Planned.")],
        [cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")],
        [cx.assistant_message("Small it is.")],
        [plan_call([("wait", "in_progress")], call_id="p3")],
        Stall(120),  # the model "thinks" until the Stop below
    ]


def _summary(log: RecordingSubscriber) -> list[tuple]:
    """What a notebook shows of a thread's events (ids and times are the recording's, so they match too)."""
    out: list[tuple] = []
    for event in log.events:
        msg = event.msg
        if msg.type == "plan_update":
            out.append(("plan", event.revision, json.dumps(msg.to_wire(), sort_keys=True)))
        elif msg.type in ("agent_message", "turn_complete", "turn_started", "turn_aborted", "request_user_input"):
            out.append((msg.type, json.dumps(msg.model_dump(mode="json"), sort_keys=True)))
    return out


async def _session(
    cassette: Path, home: Path, work: Path, *, first: str = "make a plan", answer: str = "Small (Recommended)"
) -> dict:
    env = {**os.environ, "OPENAI_API_KEY": "sk-local-test-key-0123456789", "MY_SERVICE_TOKEN": SECRET}
    async with cx.CodexAppServer(codex_home=home, env=env, cassette=cassette, validate=True) as server:
        thread = await server.start_thread(cwd=work)
        thread.answer_policy = cx.AnswerPolicy.scripted([{"scope": answer}])
        log = RecordingSubscriber(thread)
        results = [await thread.start_turn(f"{first} (token {SECRET})")]
        results.append(await thread.start_turn("ask me", mode="plan"))
        waiting = Waiter(thread, lambda e: e.msg.type == "plan_update" and e.msg.plan[0].step == "wait")
        handle = thread.start_turn("wait for me")
        await waiting.wait()
        assert handle.interrupt()
        results.append(await handle)
        rollout = cx.read_rollout(thread.path)
    return {
        "version": server.version,
        "replaying": server.replaying,
        "statuses": [r.status for r in results],
        "errors": [r.error for r in results],
        "items": [r.items for r in results],
        "events": _summary(log),
        "answered": thread.server_requests.answered,
        "rollout": [t.status for t in rollout.turns],
    }


def _temp_dir(prefix: str, made: list[Path]) -> Path:
    """A folder as a notebook makes it (``tempfile.mkdtemp``): a new random name on every run."""
    made.append(Path(tempfile.mkdtemp(prefix=prefix)))
    return made[-1]


@pytest.fixture
def temp_dirs():
    made: list[Path] = []
    yield lambda prefix: _temp_dir(prefix, made)
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """One live session against the real binary, recorded (each test replays a copy). Only tests
    marked ``requires_codex`` use it, and the marker skips them first where the binary is missing."""
    cassette = tmp_path_factory.mktemp("recorded") / "codex.cassette.jsonl"
    made: list[Path] = []

    async def record() -> dict:
        async with ResponsesServer(_script(), allow_leftover=True) as srv:
            home = _temp_dir("codex-home-", made)
            srv.write_codex_home(home, **PLAN_TOOLS)
            return await _session(cassette, home, _temp_dir("work-", made))

    try:
        live = asyncio.run(record())
    finally:
        for path in made:
            shutil.rmtree(path, ignore_errors=True)
    return cassette, live


@pytest.fixture
def copy(recorded: tuple[Path, dict], tmp_path: Path) -> Path:
    target = tmp_path / "codex.cassette.jsonl"
    shutil.copyfile(recorded[0], target)
    return target


@pytest.fixture
def no_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Codex can be found: CODEX_BIN unset, the pinned install and PATH pointed away."""
    monkeypatch.delenv("CODEX_BIN", raising=False)
    monkeypatch.setenv("CODEX_NB_CODEX_REF", str(tmp_path / "no-codex-ref"))
    monkeypatch.setattr(binary_module, "_CHECKOUT", tmp_path / "no-checkout")
    monkeypatch.setenv("PATH", str(tmp_path / "no-path"))
    with pytest.raises(cx.app_server.CodexBinaryError):
        binary_module.codex_binary()


@pytest.mark.requires_codex
async def test_a_recorded_session_replays_identically_without_the_binary(
    recorded: tuple[Path, dict], copy: Path, temp_dirs, no_binary: None, no_leaked_tasks: None
) -> None:
    cassette, live = recorded
    text = cassette.read_text(encoding="utf-8")
    assert SECRET not in text and "sk-local-test-key-0123456789" not in text
    assert tempfile.gettempdir() + "/work-" not in text and "codex-home-" not in text  # placeholders
    assert live["statuses"] == ["completed", "completed", "interrupted"]
    assert live["rollout"] == ["completed", "completed", "interrupted"]
    # a new CODEX_HOME (its config is never read) and work folder, as a notebook run in CI makes them
    replayed = await _session(copy, temp_dirs("codex-home-"), temp_dirs("work-"))
    assert replayed["replaying"] and replayed["version"] == live["version"]  # the recorded binary's
    assert {**replayed, "replaying": False} == live


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if needle in line)


@pytest.mark.requires_codex
async def test_a_different_answer_to_a_replayed_question_fails_the_turn_saying_what_differs(
    copy: Path, temp_dirs, no_binary: None
) -> None:
    env = {**os.environ, "MY_SERVICE_TOKEN": SECRET}
    async with cx.CodexAppServer(codex_home=temp_dirs("h-"), env=env, cassette=copy) as server:
        thread = await server.start_thread(cwd=temp_dirs("w-"))
        thread.answer_policy = cx.AnswerPolicy.scripted([{"scope": "Large"}])
        assert (await thread.start_turn(f"make a plan (token {SECRET})")).status == "completed"
        result = await thread.start_turn("ask me", mode="plan")
        with pytest.raises(cx.app_server.AppServerExited, match="cassette"):
            thread.start_turn("wait for me")
    assert result.status == "failed"
    line = _line_of(copy, '{"send":{"jsonrpc":"2.0","id":0,"result"')
    assert f"{copy}, line {line}:" in result.error
    assert "answer to the server request item/tool/requestUserInput (JSON-RPC id 0)" in result.error
    assert '"Small (Recommended)"' in result.error and '"Large"' in result.error  # recorded, then answered
    assert "record_mode='all'" in result.error


@pytest.mark.requires_codex
async def test_a_different_request_is_a_mismatch_with_a_diff(copy: Path, temp_dirs, no_binary: None) -> None:
    async with cx.CodexAppServer(codex_home=temp_dirs("h-"), cassette=copy) as server:
        thread = await server.start_thread(cwd=temp_dirs("w-"))
        with pytest.raises(CassetteMismatch) as caught:
            await thread.start_turn("something else entirely")
    err = caught.value
    assert err.line == _line_of(copy, '"method":"turn/start"') and err.path == copy
    assert "codex_nb's turn/start request differs from the recorded one" in str(err)
    assert '-        "text": "make a plan (token ***)"' in str(err)
    assert '+        "text": "something else entirely"' in str(err)


def test_bad_cassettes_are_errors_naming_the_line(tmp_path: Path) -> None:
    good = '{"codex_nb_cassette":1,"kind":"jsonrpc","codex_nb_version":"0.1.0"}\n{"send":{"jsonrpc":"2.0","id":1}}\n'
    cut = tmp_path / "cut.jsonl"
    cut.write_text(good + '{"recv":{"id":1,"res')
    with pytest.raises(CassetteError, match=r"truncated at line 3") as caught:
        cx.CodexAppServer(cassette=cut)
    assert caught.value.line == 3
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(good + '{"request":{"body":{}}}\n')
    with pytest.raises(CassetteError, match=r"line 3: unknown entry 'request'"):
        cx.AcpAgent("codex-acp", cassette=foreign)
    other_kind = tmp_path / "model.jsonl"
    other_kind.write_text('{"codex_nb_cassette":1,"kind":"responses","codex_nb_version":"0.1.0"}\n')
    with pytest.raises(CassetteError, match="holds a 'responses' recording, not a 'jsonrpc' one"):
        cx.CodexAppServer(cassette=other_kind)


def test_record_modes_a_conversation_cannot_take(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="record_mode='none' only replays"):
        cx.CodexAppServer(cassette=tmp_path / "missing.jsonl", record_mode="none")
    with pytest.raises(CassetteError, match="new_episodes.*cannot do"):
        cx.CodexAppServer(cassette=tmp_path / "missing.jsonl", record_mode="new_episodes")
    with pytest.raises(cx.ConfigError, match="record_mode must be one of"):
        cx.AcpAgent("codex-acp", cassette=tmp_path / "x.jsonl", record_mode="sometimes")


ESCALATED = {"cmd": "touch approved.txt", "sandbox_permissions": "require_escalated", "justification": "make a file"}


async def _approval_turn(cassette: Path, home: Path, work: Path, decision: str) -> tuple[Any, list, list[str]]:
    """A command approval answered in the prompts widget, as a person does when its card appears."""
    async with cx.CodexAppServer(codex_home=home, cassette=cassette, env=dict(os.environ)) as server:
        thread = await server.start_thread(cwd=work)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})
        shown: list[str] = []

        def answer(event: cx.events.Event) -> None:
            if event.msg.type == "exec_approval_request":
                request = thread.frontend_requests.pending[0]
                shown.append(prompts.text())
                assert prompts.receive({"kind": "answer_approval", "id": request.id, "decision": decision})

        thread.subscribe(answer)
        result = await thread.start_turn("make the file")
    return result, thread.server_requests.answered, shown


@pytest.mark.requires_codex
async def test_an_approval_replays_through_the_widget_and_another_decision_is_a_mismatch(
    tmp_path: Path, temp_dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "approval.cassette.jsonl"
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("ok")]]
    async with ResponsesServer(script) as srv:
        home = temp_dirs("codex-home-")
        srv.write_codex_home(home, approval_policy="on-request", sandbox_mode="workspace-write")
        work = temp_dirs("work-")
        live, live_answers, live_shown = await _approval_turn(cassette, home, work, "approve")
    assert live.status == "completed" and (work / "approved.txt").exists()
    assert live_answers == [("item/commandExecution/requestApproval", {"decision": "accept"})]

    monkeypatch.setenv("CODEX_BIN", str(tmp_path / "no-codex"))  # any lookup of a binary fails
    work = temp_dirs("work-")
    replayed, answers, shown = await _approval_turn(cassette, temp_dirs("codex-home-"), work, "approve")
    assert replayed.status == "completed" and replayed.items == live.items and answers == live_answers
    assert len(shown) == len(live_shown) == 1 and "touch approved.txt" in shown[0]  # the same card, in the widget
    assert not (work / "approved.txt").exists()  # a replay runs nothing: Codex ran the command when recording

    declined, _answers, _shown = await _approval_turn(cassette, temp_dirs("codex-home-"), temp_dirs("work-"), "decline")
    assert declined.status == "failed"
    assert "answer to the server request item/commandExecution/requestApproval" in declined.error
    assert 'recorded {"decision": "accept"}, answered now {"decision": "decline"}' in declined.error
