"""An ACP agent's notices, context compactions, session title and subagents reach the session, the
transcript (live and saved text) and the timeline; ``session/close`` is sent when the agent offers it,
within a time budget. Against a real subprocess (``tests/acp_agents/notices_agent.py``) sending the
shapes codex-acp 2.6 sends (its ``createSessionNotice``, ``createCompactionUpdate`` and
``subagent_update`` calls)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.widgets.transcript_state import TranscriptState
from helpers.paths import ACP_AGENTS

# real processes: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow

AGENT = ACP_AGENTS / "notices_agent.py"
TIMEOUT = 30
CHILD = "child-1"

SCRIPT: list[Any] = [
    [None, {"sessionUpdate": "session_info_update", "title": "Fix   the\nparser"}],
    [None, {"sessionUpdate": "notice", "severity": "warning", "title": "Configuration warning", "description": "x"}],
    [None, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}],
    [None, {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": {"type": "text", "text": "Kept: "}}],
    [None, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed",
            "summary": [{"type": "text", "text": "the plan"}]}],
    [None, {"sessionUpdate": "subagent_update", "sessionId": CHILD, "capabilities": {}, "title": "Explorer"}],
    [CHILD, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read parser.py", "status": "pending"}],
    [CHILD, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Found "}}],
    [CHILD, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "the bug"}}],
    [None, {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": "idle"}}],
]  # fmt: skip


def agent(*args: str) -> cx.AcpAgent:
    return cx.AcpAgent(sys.executable, [str(AGENT), *args], cancel_grace=5.0)


async def run(acp: cx.AcpAgent, script: list[Any]) -> tuple[Any, Any, list[Any]]:
    session = await acp.new_session()
    seen: list[Any] = []
    session.subscribe(lambda e: seen.append(e))
    result = await asyncio.wait_for(session.prompt(json.dumps(script)), TIMEOUT)
    return session, result, seen


async def test_notices_compaction_title_and_subagents_reach_session_transcript_and_timeline(tmp_path: Path) -> None:
    log = tmp_path / "closed.txt"
    async with agent("--log", str(log)) as acp:
        session = await acp.new_session()
        offered = acp.info.field_meta["offered"]
        assert offered["session"] == {"notices": {}, "compaction": {}} and offered["subagents"] == {}
        timeline = cx.PlanTimeline(session)
        transcript = TranscriptState()
        session.subscribe(transcript.apply)
        result = await asyncio.wait_for(session.prompt(json.dumps(SCRIPT)), TIMEOUT)
        assert result.status == "completed"
        assert session.title == "Fix the parser"
        assert [(n.severity, n.title, n.description) for n in session.notices] == [
            ("warning", "Configuration warning", "x")
        ]
        assert (session.compactions["c1"].status, session.compactions["c1"].summary) == ("completed", "Kept: the plan")
        child = session.subagents[CHILD]
        assert (child.name, child.state, child.tool_calls, child.messages, child.last_message, child.last_tool) == (
            "Explorer", "idle", 1, 1, "Found the bug", "Read parser.py"
        )  # fmt: skip
        # the subagent's own updates are not this session's: no tool call of its, no message of its
        assert "t1" not in session.tool_calls and result.last_agent_message == "done"
        assert [(r.kind, r.title, r.status) for r in timeline.notices] == [
            ("notice", "Configuration warning", "warning"),
            ("compaction", "Context compaction", "completed"),
            ("subagent", "Explorer", "idle"),
        ]
        exported = timeline.to_dict()["notices"]
        assert [(n["kind"], n["key"], n["text"]) for n in exported] == [
            ("notice", "0", "x"),
            ("compaction", "c1", "Kept: the plan"),
            ("subagent", CHILD, "1 tool call(s), 1 message(s): Found the bug"),
        ]
        await session.aclose()
        assert session.closed and session.session_id not in acp.sessions
    assert log.read_text().split() == [session.session_id]  # closed once: aclose of the agent sent no second one
    assert [line for line in transcript.text().splitlines() if not line.startswith("you: ")] == [
        "Transcript: completed · Fix the parser",
        "notice Configuration warning (warning): x",
        "context compaction [completed]: Kept: the plan",
        "subagent Explorer [idle]: 1 tool call(s); 1 message(s); last tool: Read parser.py · Found the bug",
        "assistant: done",
    ]


async def test_malformed_updates_are_one_line_warnings_and_everything_is_bounded() -> None:
    script: list[Any] = [
        [None, {"sessionUpdate": "notice", "severity": "info"}],
        [None, {"sessionUpdate": "compaction_update", "status": "completed"}],
        [None, {"sessionUpdate": "compaction_summary_chunk", "compactionId": "nope", "content": {"type": "text", "text": "x"}}],
        [None, {"sessionUpdate": "subagent_update", "title": "no id"}],
        [None, {"sessionUpdate": "notice", "severity": "info", "title": "T" * 5000, "description": "d" * 50_000}],
        [None, {"sessionUpdate": "session_info_update", "title": "t" * 5000}],
        *[[None, {"sessionUpdate": "subagent_update", "sessionId": f"s{i}"}] for i in range(105)],
    ]  # fmt: skip
    async with agent() as acp:
        session, result, seen = await run(acp, script)
    assert result.status == "completed" and session.malformed_updates == 4
    warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
    assert all("\n" not in w for w in warnings)
    assert warnings[:4] == [
        "the ACP agent sent a notice without a title (a non-empty string) was dropped",
        "the ACP agent sent a compaction_update without a compactionId (a string) was dropped",
        "the ACP agent sent a compaction_summary_chunk of no compaction it announced, or without text; dropped",
        "the ACP agent sent a subagent_update without a sessionId (a string) was dropped",
    ]
    notice = session.notices[-1]
    assert len(notice.title) < 300 and notice.description is not None and len(notice.description) < 2100
    assert session.title is not None and len(session.title) < 300
    assert len(session.subagents) == 100 and session.subagents_dropped == 5
    assert any("more than 100 subagents" in w for w in warnings)


async def test_session_close_is_sent_only_when_offered_and_a_hung_agent_does_not_hang_it(tmp_path: Path) -> None:
    log = tmp_path / "closed.txt"
    async with agent("--no-close", "--log", str(log)) as acp:
        session = await acp.new_session()
        await session.aclose()
    assert not log.exists()  # not offered: not sent

    async with agent("--hang-close", "--log", str(log)) as acp:
        session = await acp.new_session()
        seen: list[Any] = []
        session.subscribe(lambda e: seen.append(e.msg))
        started = time.monotonic()
        await session.aclose(timeout=0.5)
        assert time.monotonic() - started < 5
        assert session.closed
    assert log.read_text().split() == [session.session_id]
    assert [m.message for m in seen if m.type == "warning"] == [
        f"the ACP agent was told to close session {session.session_id}, but it did not answer within 0.5 s; closed here"
    ]


async def test_a_cassette_records_and_replays_session_close(tmp_path: Path) -> None:
    cassette = tmp_path / "close.jsonl"
    log = tmp_path / "closed.txt"
    script = [[None, {"sessionUpdate": "notice", "severity": "info", "title": "Model rerouted"}]]
    async with cx.AcpAgent(sys.executable, [str(AGENT), "--log", str(log)], cassette=cassette) as acp:
        _session, recorded, _ = await run(acp, script)
    assert "session/close" in cassette.read_text()
    async with cx.AcpAgent("notices-agent-not-installed", cassette=cassette, record_mode="none") as replay:
        session, replayed, _ = await run(replay, script)
    assert [n.title for n in session.notices] == ["Model rerouted"]
    assert log.read_text().split() == [_session.session_id]  # the replay reached no agent
    assert replayed.status == recorded.status == "completed"


def test_an_untitled_subagent_is_named_by_the_last_part_of_its_id() -> None:
    """codex-acp 2.6 titles no spawn_agent subagent and ids it ``<parent>:subagent:<thread>``: the name
    is the thread id, not "subagent <id>" (the transcript's entry already says "subagent <name>")."""
    from codex_nb.acp import unstable_updates

    update = {"sessionUpdate": "subagent_update", "sessionId": "p-1:subagent:t-9", "description": "Count"}
    event, problem = unstable_updates.subagent(update, None)
    assert problem is None and event is not None
    assert (event.name, event.description, event.session_id) == ("t-9", "Count", "p-1:subagent:t-9")
    titled, _ = unstable_updates.subagent({"sessionId": "p-1:subagent:t-9", "title": "Explorer"}, event)
    assert titled is not None and titled.name == "Explorer"
    long_name, _ = unstable_updates.subagent({"sessionId": "x" * 200}, None)
    assert long_name is not None and long_name.name.startswith("x" * 40 + "...")
    assert long_name.session_id == "x" * 200


def test_an_id_too_long_to_keep_whole_is_dropped_not_cut() -> None:
    """Entries are found by their id: one cut to fit would never match the agent's next update of it
    (nor a subagent's own requests), so an id past MAX_ID is a malformed update."""
    from codex_nb.acp import unstable_updates

    long = "x" * (unstable_updates.MAX_ID + 1)
    event, problem = unstable_updates.subagent({"sessionId": long}, None)
    assert event is None and problem is not None and "sessionId is over" in problem
    compaction, problem = unstable_updates.compaction({"compactionId": long, "status": "running"}, "")
    assert compaction is None and problem is not None and "compactionId is over" in problem
