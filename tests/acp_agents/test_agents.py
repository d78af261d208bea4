"""One suite over the pinned ACP agents of four vendors (``.ci/acp-agents``), each run offline
against the stand-in of the model API it speaks: codex-acp (Responses API), Claude Code
(Anthropic Messages), Gemini CLI (Gemini ``streamGenerateContent``), Qwen Code (Responses API,
one of the several it speaks).

Each check is written once; where an agent differs, ``EXPECTED`` names the difference and the
test asserts it (so a new agent release that changes it fails here). ``CODEX_NB_AGENT_REPORT``
names a JSON file the facts are appended to: ``docs/agents.md`` is written from it
(``python tests/acp_agents/compatibility_page.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp import AcpError, quirks
from codex_nb.testing.acp_agents import ACP_AGENTS, acp_agent
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.transcript_state import TranscriptState

from dialects import DIALECTS, TOOL_RESULTS
from helpers.paths import outside_codex_sandbox

AGENTS = [pytest.param(name, marks=pytest.mark.requires_acp_agent(name), id=name) for name in ACP_AGENTS]
TIMEOUT = 90
SESSION_EVENTS = frozenset({"acp_session_title", "options_updated"})
"""Events about the session, which an agent may send at any time, a turn's end included."""
CANCEL_GRACE = 5.0

PLAN_1 = [("Read the code", "in_progress"), ("Write f.txt", "pending")]
PLAN_2 = [("Read the code", "completed"), ("Write f.txt", "completed")]

EXPECTED: dict[str, dict[str, Any]] = {
    "codex-acp": {
        "plan_updates": 2,
        "permission_kinds": ["allow_once", "allow_always", "reject_once"],
        "thought": False,
        "modes": {"read-only", "workspace-write", "agent", "agent-full-access"},
        "person_mode": "workspace-write",
        "session": {"load", "list", "fork", "resume"},
        "models": True,
        "stop_reason": "cancelled",
        # codex-acp 2.6 uses neither of the client's offers: Codex reads, writes (apply_patch) and
        # runs commands itself; a command's tool call only names a terminal id in its content
        "client_requests": [],
        "creates_files": True,
        # config options (session/set_config_option); Plan mode is collaboration_mode=plan, which
        # Codex tells its model in a developer message
        "options": {"mode", "collaboration_mode", "model", "reasoning_effort"},
        "plan_option": "collaboration_mode",
        "effort_option": "reasoning_effort",
        "plan_marker": "<collaboration_mode># Plan Mode",
        # Codex offers its model request_user_input in Plan mode only; codex-acp 2.6 asks the client
        # with a form elicitation (answered {"answers": {}} by itself when the client offers none)
        "question": {"plan_mode": True, "id": "q1", "model_reads": '{"answers":{"q1":{"answers":["Wide"]}}}'},
        "outside_write": {"asked": True, "status": "interrupted"},  # Codex ends the turn on a declined patch
        # codex-acp 2.6 sends compaction_update (in_progress, then completed, no summary) for its /compact
        # command to a client offering clientCapabilities.session.compaction, titles a session by its
        # first prompt (session_info_update) and offers session/close
        "compaction": {"summary": False},
        "title": "Say hello",
        "close": True,
        # codex-acp 2.6 sends subagent_update to a client offering clientCapabilities.subagents (the
        # "standard" form) for Codex's spawn_agent (multi_agent_v1, found through tool_search): no
        # title (it names one only from multi_agent_v2's agent path or a thread rename), the prompt as
        # its description; idle when its turn ends, unknown once the session closes its thread
        "subagent": {"name": None, "states": ["running", "idle", "unknown"]},
        # codex-acp 2.6 asks "Implement this plan?" (a switch_mode call, rawInput.plan) when a Plan-mode
        # turn ends with a proposed plan; approved, it sets Default mode and prompts its model itself
        "plan_review": {
            "approve": "Yes, implement this plan",
            "keep_planning": "No, and tell Codex what to do differently",
            "implements": "Implement the approved plan.",
            # kept planning, codex-acp ends the prompt as done
            "kept": "completed",
        },
    },
    "claude-agent-acp": {
        "plan_updates": 2,
        "permission_kinds": ["allow_once", "allow_always", "reject_once"],
        "thought": True,
        "modes": {"default", "acceptEdits", "plan", "auto", "bypassPermissions"},
        # the mode the suite runs in comes from CLAUDE_CONFIG_DIR's settings.json (acp_agents.py):
        # without it claude-agent-acp 0.101 starts in "auto"
        "person_mode": "default",
        "session": {"load", "list", "fork", "resume"},
        # claude-agent-acp 0.101 offers config options mode, model (the stand-in's model among
        # them), effort and ultracode
        "models": True,
        "stop_reason": "cancelled",
        # claude-agent-acp 0.101 uses neither of the client's offers: Claude Code reads, writes and
        # runs commands itself (its own Read/Write/Bash; the older claude-code-acp offered mcp__acp__*
        # tools on the client's files and terminals instead)
        "client_requests": [],
        "creates_files": True,
        "options": {"mode", "model", "effort"},
        "plan_option": "mode",
        "effort_option": "effort",
        "plan_marker": "Plan mode is active",
        # claude-agent-acp 0.101 offers Claude Code's AskUserQuestion only to a client that shows form
        # elicitations (without one it is in disallowedTools); each question is a field question_<n>
        "question": {
            "plan_mode": False,
            "id": "question_0",
            "model_reads": '"Which scope should the change have?"="Wide"',
        },
        "outside_write": {"asked": True, "status": "completed"},  # the model is told and goes on
        # claude-agent-acp 0.101: Claude Code's /compact is a compaction_update with the model's summary,
        # the session is titled by its first prompt, and session/close is offered
        "compaction": {"summary": True},
        "title": "Say hello",
        "close": True,
        # claude-agent-acp 0.101 sends subagent_update to a client offering clientCapabilities.subagents
        # (the "rfd" form) for Claude Code's Agent tool: the call's description as its title, running,
        # then idle; the Agent call itself becomes session_message updates (not read by codex_nb)
        "subagent": {"name": "Count the lines", "states": ["running", "idle"]},
        # claude-agent-acp 0.101 asks "Ready to code?" for ExitPlanMode (a switch_mode call with
        # rawInput.plan): several allow_always options (auto mode, clear context...), then
        # "Yes, manually approve edits" (allow_once) and "No, keep planning"
        "plan_review": {
            "approve": "Yes, manually approve edits",
            "keep_planning": "No, keep planning",
            "implements": "User has approved exiting plan mode",
            # "No, keep planning" interrupts Claude Code's turn: the prompt ends cancelled
            "kept": "interrupted",
        },
    },
    "gemini-cli": {
        # Gemini CLI 0.61 sends no ACP plan: its write_todos is a tool call ("Set 2 todo(s)", kind
        # other) that asks permission like any tool, without the todos in it
        "plan_updates": 0,
        "permission_kinds": ["allow_always", "allow_once", "reject_once"],
        "thought": True,
        "modes": {"default", "autoEdit", "yolo", "plan"},
        "person_mode": "default",
        "session": {"load"},
        "models": False,
        # Gemini CLI 0.61 does not answer session/prompt after session/cancel while its permission
        # request is pending (the client answered it "cancelled"): the turn is ended here after
        # cancel_grace, with a warning saying so
        "stop_reason": None,
        # Gemini CLI 0.61 offers loadSession, but whether a new process finds the session depends on
        # whether the first one wrote it before it was ended (seen both ways): not asserted, reported
        "load": None,
        # Gemini CLI 0.61 reads and writes through the client's fs, but runs commands itself
        "client_requests": ["fs/read_text_file", "fs/write_text_file"],
        # Gemini CLI 0.61 reads a file before writing it and only a Node error counts as "no such
        # file"; the SDK hands it the client's JSON-RPC error (-32002, "Resource not found") as a plain
        # object, so write_file cannot create a new file through the client (it fails the call)
        "creates_files": False,
        # Gemini CLI 0.61 offers modes only: its options are the one "mode" made of them (set_mode)
        "options": {"mode"},
        "plan_option": "mode",
        "effort_option": None,
        "plan_marker": None,
        # Gemini CLI 0.61's ACP bridge reads only the client's fs capabilities: it asks no questions
        "question": None,
        "outside_write": {"asked": False, "status": "completed"},  # "Path not in workspace": refused by itself
        # Gemini CLI 0.61 sends no notice, compaction, title nor subagent update, and offers no session/close
        "compaction": None,
        "title": None,
        "close": False,
        # Gemini CLI 0.61 has no subagent_update: its ACP bridge reads only clientCapabilities.fs
        "subagent": None,
        # Gemini CLI 0.61's exit_plan_mode names a plan *file* (in the session's plans folder, which its
        # model writes first) in the title of its request, not the plan's text: read safely
        # (acp.plan_files), it is the review's plan. "Allow" (allow_once) leaves Plan mode; "Reject"
        # (reject_once) tells its model the call was cancelled and asks it again in the same prompt
        "plan_review": {
            "approve": "Allow",
            "keep_planning": "Reject",
            "implements": "Plan approved. Switching to Default mode",
            "kept": "completed",
            "model_told": True,
        },
    },
    "qwen-code": {
        # Qwen Code 0.24 keeps its plan in todo_write (on in the suite's settings) and sends each
        # list as an ACP plan
        "plan_updates": 2,
        "permission_kinds": ["allow_always", "allow_always", "allow_once", "reject_once"],
        "thought": False,
        "modes": {"plan", "default", "auto-edit", "auto", "yolo"},
        # its own default, "auto", asks a classifier model; the suite's settings.json says "default"
        "person_mode": "default",
        "session": {"load", "list", "resume"},
        "models": True,
        "stop_reason": "cancelled",
        # Qwen Code 0.24 reads and writes through the client's fs (and creates files that way),
        # and runs commands itself
        "client_requests": ["fs/read_text_file", "fs/write_text_file"],
        "creates_files": True,
        # its modes come both ways: session/set_mode and a config option "mode"
        "options": {"mode", "model"},
        "mode_via": "config_option",
        "plan_option": "mode",
        "effort_option": None,
        "plan_marker": None,
        # Qwen Code 0.24's ACP bridge reads only the client's fs capabilities (and a _meta flag):
        # it sends no form elicitation, so it asks no questions through the client
        "question": None,
        "outside_write": {"asked": True, "status": "completed"},
        # Qwen Code 0.24 sends a session_info_update title only for a title the person set, no notice,
        # compaction or subagent update, and offers no session/close (sessionCapabilities list, resume)
        "compaction": None,
        "title": None,
        "close": False,
        # Qwen Code 0.24 has no subagent_update: its ACP bridge sends a subagent's tool calls and messages
        # as the parent session's, tagged _meta parentToolCallId and subagentType (its SubAgentTracker)
        "subagent": None,
        # Qwen Code 0.24 asks for its exit_plan_mode tool (a switch_mode call, rawInput.plan): "Yes,
        # restore previous mode (default)" (allow_once), "Yes, and auto-accept edits", "Yes, and
        # manually approve edits", "No, keep planning (esc)"
        "plan_review": {
            "approve": "Yes, restore previous mode (default)",
            "keep_planning": "No, keep planning (esc)",
            "implements": "User approved. You can now start coding.",
            "kept": "completed",
        },
    },
}


def report(agent: str, check: str, facts: dict[str, Any]) -> None:
    """Append what a check saw to ``$CODEX_NB_AGENT_REPORT`` (the compatibility page's source)."""
    path = os.environ.get("CODEX_NB_AGENT_REPORT")
    if path:
        spec = acp_agent(agent)
        line = {"agent": agent, "package": spec.package, "version": spec.version, "vendor": spec.vendor}
        line.update(check=check, **facts)
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, sort_keys=True, default=sorted) + "\n")


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def allow_once(request: Any) -> dict[str, str]:
    """The person's choice, made by option kind (each agent labels it its own way)."""
    options = request.msg.questions[0].options
    return {"permission": next(o.label for o in options if o.description == "allow_once")}


def after(gate: threading.Event, entry: list[Any]) -> Any:
    """A script entry answered once the client saw the previous tool call end (codex-acp drops a
    command's end that Codex reports after the turn completed)."""

    def answer(_body: dict[str, Any]) -> list[Any]:
        assert gate.wait(TIMEOUT), "the client never saw the command end"
        return entry

    return answer


def start(
    agent: str, script: list[Any], tmp: Path, *, cassette: Path | None = None, **options: Any
) -> tuple[Any, cx.AcpAgent]:
    spec = acp_agent(agent)
    server = spec.server(script, **options).start()
    command = spec.command()
    env = spec.env(server, tmp / "home")
    acp = cx.AcpAgent(
        command[0], command[1:], env=env, startup_timeout=60, cancel_grace=CANCEL_GRACE, cassette=cassette
    )
    return server, acp


def shown(seen: list[cx.events.Event], work: Path) -> list[tuple[str, str]]:
    """What the widgets show of a turn (the session folder as <work>), to compare a replay with its recording."""
    out = []
    for event in seen:
        msg = event.msg
        if msg.type in ("plan_update", "acp_tool_call", "agent_message", "request_user_input", "turn_complete"):
            out.append((msg.type, json.dumps(msg.model_dump(mode="json"), sort_keys=True).replace(str(work), "<work>")))
    return out


async def prompt_once(
    acp: cx.AcpAgent, server: Any, work: Path, text: str, subscriber: Any, *, mode: str | None = None
) -> tuple[Any, Any]:
    """One prompt in a new session of ``acp`` (permissions allowed once): the session and the prompt's
    result, the agent closed after it and the stand-in server checked and closed whatever happens."""
    try:
        async with acp:
            session = await acp.new_session(work)
            if mode is not None:
                await session.set_mode(mode)
            session.subscribe(subscriber)
            session.answer_policy = allow_once
            result = await asyncio.wait_for(session.prompt(text), TIMEOUT)
        server.check()
    finally:
        server.close()
    return session, result


@pytest.mark.parametrize("agent", AGENTS)
async def test_initialize_capabilities_modes_and_sessions(agent: str, tmp_path: Path) -> None:
    expected = EXPECTED[agent]
    server, acp = start(agent, [], tmp_path)
    try:
        async with acp:
            session = await acp.new_session(tmp_path)
            info = acp.info
            caps = info.agent_capabilities
            sessions = caps.session_capabilities
            offered = {"load"} if caps.load_session else set()
            offered |= {name for name in ("list", "fork", "resume") if getattr(sessions, name, None) is not None}
            modes = session.response.modes
            models = any(getattr(o, "category", None) == "model" for o in session.response.config_options or ())
            group = acp.pid  # the agent leads its own process group; its children (Codex, Claude Code) are in it
            report(
                agent,
                "initialize",
                {
                    "protocol_version": info.protocol_version,
                    "agent_info": f"{info.agent_info.name} {info.agent_info.version}",
                    "session": sorted(offered),
                    "modes": sorted(m.id for m in modes.available_modes),
                    "current_mode": modes.current_mode_id,
                    "models": models,
                },
            )
    finally:
        server.close()
    assert group is not None and group_gone(group), f"the process group of {agent} outlived aclose()"
    assert info.protocol_version == 1
    assert info.agent_info.version == acp_agent(agent).version
    assert offered == expected["session"]
    assert {m.id for m in modes.available_modes} == expected["modes"]
    # the mode the suite runs in asks the person (codex-acp's default, "agent", asks Guardian)
    assert modes.current_mode_id == expected["person_mode"]
    assert models == expected["models"]


@pytest.mark.parametrize("agent", AGENTS)
async def test_a_turn_plan_permission_tool_call_and_message(agent: str, tmp_path: Path, temp_dirs: Any) -> None:
    expected = EXPECTED[agent]
    say = DIALECTS[agent]
    done = threading.Event()
    script = [say["plan"](PLAN_1), say["command"]("echo hi > f.txt")]
    script += [after(done, say["plan"](PLAN_2)), say["text"]("All done.")]
    work = temp_dirs("work-")
    cassette = tmp_path / f"{agent}.cassette.jsonl"
    server, acp = start(agent, script, tmp_path, cassette=cassette)
    seen: list[cx.events.Event] = []

    def record(event: cx.events.Event) -> None:
        seen.append(event)
        if event.msg.type == "acp_tool_call" and event.msg.status == "completed" and "echo" in event.msg.title:
            done.set()

    session, result = await prompt_once(acp, server, work, "Write f.txt", record)
    plans = [e for e in seen if e.msg.type == "plan_update"]
    questions = [e.msg for e in seen if e.msg.type == "request_user_input"]
    kinds = [o.description for o in questions[-1].questions[0].options] if questions else []
    calls = [e.msg for e in seen if e.msg.type == "acp_tool_call"]
    command = [c for c in calls if "echo" in c.title]
    thoughts = "".join(e.msg.delta for e in seen if e.msg.type == "agent_reasoning_delta")
    report(
        agent,
        "turn",
        {
            "status": result.status,
            "plan_updates": len(plans),
            "priorities": sorted({p for e in plans for p in e.msg.priorities}),
            # the session folder's random name (Claude Code's "allow access to work-xxxx/") as {work}
            "permission_options": [o.label.replace(work.name, "{work}") for o in questions[-1].questions[0].options]
            if questions
            else [],
            "permission_kinds": kinds,
            "command_kind": command[-1].kind if command else None,
            "tool_calls": sorted({c.title for c in calls}),
            "thought": bool(thoughts),
            "message": result.last_agent_message,
        },
    )
    assert (result.status, result.stop_reason, result.last_agent_message) == ("completed", "end_turn", "All done.")
    assert (work / "f.txt").read_text() == "hi\n"  # the person's allow really let the command run
    assert len(plans) == expected["plan_updates"]
    if plans:  # whole snapshots, each replacing the last
        assert [[(s.step, str(s.status)) for s in p.msg.plan] for p in plans] == [PLAN_1, PLAN_2]
        assert [p.revision for p in plans] == [1, 2] and session.latest_plan() is plans[-1]
    assert kinds == expected["permission_kinds"]
    assert command and command[-1].kind == "execute" and command[-1].status == "completed"
    # Qwen Code asks permission before it sends the tool call: the request names the call
    assert all(c.title for c in calls), [c.call_id for c in calls if not c.title]
    assert bool(thoughts) == expected["thought"]
    # the session's title and options are the session's, not the turn's: claude-agent-acp's title
    # came after the prompt's end in one CI run out of several, before it in the others
    types = [e.msg.type for e in seen if e.msg.type not in SESSION_EVENTS]
    assert types[0] == "turn_started" and types[-1] == "turn_complete"

    # the cassette replays the conversation with no agent process and no model server
    again = temp_dirs("work-")
    replayed: list[cx.events.Event] = []
    async with cx.AcpAgent("no-such-agent", cassette=cassette) as replay:
        session = await replay.new_session(again)
        session.subscribe(replayed.append)
        session.answer_policy = allow_once
        result = await asyncio.wait_for(session.prompt("Write f.txt"), TIMEOUT)
        assert replay.replaying and replay.pid is None
    report(agent, "cassette", {"replayed": shown(replayed, again) == shown(seen, work)})
    assert result.status == "completed" and shown(replayed, again) == shown(seen, work)


@pytest.mark.parametrize("agent", AGENTS)
async def test_stop_cancels_the_pending_permission_and_shows_no_late_update(agent: str, tmp_path: Path) -> None:
    say = DIALECTS[agent]
    script = [say["command"]("echo late > g.txt")]
    work = tmp_path / "work"
    work.mkdir()
    server, acp = start(agent, script, tmp_path, allow_leftover=True)
    asked = asyncio.Event()
    release = asyncio.Event()

    async def person(request: Any) -> dict[str, str]:  # a person who has not answered yet
        asked.set()
        await release.wait()
        return allow_once(request)

    seen: list[cx.events.Event] = []
    try:
        async with acp:
            session = await acp.new_session(work)
            session.subscribe(seen.append)
            session.answer_policy = person
            handle = session.prompt("Write g.txt")
            await asyncio.wait_for(asked.wait(), TIMEOUT)
            assert session.interrupt() is True
            result = await asyncio.wait_for(handle, TIMEOUT)
            release.set()
            after_stop = len(seen)
            late = session.late_updates
        server.check()
    finally:
        server.close()
    resolved = [e.msg.outcome for e in seen if e.msg.type == "frontend_request_resolved"]
    facts = {"status": result.status, "stop_reason": result.stop_reason, "permission": resolved}
    report(agent, "stop", {**facts, "ended_here": handle.hard_aborted})
    assert (result.status, result.stop_reason) == ("interrupted", EXPECTED[agent]["stop_reason"])
    assert handle.hard_aborted == (EXPECTED[agent]["stop_reason"] is None)
    assert resolved == ["cancelled"]
    assert not (work / "g.txt").exists()
    # the turn's last event (the session's own, such as claude-agent-acp's title, come before or after it)
    turn = [e.msg.type for e in seen[:after_stop] if e.msg.type not in SESSION_EVENTS]
    assert turn[-1] == "turn_aborted" and late == 0, turn


@pytest.mark.parametrize("agent", AGENTS)
async def test_modes_and_past_sessions_list_fork_resume_load(agent: str, tmp_path: Path) -> None:
    expected = EXPECTED[agent]
    say = DIALECTS[agent]
    offered = expected["session"]
    script = [say["text"]("first answer")] + [say["text"]("forked answer")] * ("fork" in offered)
    work = tmp_path / "work"
    work.mkdir()
    server, acp = start(agent, script, tmp_path)
    facts: dict[str, Any] = {}
    try:
        async with acp:
            session = await acp.new_session(work)
            await session.set_mode("plan" if "plan" in expected["modes"] else "read-only")
            await session.set_mode(expected["person_mode"])
            with pytest.raises(AcpError, match="offers no mode 'no-such-mode'"):
                await session.set_mode("no-such-mode")
            first = await asyncio.wait_for(session.prompt("Say something"), TIMEOUT)
            facts["modes_switched"] = True
            if "fork" in offered:
                fork = await acp.fork_session(session.session_id, work)
                forked = await asyncio.wait_for(fork.prompt("And now?"), TIMEOUT)
                facts["forked"] = (fork.session_id != session.session_id, forked.last_agent_message)
            if "resume" in offered:
                resumed = await acp.resume_session(session.session_id, work)
                facts["resumed"] = resumed.session_id == session.session_id
        server.check()
        # a new agent process lists and loads the session from its own store (Claude Code writes a
        # session's transcript file only later: listed by the process that ran it, it is missing)
        server2, again = start(agent, [], tmp_path)
        try:
            async with again:
                if "list" in offered:
                    listed = await again.list_sessions(work)
                    facts["listed"] = session.session_id in {s["session_id"] for s in listed}
                if "load" in offered:
                    try:
                        loaded = await again.load_session(session.session_id, work)
                        facts["loaded"] = loaded.session_id == session.session_id
                    except AcpError as err:
                        facts["loaded"] = str(err)
        finally:
            server2.close()
    finally:
        server.close()
    report(agent, "sessions", facts)
    assert first.last_agent_message == "first answer"
    assert facts.get("listed", True) and facts.get("resumed", True)
    if expected.get("load", True) is not None:
        assert facts.get("loaded", True) is True
    if "fork" in offered:
        assert facts["forked"] == (True, "forked answer")


@pytest.mark.parametrize("agent", AGENTS)
async def test_options_are_read_and_plan_mode_set_from_python(agent: str, tmp_path: Path) -> None:
    """``session.options`` lists what the agent offers; ``set_option`` enters Plan mode (the agent's
    next request to its model says so) and sets the effort; a value it does not list is refused
    here with the values it does."""
    expected = EXPECTED[agent]
    say = DIALECTS[agent]
    bodies: list[str] = []

    def answer(text: str) -> Any:
        def entry(body: dict[str, Any]) -> Any:
            bodies.append(json.dumps(body))
            return say["text"](text)

        return entry

    marker = expected["plan_marker"]
    script = [answer("before"), answer("planned")] if marker else []
    work = tmp_path / "work"
    work.mkdir()
    server, acp = start(agent, script, tmp_path)
    plan_option, effort_option = expected["plan_option"], expected["effort_option"]
    try:
        async with acp:
            session = await acp.new_session(work)
            options = session.options
            if marker:
                await asyncio.wait_for(session.prompt("Say something"), TIMEOUT)
            before = options[plan_option].current
            planned = await session.set_option(plan_option, "plan")
            with pytest.raises(AcpError) as refused:
                await session.set_option(plan_option, "no-such-value")
            effort = await session.set_option(effort_option, "high") if effort_option else None
            if marker:
                await asyncio.wait_for(session.prompt("Plan it"), TIMEOUT)
            after = session.options
        server.check()
    finally:
        server.close()
    report(
        agent,
        "options",
        {
            "options": sorted(options),
            "categories": sorted({o.category for o in options.values() if o.category}),
            "plan_mode_set": planned.current == "plan",
            "effort_set": None if effort is None else effort.current == "high",
        },
    )
    assert expected["options"] <= set(options)
    assert before != "plan" and planned.current == "plan" and after[plan_option].current == "plan"
    message = str(refused.value)
    assert message.startswith(f"the ACP agent's option '{plan_option}' (") and "\n" not in message
    assert message.endswith(f"has no value 'no-such-value'; its values are {options[plan_option].values}")
    if effort_option:
        assert options[effort_option].category == "thought_level"
        assert effort is not None and effort.current == "high" == after[effort_option].current
    else:
        assert options["mode"].via == expected.get("mode_via", "mode")
    if marker:
        assert marker not in bodies[0] and marker in bodies[1]


@pytest.mark.requires_acp_agent("codex-acp")
@pytest.mark.requires_acp_agent("claude-agent-acp")
@pytest.mark.requires_acp_agent("gemini-cli")
@pytest.mark.requires_acp_agent("qwen-code")
async def test_compare_runs_one_prompt_on_every_agent_at_once(tmp_path: Path) -> None:
    started: list[tuple[Any, cx.AcpAgent]] = []
    sessions = {}
    try:
        for agent in ACP_AGENTS:
            say = DIALECTS[agent]
            plan = say["plan"](PLAN_2) if EXPECTED[agent]["plan_updates"] else []
            script = ([plan] if plan else []) + [say["text"](f"{agent} is done.")]
            server, acp = start(agent, script, tmp_path / agent)
            started.append((server, acp))
            work = tmp_path / agent / "work"
            work.mkdir(parents=True)
            sessions[agent] = await acp.new_session(work)
            sessions[agent].answer_policy = allow_once
        comparison = cx.compare(sessions, "Do the task")
        runs = await asyncio.wait_for(comparison, TIMEOUT)
    finally:
        for server, acp in started:
            await acp.aclose()
            server.close()
    rows = {row["agent"]: row for row in comparison.summary()}
    for agent in ACP_AGENTS:
        assert runs[agent].status == "completed" and runs[agent].result.last_agent_message == f"{agent} is done."
        assert rows[agent]["plan revisions"] == (1 if EXPECTED[agent]["plan_updates"] else 0)


@pytest.mark.requires_acp_agent("codex-acp")
async def test_codex_acp_auto_review_is_shown_as_an_automatic_review_not_the_persons_answer(tmp_path: Path) -> None:
    """In codex-acp's "Auto review" mode Codex's reviewer decides; the person is not asked, and the
    review's tool call says it is an automatic review (quirks.py). The stand-in reviewer answers
    with no verdict, so the review fails and the command does not run."""

    # Codex's reviewer (Guardian) asks the session's model, its approval request in ``input``, in every
    # attempt (Codex 0.166 tries a review three times, each a follow-up carrying the request again);
    # codex-acp's own side request, the session's title after the turn, stays answered by the stand-in
    # (``AcpAgentSpec.server`` adds this background to the agent's own)
    def reviewer(body: dict[str, Any]) -> Any:
        return [cx.assistant_message("no verdict")] if "APPROVAL REQUEST" in json.dumps(body.get("input")) else None

    say = DIALECTS["codex-acp"]
    script = [say["command"]("echo hi > f.txt"), say["text"]("The review did not approve it.")]
    work = tmp_path / "work"
    work.mkdir()
    server, acp = start("codex-acp", script, tmp_path, background=reviewer)
    seen: list[cx.events.Event] = []
    # the person's choice of mode "agent": let Codex's reviewer decide
    _, result = await prompt_once(acp, server, work, "Write f.txt", seen.append, mode="agent")
    reviews = [
        e.msg for e in seen if e.msg.type == "acp_tool_call" and e.msg.call_id.startswith("guardian_assessment:")
    ]
    report("codex-acp", "auto_review", {"review_titles": sorted({r.title for r in reviews})})
    assert result.status == "completed" and result.last_agent_message == "The review did not approve it."
    assert reviews and all(r.title.startswith("Automatic review (Codex Guardian)") for r in reviews)
    assert reviews[-1].status == "failed" and not (work / "f.txt").exists()
    assert not [e for e in seen if e.msg.type == "request_user_input"]  # the person was not asked


@pytest.mark.parametrize("agent", AGENTS)
async def test_compaction_title_and_close_reach_the_transcript_and_the_agent(agent: str, tmp_path: Path) -> None:
    """Two prompts, the second the agent's ``/compact`` command where it has one: the compaction is a
    transcript entry and a timeline record (``EXPECTED[agent]["compaction"]``), the session's title is in the
    transcript's header (``"title"``), and closing the agent sends ``session/close`` where offered
    (``"close"``, read from the cassette: the wire as it was)."""
    expected = EXPECTED[agent]
    say = DIALECTS[agent]["text"]
    compacts = expected["compaction"] is not None
    # every answer after the first is the summary: whichever request is the compaction's, it gets one
    script = [say("Hello there."), *[say("The person said hello.")] * (2 if agent == "claude-agent-acp" else 1)]
    cassette = tmp_path / f"{agent}.compact.cassette.jsonl"
    server, acp = start(agent, script if compacts else script[:1], tmp_path, cassette=cassette)
    work = tmp_path / "work"
    work.mkdir()
    try:
        async with acp:
            session = await acp.new_session(work)
            transcript = TranscriptState()
            session.subscribe(transcript.apply)
            timeline = cx.PlanTimeline(session)
            first = await asyncio.wait_for(session.prompt("Say hello"), TIMEOUT)
            second = await asyncio.wait_for(session.prompt("/compact"), TIMEOUT) if compacts else first
        server.check()
    finally:
        server.close()
    records = [(r.kind, r.status, r.text) for r in timeline.notices]
    closed = "session/close" in {m.get("method") for m in sent_messages(cassette)}
    report(agent, "notices", {"compaction": records, "title": session.title, "close": closed})
    assert first.status == second.status == "completed"
    assert session.title == expected["title"]
    assert transcript.text().splitlines()[0] == "Transcript: completed" + (
        f" · {session.title}" if session.title else ""
    )
    assert closed == expected["close"]
    if not compacts:
        assert records == []
        return
    summary = "The person said hello." if expected["compaction"]["summary"] else ""
    assert records == [("compaction", "completed", summary)]
    assert f"context compaction [completed]{': ' + summary if summary else ''}" in transcript.text().splitlines()


def sent_messages(cassette: Path) -> list[dict[str, Any]]:
    """What the client sent the agent, as the cassette recorded the wire."""
    lines = [json.loads(line) for line in cassette.read_text(encoding="utf-8").splitlines()]
    return [line["send"] for line in lines if isinstance(line.get("send"), dict)]


def agent_requests(cassette: Path) -> set[str]:
    """The methods of the requests the agent sent the client, as the cassette recorded the wire."""
    lines = [json.loads(line) for line in cassette.read_text(encoding="utf-8").splitlines()]
    received = [line["recv"] for line in lines if isinstance(line.get("recv"), dict)]
    return {m["method"] for m in received if "method" in m and "id" in m}


@pytest.mark.parametrize("agent", AGENTS)
async def test_client_files_and_terminals_are_used_as_each_agent_chooses(
    agent: str, tmp_path: Path, temp_dirs: Any
) -> None:
    """The client offers ``fs`` and ``terminal`` (``terminals=True``); the model reads a file,
    rewrites it, creates another and runs a command. Which ``fs/*`` and ``terminal/*`` requests the
    agent sends is its own choice: ``EXPECTED[agent]["client_requests"]``, read from the cassette
    (the wire as it was); the read, the writes and the command must happen either way."""
    expected = EXPECTED[agent]
    say = DIALECTS[agent]
    work = temp_dirs("work-")
    (work / "in.txt").write_text("from the client\n", encoding="utf-8")
    calls_done: list[str] = []
    gates = [threading.Event() for _ in range(4)]
    script = [say["read"](str(work / "in.txt"))]
    script += [after(gates[0], say["write"](str(work / "in.txt"), "rewritten", old="from the client"))]
    script += [after(gates[1], say["write"](str(work / "new.txt"), "created"))]
    script += [after(gates[2], say["terminal_command"]("echo ran > cmd.txt")), after(gates[3], say["text"]("Done."))]
    cassette = tmp_path / f"{agent}.fs.cassette.jsonl"
    spec = acp_agent(agent)
    server = spec.server(script).start()
    command = spec.command()
    env = spec.env(server, tmp_path / "home")
    acp = cx.AcpAgent(command[0], command[1:], env=env, startup_timeout=60, terminals=True, cassette=cassette)

    def record(event: cx.events.Event) -> None:
        # a call's end opens the gate of the model's next answer (see after())
        if event.msg.type == "acp_tool_call" and event.msg.status in ("completed", "failed"):
            if event.msg.call_id not in calls_done:
                calls_done.append(event.msg.call_id)
                gates[min(len(calls_done), len(gates)) - 1].set()

    _, result = await prompt_once(acp, server, work, "Rewrite in.txt, create new.txt, run a command", record)
    used = sorted(m for m in agent_requests(cassette) if m.startswith(("fs/", "terminal/")))
    read_back = any("from the client" in json.dumps(body) for body in server.requests)
    created = (work / "new.txt").is_file()
    report(agent, "client_capabilities", {"client_requests": used, "read": read_back, "creates_files": created})
    assert (result.status, result.last_agent_message) == ("completed", "Done.")
    assert read_back, "the file's text never reached the model"
    assert (work / "in.txt").read_text(encoding="utf-8").strip() == "rewritten"
    assert created == expected["creates_files"]
    assert (work / "cmd.txt").read_text(encoding="utf-8") == "ran\n"
    assert used == expected["client_requests"]


@pytest.mark.requires_acp_agent("gemini-cli")
async def test_gemini_write_todos_reaches_the_checklist_as_far_as_the_agent_sends_it(
    tmp_path: Path, temp_dirs: Any
) -> None:
    """Gemini CLI keeps its plan in its write_todos tool. The checklist follows the call's arguments
    (``rawInput``) when the agent sends them; Gemini CLI 0.61 sends only the call's title ("Set 2
    todo(s)"), so the checklist stays empty and the person is told why, once, in a warning. A
    release that starts sending the todos fails the first assertion: the checklist then shows them."""
    say = DIALECTS["gemini-cli"]
    server, acp = start("gemini-cli", [say["plan"](PLAN_1), say["plan"](PLAN_2), say["text"]("Planned.")], tmp_path)
    seen: list[cx.events.Event] = []
    try:
        async with acp:
            session = await acp.new_session(temp_dirs("work-"))
            session.subscribe(seen.append)
            session.answer_policy = allow_once
            with recording_comms():
                checklist = cx.PlanChecklist(session, max_rate=None)
                result = await asyncio.wait_for(session.prompt("Keep a plan"), TIMEOUT)
        server.check()
    finally:
        server.close()
    calls = [e.msg for e in seen if e.msg.type == "acp_tool_call" and quirks.todo_tool(e.msg.call_id)]
    warnings = [e.msg.message for e in seen if e.msg.type == "warning"]
    plans = [e.msg for e in seen if e.msg.type == "plan_update"]
    assert result.status == "completed" and result.last_agent_message == "Planned."
    assert {(c.title, c.kind, c.status) for c in calls if c.status == "completed"} == {
        ("Set 2 todo(s)", "other", "completed")
    }
    assert all(c.raw_input is None and not c.content for c in calls)  # 0.61: the todos are not sent
    assert plans == [] and checklist.steps == [] and checklist.explanation is None
    assert [w for w in warnings if "write_todos" in w] == [
        "the agent's write_todos call 'Set 2 todo(s)' carries no todos (Gemini CLI 0.61 sends only its "
        "title over ACP), so the checklist cannot show its plan"
    ]


QUESTION_AGENTS = [p for p in AGENTS if EXPECTED[str(p.values[0])]["question"] is not None]


@pytest.mark.parametrize("agent", QUESTION_AGENTS)
async def test_a_question_reaches_the_person_and_their_answer_the_model(
    agent: str, tmp_path: Path, temp_dirs: Any
) -> None:
    """The model asks (codex-acp: ``request_user_input`` in Plan mode; Claude: AskUserQuestion); the
    agent's form elicitation is shown as Codex's question card, the person's answer (scripted) goes
    back, and the model's next request carries it in the tool's result."""
    expected = EXPECTED[agent]["question"]
    say = DIALECTS[agent]
    bodies: list[dict[str, Any]] = []

    def reply(body: dict[str, Any]) -> list[Any]:
        bodies.append(body)
        return say["text"]("Wide it is.")

    script = [say["question"]("Which scope should the change have?", "Scope", ["Narrow", "Wide"]), reply]
    server, acp = start(agent, script, tmp_path)
    seen: list[cx.events.Event] = []
    try:
        async with acp:
            session = await acp.new_session(temp_dirs("work-"))
            if expected["plan_mode"]:
                await session.set_option(EXPECTED[agent]["plan_option"], "plan")
            session.subscribe(seen.append)
            session.answer_policy = cx.AnswerPolicy.scripted([{expected["id"]: "Wide"}])
            result = await asyncio.wait_for(session.prompt("Change the module"), TIMEOUT)
        server.check()
    finally:
        server.close()
    cards = [e.msg for e in seen if e.msg.type == "request_user_input"]
    resolved = [e.msg.outcome for e in seen if e.msg.type == "frontend_request_resolved"]
    results = TOOL_RESULTS[agent](bodies[-1]) if bodies else []
    question = cards[0].questions[0] if cards else None
    report(
        agent,
        "questions",
        {
            "asked": bool(cards),
            "question": None if question is None else question.question,
            "options": [] if question is None else [o.label for o in question.options or []],
            "model_read_answer": any(expected["model_reads"] in r for r in results),
        },
    )
    assert result.status == "completed" and result.last_agent_message == "Wide it is."
    assert len(cards) == 1 and question is not None
    assert (question.id, question.header, question.question) == (
        expected["id"],
        "Scope",
        "Which scope should the change have?",
    )
    assert [o.label for o in question.options or []][:2] == ["Narrow", "Wide"]
    assert resolved == ["policy"]
    assert [r.answered_by for r in session.frontend_requests.approvals] == ["policy"]
    assert any(expected["model_reads"] in r for r in results), results


@pytest.mark.requires_acp_agent("codex-acp")
async def test_codex_acp_brings_an_mcp_servers_form_to_the_person_and_the_answer_to_the_model(tmp_path: Path) -> None:
    """An MCP server of the session (``tests/mcp_servers/elicit_server.py``, started by Codex from
    ``session/new``'s ``mcpServers``) asks with a form elicitation; codex-acp 2.6 passes it on as an
    ACP form elicitation, and the person's answer comes back as the MCP tool's result."""
    from acp.schema import McpServerStdio

    from helpers.app_server_helpers import ELICIT_SERVER

    state = {"phase": "wait", "waits": 0}

    def step(body: dict[str, Any]) -> list[Any]:
        # Codex lists a started MCP server in tool_search's description ("- forms: ...")
        if state["phase"] == "wait" and "- forms:" not in json.dumps(body.get("tools", [])):
            state["waits"] += 1
            return DIALECTS["codex-acp"]["plan"]([("Wait for the forms server", "in_progress")])
        if state["phase"] == "wait":
            state["phase"] = "called"
            sign_up = cx.function_call("sign_up", {}, namespace="mcp__forms", call_id="sign-up")
            return [cx.tool_search_call("forms", limit=50, call_id="search"), sign_up]
        return [cx.assistant_message("Signed up.")]

    def answer(request: Any) -> Any:
        questions = request.msg.questions
        if questions[0].id == "permission":  # Codex asks before an MCP tool runs
            return {"permission": next(o.label for o in questions[0].options if o.description == "allow_once")}
        return {"email": "user_note: ada@example.com", "age": "user_note: 36", "plan": "Pro", "newsletter": "No"}

    server, acp = start("codex-acp", [step] * 40, tmp_path, allow_leftover=True)
    work = tmp_path / "work"
    work.mkdir()
    seen: list[cx.events.Event] = []
    try:
        async with acp:
            forms = McpServerStdio(name="forms", command=sys.executable, args=[str(ELICIT_SERVER)], env=[])
            session = await acp.new_session(work, mcp_servers=[forms])
            session.subscribe(seen.append)
            session.answer_policy = cx.AnswerPolicy.callback(answer)
            result = await asyncio.wait_for(session.prompt("Sign me up"), TIMEOUT)
    finally:
        server.close()
    cards = [e.msg for e in seen if e.msg.type == "request_user_input" and e.msg.questions[0].id != "permission"]
    outputs = {
        i["call_id"]: i["output"] for i in server.requests[-1]["input"] if i.get("type") == "function_call_output"
    }
    assert result.status == "completed" and result.last_agent_message == "Signed up."
    assert len(cards) == 1 and {q.id for q in cards[0].questions} == {"age", "email", "newsletter", "plan", "topics"}
    sent = {"age": 36, "email": "ada@example.com", "newsletter": False, "plan": "pro"}
    assert (
        json.dumps({"action": "accept", "content": sent}, sort_keys=True)
        in json.loads(outputs["sign-up"].split("Output:\n", 1)[1])["result"]
    )


@pytest.mark.parametrize("agent", QUESTION_AGENTS)
async def test_stop_answers_the_agents_pending_question_cancel(agent: str, tmp_path: Path, temp_dirs: Any) -> None:
    """Stop while the agent's question waits for the person: the question is closed (answered
    ``cancel``), the agent ends the prompt as cancelled, and nothing is left waiting."""
    expected = EXPECTED[agent]["question"]
    say = DIALECTS[agent]
    script = [say["question"]("Which scope should the change have?", "Scope", ["Narrow", "Wide"])]
    server, acp = start(agent, script, tmp_path, allow_leftover=True)
    asked = asyncio.Event()
    release = asyncio.Event()

    async def person(request: Any) -> dict[str, str]:  # a person who has not answered yet
        asked.set()
        await release.wait()
        return {expected["id"]: "Wide"}

    seen: list[cx.events.Event] = []
    try:
        async with acp:
            session = await acp.new_session(temp_dirs("work-"))
            if expected["plan_mode"]:
                await session.set_option(EXPECTED[agent]["plan_option"], "plan")
            session.subscribe(seen.append)
            session.answer_policy = person
            handle = session.prompt("Change the module")
            await asyncio.wait_for(asked.wait(), TIMEOUT)
            assert session.interrupt() is True
            result = await asyncio.wait_for(handle, TIMEOUT)
            release.set()
            pending = session.frontend_requests.pending
    finally:
        server.close()
    resolved = [e.msg.outcome for e in seen if e.msg.type == "frontend_request_resolved"]
    assert (result.status, result.stop_reason, handle.hard_aborted) == ("interrupted", "cancelled", False)
    assert resolved == ["cancelled"] and pending == []


@pytest.fixture
def outside_the_sandbox() -> Iterator[Path]:
    """A folder Codex's sandbox may not write without asking (``helpers.paths.outside_codex_sandbox``)."""
    with outside_codex_sandbox() as made:
        yield made


@pytest.mark.parametrize("agent", AGENTS)
async def test_a_write_outside_the_session_folder_is_shown_as_outside_before_the_person_answers(
    agent: str, tmp_path: Path, temp_dirs: Any, outside_the_sandbox: Path
) -> None:
    """The model writes a file outside the session's folder. Where the agent asks the person, the
    question names the file and marks it outside the folder (the title alone, "Write", says
    neither); the person rejects, and the file is not written. Where the agent refuses by itself,
    nothing is asked and nothing is written: ``EXPECTED[agent]["outside_write"]``."""
    say = DIALECTS[agent]
    work = temp_dirs("work-")
    target = outside_the_sandbox / "escaped.txt"
    calls: list[Any] = []
    ended = threading.Event()
    script = [say["write"](str(target), "escaped"), after(ended, say["text"]("Done."))]
    # after a rejection some agents end the turn, others tell the model: the last answer may go unread
    server, acp = start(agent, script, tmp_path, allow_leftover=True)
    asked: list[str] = []

    def reject(request: Any) -> dict[str, str]:
        question = request.msg.questions[0]
        asked.append(question.question)
        return {"permission": next(o.label for o in question.options if o.description == "reject_once")}

    def record(event: cx.events.Event) -> None:
        if event.msg.type == "acp_tool_call":
            calls.append((event.msg.title, event.msg.status))
            if event.msg.status in ("completed", "failed"):
                ended.set()

    try:
        async with acp:
            session = await acp.new_session(work)
            session.subscribe(record)
            session.answer_policy = reject
            result = await asyncio.wait_for(session.prompt(f"Write {target}"), TIMEOUT)
        server.check()
    finally:
        server.close()
    marked = bool(asked) and str(target) in asked[0] and "OUTSIDE THE SESSION FOLDER" in asked[0]
    expected = EXPECTED[agent]["outside_write"]
    report(agent, "outside_write", {"asked": bool(asked), "marked": marked, "status": result.status})
    assert result.status == expected["status"], (asked, calls)
    assert not target.exists(), f"asked {asked}: a write the person rejected (or the agent refused) happened"
    assert bool(asked) == expected["asked"], (asked, calls)
    if asked:
        assert marked, asked[0]
    else:  # the refusal is shown as the call's failure
        assert calls and calls[-1][1] == "failed", calls


REVIEW_AGENTS = [p for p in AGENTS if EXPECTED[str(p.values[0])]["plan_review"] is not None]
PROPOSED = "# Add a greeting\n\n1. Write hello.txt\n2. Check it"


async def reviewed(agent: str, tmp_path: Path, script: list[Any], decide: Any) -> tuple[Any, list[Any], Any]:
    """A Plan-mode prompt whose turn proposes a plan, followed in ``PlanAnswers``; ``decide(answers)``
    answers it once it waits. Returns the answers, the prompts' results and the stand-in server."""
    from codex_nb.timeline.answers import PlanAnswers

    server, acp = start(agent, script, tmp_path)
    results: list[Any] = []
    try:
        async with acp:
            session = await acp.new_session(tmp_path)
            await session.set_option(EXPECTED[agent]["plan_option"], "plan")
            answers = PlanAnswers(session)
            waiting = asyncio.Event()
            answers.on_change(lambda: answers.proposal is not None and waiting.set())
            handle = session.prompt("Plan a greeting file")
            await asyncio.wait_for(waiting.wait(), TIMEOUT)
            decide(answers)
            results.append(await asyncio.wait_for(handle, TIMEOUT))
            await answers.settled()
            for turn in answers.turns:
                results.append(await asyncio.wait_for(turn, TIMEOUT))
        server.check()
    finally:
        server.close()
    return answers, results, server


@pytest.mark.parametrize("agent", REVIEW_AGENTS)
async def test_a_proposed_plan_approved_in_plan_answers_is_implemented(agent: str, tmp_path: Path) -> None:
    """Plan mode, the model proposes a plan; the agent asks whether to implement it, PlanAnswers shows
    it as the proposed-plan card, and Approve answers with the agent's option that leaves Plan mode:
    the agent's next request to its model implements the plan, out of Plan mode."""
    expected = EXPECTED[agent]
    say = DIALECTS[agent]
    options: list[Any] = []

    def approve(answers: Any) -> None:
        options.extend(answers.source.plan_review.options)
        assert answers.proposal.text.strip() == PROPOSED
        answers.approve()

    script = [say["proposal"](PROPOSED), say["text"]("Implemented.")]
    answers, results, server = await reviewed(agent, tmp_path, script, approve)
    review = expected["plan_review"]
    following = json.dumps(server.requests[-1])
    report(agent, "plan review", {"options": options, "approved_implements": review["implements"] in following})
    assert [r.status for r in results] == ["completed"] and results[0].last_agent_message == "Implemented."
    assert review["approve"] in options and review["keep_planning"] in options
    assert [(d.decision, d.delivery) for d in answers.decisions] == [("approved", "answered")]
    assert answers.proposal is None and not answers.turns
    assert review["implements"] in following
    if expected["plan_marker"]:
        assert expected["plan_marker"] in json.dumps(server.requests[0])


@pytest.mark.parametrize("agent", REVIEW_AGENTS)
async def test_a_proposed_plan_revised_then_rejected_keeps_planning(agent: str, tmp_path: Path) -> None:
    """Revise answers the agent's option that keeps planning and sends the person's note as the next
    prompt (still Plan mode: the model proposes again); Reject keeps planning and sends nothing."""
    expected = EXPECTED[agent]
    say = DIALECTS[agent]
    decisions = iter(["revise", "reject"])

    def decide(answers: Any) -> None:
        if next(decisions) == "revise":
            answers.revise("Use hello.md instead")
            # the note's prompt proposes again: reject that one as soon as it waits
            answers.on_change(lambda: answers.proposal is not None and decide(answers))
        else:
            answers.reject()

    # keeping planning ends the turn with no further request to the model (codex-acp ends its prompt;
    # Claude Code stops at the refused ExitPlanMode), except where the agent tells its model and asks
    # it again (Gemini CLI): then the model answers in words
    told = [say["text"]("Kept planning.")] if expected["plan_review"].get("model_told") else []
    script = [say["proposal"](PROPOSED), *told, say["proposal"](PROPOSED.replace("hello.txt", "hello.md")), *told]
    answers, results, server = await reviewed(agent, tmp_path, script, decide)
    carrying = [i for i, body in enumerate(server.requests) if "Use hello.md instead" in json.dumps(body)]
    assert [(d.decision, d.delivery) for d in answers.decisions] == [("revised", "queued"), ("rejected", "answered")]
    kept = expected["plan_review"]["kept"]
    # the note is the next prompt: the first request of that prompt carries it, and none before
    first = 1 + len(told)
    report(agent, "plan kept", {"status": kept, "note_next_prompt": carrying[:1] == [first]})
    assert [r.status for r in results] == [kept, kept]
    assert carrying == list(range(first, len(server.requests)))
    if expected["plan_marker"]:
        assert expected["plan_marker"] in json.dumps(server.requests[carrying[0]])
    assert answers.proposal is None and len(answers.timeline.proposals) == 2


SUBAGENT_TASK = "Count the lines of notes.txt"
"""The subagent's prompt, by which the stand-in tells the subagent's model requests from the parent's."""


def asked_by_subagent(body: dict[str, Any]) -> bool:
    """Whether a request to the model is the subagent's: one of its person's messages (tool results left
    out) is the subagent's task (Anthropic ``messages`` or Responses ``input``)."""
    items = body.get("messages") or body.get("input") or []
    users = [i for i in items if isinstance(i, dict) and i.get("role") == "user"]
    said = [b for u in users for b in (u["content"] if isinstance(u.get("content"), list) else [u.get("content")])]
    return any(
        SUBAGENT_TASK in json.dumps(b) for b in said if not (isinstance(b, dict) and b.get("type") == "tool_result")
    )


@pytest.mark.parametrize("agent", AGENTS)
async def test_a_subagent_reaches_the_transcript_and_the_timeline(agent: str, tmp_path: Path) -> None:
    """The model delegates a task to a subagent (``EXPECTED[agent]["subagent"]``; None where the agent
    sends no ``subagent_update``). The subagent's own model requests come to the same stand-in and are
    answered by ``background`` (it reads notes.txt, then answers), so the parent's script stays in
    order whenever they come. Its updates (announced, running, idle) and what it did under its own
    session id are one transcript entry and one timeline record, and no tool call of the parent's."""
    expected = EXPECTED[agent]["subagent"]
    say = DIALECTS[agent]
    script = [*(say["subagent"](SUBAGENT_TASK) if expected is not None else []), say["text"]("All done.")]
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    side = acp_agent(agent).server([]).background  # the agent's own side requests, as in every test
    asked: list[dict[str, Any]] = []

    def subagent_model(body: dict[str, Any]) -> Any:
        if not asked_by_subagent(body):
            return side(body) if side else None
        asked.append(body)
        if not TOOL_RESULTS[agent](body):
            return say["read"](str(work / "notes.txt"))
        return say["text"]("notes.txt has 3 lines.")

    server, acp = start(agent, script, tmp_path, background=subagent_model)
    seen: list[cx.events.Event] = []
    try:
        async with acp:
            session = await acp.new_session(work)
            transcript = TranscriptState()
            session.subscribe(transcript.apply)
            session.subscribe(seen.append)
            session.answer_policy = allow_once
            timeline = cx.PlanTimeline(session)
            result = await asyncio.wait_for(session.prompt("Delegate the count"), TIMEOUT)
            at_end = list(timeline.notices)
        server.check()
    finally:
        server.close()
    updates = [e.msg for e in seen if e.msg.type == "acp_subagent"]
    states = [s for i, s in enumerate(u.state for u in updates) if s and (i == 0 or updates[i - 1].state != s)]
    records = [(r.kind, r.title, r.status, r.text) for r in at_end]
    lines = [line for line in transcript.text().splitlines() if line.startswith("subagent ")]
    calls = {e.msg.title for e in seen if e.msg.type == "acp_tool_call"}
    report(
        agent,
        "subagent",
        {
            "subagents": len({u.session_id for u in updates}),
            # an untitled subagent's name is its random id: reported as None
            "name": updates[-1].name if updates and updates[-1].name not in updates[-1].session_id else None,
            "states": states,
            "record": records[0][1:] if records else None,
            "parent_tool_calls": sorted(calls),
        },
    )
    assert result.status == "completed" and result.last_agent_message == "All done."
    # every update was read: claude-agent-acp's session_message (the task, the reply) is no "malformed" warning
    assert [e.msg.message for e in seen if e.msg.type == "warning"] == []
    if expected is None:
        assert updates == [] and records == [] and lines == [] and asked == []
        return
    # the subagent really ran on the stand-in: it read the file and its answer came back to it
    assert len(asked) == 2 and "three" in TOOL_RESULTS[agent](asked[-1])[-1]
    (child,) = {u.session_id for u in updates}
    assert session.subagents[child] is updates[-1]
    name = expected["name"] or child.rsplit(":", 1)[-1]
    assert updates[-1].name == name and states == expected["states"]
    # the record as the prompt ended: the subagent idle, its one tool call and its answer counted
    assert records == [("subagent", name, "idle", "1 tool call(s), 1 message(s): notes.txt has 3 lines.")]
    assert len(lines) == 1 and lines[0].startswith(f"subagent {name} [{states[-1]}]: 1 tool call(s)")
    assert lines[0].endswith("notes.txt has 3 lines.")
    # the subagent's read is its own, not one of the parent's tool calls
    assert not [c for c in calls if "notes.txt" in c]
