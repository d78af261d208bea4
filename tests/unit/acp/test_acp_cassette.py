"""``AcpAgent(cassette=...)``: record the real codex-acp (and a scripted agent's file requests)
once, then replay the conversation with no agent process: the same events, the same
permission answer from the same policy, the client's file service on this run's folder; a
different answer is a ``CassetteMismatch`` naming the cassette line."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.testing import ResponsesServer, codex_acp_binary, write_codex_acp_home

from helpers.acp_helpers import approved_write_script, record_events
from helpers.paths import ACP_AGENTS

KEY = "sk-local-acp-key-0123456789abcdef"


@pytest.fixture
def temp_dirs():
    """Folders as a notebook makes them (``tempfile.mkdtemp``): a new random name on every run."""
    made: list[Path] = []

    def make(prefix: str) -> Path:
        made.append(Path(tempfile.mkdtemp(prefix=prefix)))
        return made[-1]

    yield make
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


def _summary(seen: list[cx.events.Event], work: Path) -> list[tuple]:
    """The events a notebook shows; the session folder (a new one each run) as ``<work>``."""
    out: list[tuple] = []
    for event in seen:
        msg = event.msg
        if msg.type == "plan_update":
            out.append(("plan", event.revision, json.dumps(msg.to_wire())))
        elif msg.type in ("acp_tool_call", "agent_message", "request_user_input", "frontend_request_resolved"):
            out.append((msg.type, json.dumps(msg.model_dump(mode="json"), sort_keys=True).replace(str(work), "<work>")))
        elif msg.type.startswith("turn_") or msg.type == "warning":
            out.append((msg.type, getattr(msg, "message", None)))
    return out


async def _codex_acp_session(agent: cx.AcpAgent, work: Path, answer: str, gate: threading.Event | None) -> dict:
    tool_done = threading.Event() if gate is None else gate
    session = await agent.new_session(work)
    seen = record_events(session, tool_done.set)
    session.answer_policy = cx.AnswerPolicy.scripted([{"permission": answer}])
    result = await session.prompt("Write f.txt")
    return {
        "info": (agent.info.agent_info.name, agent.info.agent_info.version),
        "result": (result.status, result.stop_reason, result.last_agent_message, result.error),
        "events": _summary(seen, work),
        "lifecycle": [(r.phase, r.call_id, str(r.outcome)) for r in session.lifecycle_log],
    }


@pytest.mark.requires_acp_agent
async def test_codex_acp_recorded_once_replays_without_the_agent(
    tmp_path: Path, temp_dirs, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool_done = threading.Event()
    script = approved_write_script(tool_done)
    cassette = tmp_path / "codex-acp.cassette.jsonl"
    with ResponsesServer(script) as srv:
        home = write_codex_acp_home(srv, temp_dirs("acp-home-"))
        env = {"CODEX_HOME": str(home), "OPENAI_API_KEY": KEY}
        async with cx.AcpAgent(codex_acp_binary(), env=env, cassette=cassette) as agent:
            assert not agent.replaying
            live = await _codex_acp_session(agent, temp_dirs("work-"), "Yes, proceed", tool_done)
    text = cassette.read_text(encoding="utf-8")
    assert KEY not in text and "acp-home-" not in text and "/work-" not in text
    assert live["result"] == ("completed", "end_turn", "All done.", None)

    monkeypatch.setenv("PATH", str(tmp_path / "no-path"))
    monkeypatch.setenv("CODEX_ACP_BIN", str(tmp_path / "no-codex-acp"))
    with pytest.raises(FileNotFoundError):
        codex_acp_binary()
    env = {"CODEX_HOME": str(temp_dirs("acp-home-")), "OPENAI_API_KEY": KEY}
    async with cx.AcpAgent("codex-acp", env=env, cassette=cassette) as agent:
        replayed = await _codex_acp_session(agent, temp_dirs("work-"), "Yes, proceed", None)
        assert agent.replaying and agent.pid is None
    assert replayed == live

    # the same cassette, another answer: the prompt fails, saying which request and both answers
    async with cx.AcpAgent("codex-acp", env=env, cassette=cassette) as agent:
        other = await _codex_acp_session(agent, temp_dirs("work-"), "No, and tell Codex what to do differently", None)
    status, _reason, _message, error = other["result"]
    assert status == "failed"
    line = next(n for n, raw in enumerate(text.splitlines(), start=1) if '"result":{"outcome":{"optionId"' in raw)
    assert f"{cassette}, line {line}:" in error
    assert "answer to the server request session/request_permission" in error
    assert '"optionId": "approved"' in error and '"optionId": "abort"' in error  # recorded, then answered
    assert "record_mode='all'" in error


async def test_file_requests_replay_against_this_runs_session_folder(
    tmp_path: Path, temp_dirs, no_leaked_tasks: None
) -> None:
    """The agent's fs/read_text_file names the recorded folder; the replay serves it from this run's."""
    cassette = tmp_path / "fs.cassette.jsonl"
    hostile = [sys.executable, str(ACP_AGENTS / "hostile_agent.py")]

    async def run(command: list[str]) -> tuple[str | None, Path]:
        work = temp_dirs("work-")
        (work / "notes.txt").write_text("one\ntwo\n")
        ops = [
            {"op": "read", "path": str(work / "notes.txt")},
            {"op": "write", "path": str(work / "out.txt"), "content": "w"},
        ]
        async with cx.AcpAgent(command[0], command[1:], cassette=cassette) as agent:
            session = await agent.new_session(work)
            result = await session.prompt("fs " + json.dumps({"ops": ops}))
        return result.last_agent_message, work

    live, _ = await run(hostile)
    replayed, work = await run(["no-such-agent"])
    assert replayed == live and json.loads(live)[0] == {"ok": "one\ntwo\n"}
    assert (work / "out.txt").read_text() == "w"  # the client's side of the replay really ran
