"""An ACP permission request shows what it is about: the tool call's paths (those outside the
session's folder marked), its command and its diff, each bounded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from acp.schema import (
    FileEditToolCallContent,
    PermissionOption,
    ToolCallLocation,
    ToolCallUpdate,
)

from codex_nb.acp.permission_details import MAX_CHECKED, MAX_DIFF, MAX_PATH, MAX_PATHS, permission_details
from codex_nb.acp.permissions import question_event
from helpers.paths import ACP_AGENTS


def call(**fields: object) -> ToolCallUpdate:
    return ToolCallUpdate(tool_call_id="t1", title="Edit file", **fields)  # type: ignore[arg-type]


def test_paths_outside_the_session_folder_are_marked(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "link").symlink_to(tmp_path)  # inside by name, outside once resolved
    tool_call = call(
        locations=[
            ToolCallLocation(path=str(work / "a.py"), line=3),
            ToolCallLocation(path="/etc/passwd"),
            ToolCallLocation(path="b.py"),
            ToolCallLocation(path="../escape.py"),
            ToolCallLocation(path=str(work / "link" / "x")),
            ToolCallLocation(path="bad\0path"),
        ]
    )
    details = permission_details(tool_call, str(work))
    assert [(p.path, p.outside) for p in details.paths] == [
        (str(work / "a.py"), False),
        ("/etc/passwd", True),
        ("b.py", False),
        ("../escape.py", True),
        (str(work / "link" / "x"), True),
        ("bad\0path", True),
    ]
    lines = details.lines()
    assert lines[0] == "Warning: 4 path(s) lie outside the session folder."
    assert f"Path: {work / 'a.py'}:3" in lines and "Path: /etc/passwd  [OUTSIDE THE SESSION FOLDER]" in lines


def test_the_command_and_the_diff_are_shown_and_the_question_carries_them(tmp_path: Path) -> None:
    edit = FileEditToolCallContent(type="diff", path=str(tmp_path / "f.py"), old_text="a\nb\n", new_text="a\nc\n")
    tool_call = call(content=[edit], raw_input={"command": ["bash", "-lc", "rm -rf build"]})
    options = [PermissionOption(option_id="ok", name="Allow", kind="allow_once")]
    msg, _ = question_event(call_id="t1", turn_id="turn-1", tool_call=tool_call, options=options, cwd=str(tmp_path))
    text = msg.questions[0].question
    assert text.startswith("The agent asks for permission: Edit file\n")
    assert f"Path: {tmp_path / 'f.py'}" in text and "Command: bash -lc rm -rf build" in text
    assert "-b\n+c" in text and "OUTSIDE" not in text


def test_everything_a_peer_sends_is_bounded(tmp_path: Path) -> None:
    huge = "x" * 1_000_000
    tool_call = call(
        locations=[ToolCallLocation(path=f"/p{i}") for i in range(10_000)] + [ToolCallLocation(path="/" + huge)],
        content=[
            FileEditToolCallContent(type="diff", path="big.txt", old_text="", new_text="\n".join(["y" * 50] * 500)),
            FileEditToolCallContent(type="diff", path="huge.txt", old_text=huge, new_text=""),
        ],
        raw_input={"command": huge},
    )
    details = permission_details(tool_call, str(tmp_path))
    assert len(details.paths) == MAX_PATHS and details.more_paths > 9_000
    assert details.command is not None and len(details.command) < MAX_PATH + 50
    assert details.diff is not None and len(details.diff) < MAX_DIFF + 50 and "more characters" in details.diff
    assert len("\n".join(details.lines())) < 20_000


def test_a_tool_call_with_nothing_to_show_adds_nothing(tmp_path: Path) -> None:
    assert permission_details(call(), os.fspath(tmp_path)).lines() == []


def test_the_card_gets_the_details_as_json_outside_the_wire_form(tmp_path: Path) -> None:
    """The event's ``details`` (the prompts widget's card) carries the same paths, command and diffs
    as the question's text, each file's diff apart; Codex's wire form of the question is unchanged."""
    edits = [
        FileEditToolCallContent(type="diff", path="/etc/<b>x</b>.py", old_text="a\nb\n", new_text="a\nc\n"),
        FileEditToolCallContent(type="diff", path=str(tmp_path / "new.txt"), old_text=None, new_text="hi\n"),
    ]
    tool_call = call(content=edits, raw_input={"cmd": "make"})
    options = [PermissionOption(option_id="ok", name="Allow", kind="allow_once")]
    msg, _ = question_event(call_id="t1", turn_id="turn-1", tool_call=tool_call, options=options, cwd=str(tmp_path))
    assert msg.details is not None
    assert msg.details["text"] == "The agent asks for permission: Edit file"
    assert msg.details["paths"] == [
        {"path": "/etc/<b>x</b>.py", "outside": True, "line": None},
        {"path": str(tmp_path / "new.txt"), "outside": False, "line": None},
    ]
    assert msg.details["command"] == "make" and msg.details["more_paths"] == 0 == msg.details["more_diffs"]
    diffs = msg.details["diffs"]
    assert [(d["path"], d["kind"]) for d in diffs] == [
        ("/etc/<b>x</b>.py", "update"),
        (str(tmp_path / "new.txt"), "add"),
    ]
    assert "-b\n+c" in diffs[0]["diff"] and "+hi" in diffs[1]["diff"]
    wire = msg.to_wire()
    assert "details" not in wire and wire["type"] == "request_user_input"
    assert "[OUTSIDE THE SESSION FOLDER]" in wire["questions"][0]["question"]


def test_the_card_json_is_bounded_as_the_text_is(tmp_path: Path) -> None:
    """10,000 paths and 10 MB of diffs: the card's JSON keeps MAX_PATHS paths and MAX_DIFF characters
    of diff, and counts the rest."""
    ten_mb = "z\n" * 5_000_000
    edits = [
        FileEditToolCallContent(type="diff", path=f"f{i}.txt", old_text="", new_text="y\n" * 3000) for i in range(5)
    ]
    edits.append(FileEditToolCallContent(type="diff", path="huge.txt", old_text="", new_text=ten_mb))
    tool_call = call(locations=[ToolCallLocation(path=f"/p{i}") for i in range(10_000)], content=edits)
    options = [PermissionOption(option_id="ok", name="Allow", kind="allow_once")]
    msg, _ = question_event(call_id="t1", turn_id="turn-1", tool_call=tool_call, options=options, cwd=str(tmp_path))
    assert msg.details is not None
    assert len(msg.details["paths"]) == MAX_PATHS and msg.details["more_paths"] > 9_000
    assert sum(len(d["diff"]) for d in msg.details["diffs"]) < MAX_DIFF + 50
    assert msg.details["more_diffs"] == 5  # the first file's diff used the whole budget
    assert len(json.dumps(msg.details)) < 20_000
    assert "... and 5 more files' diffs" in msg.questions[0].question


def test_without_the_session_folder_there_is_no_card(tmp_path: Path) -> None:
    options = [PermissionOption(option_id="ok", name="Allow", kind="allow_once")]
    msg, _ = question_event(call_id="t1", turn_id="turn-1", tool_call=call(), options=options)
    assert msg.details is None


async def test_the_prompts_widget_view_carries_the_details(tmp_path: Path) -> None:
    """The pending request's view (the prompts widget's synced state) holds the card's JSON; a Codex
    question's view has no ``details``."""
    from codex_nb.frontend.requests import FrontendRequests, RequestKind
    from codex_nb.protocol.frontend import Question, RequestUserInputEvent

    options = [PermissionOption(option_id="ok", name="Allow", kind="allow_once")]
    tool_call = call(locations=[ToolCallLocation(path="/etc/passwd")])
    msg, _ = question_event(call_id="t1", turn_id="turn-1", tool_call=tool_call, options=options, cwd=str(tmp_path))
    broker = FrontendRequests()
    view = broker.open(RequestKind.USER_INPUT, turn_id="a", call_id="t1", msg=msg).view()
    assert view["details"]["paths"] == [{"path": "/etc/passwd", "outside": True, "line": None}]
    codex = RequestUserInputEvent(call_id="c", turn_id="t", questions=[Question(id="q", header="h", question="?")])
    assert "details" not in broker.open(RequestKind.USER_INPUT, turn_id="b", call_id="c", msg=codex).view()


def test_what_the_request_leaves_out_comes_from_the_call_sent_before(tmp_path: Path) -> None:
    """codex-acp sends an edit's diff in its ``tool_call`` and asks with the path alone: the question
    shows the diff the session kept (``ToolCallState``, the call's JSON); a field the request sends
    replaces the kept one, as in any ``tool_call_update``."""
    from codex_nb.acp.mapping import ToolCallState

    target = str(tmp_path.parent / "notes.txt")
    known = ToolCallState(call_id="t1", title="Edit files")
    known.apply(
        ToolCallUpdate(
            tool_call_id="t1",
            content=[FileEditToolCallContent(type="diff", path=target, old_text=None, new_text="hi\n")],
            raw_input={"command": "old"},
        )
    )
    tool_call = call(locations=[ToolCallLocation(path=target)], raw_input={"command": "new"})
    details = permission_details(tool_call, str(tmp_path), known)
    assert [(p.path, p.outside) for p in details.paths] == [(target, True)]
    assert [(d.path, d.kind) for d in details.diffs] == [(target, "add")]
    assert details.diff == f"--- /dev/null\n+++ {target}\n@@ -0,0 +1 @@\n+hi"
    assert details.command == "new"
    assert permission_details(tool_call, str(tmp_path)).diffs == ()


async def test_a_hostile_agents_flood_reaches_the_widget_bounded(tmp_path: Path) -> None:
    """A real agent process (tests/acp_agents/hostile_agent.py) sends a call with a 10 MB diff among 30,
    then asks with 10,000 locations named with markup: the prompts widget's view of the request (its
    synced JSON) and the question's text stay small, the rest counted; the answer still goes back."""
    import asyncio
    import sys

    import codex_nb as cx

    hostile = str(ACP_AGENTS / "hostile_agent.py")
    seen: list[dict[str, Any]] = []

    def answer(request: Any) -> dict[str, str]:
        seen.append({"view": request.view(), "text": request.msg.questions[0].question})
        return {"permission": "Reject"}

    async with cx.AcpAgent(sys.executable, [hostile]) as agent:
        session = await agent.new_session(tmp_path)
        session.answer_policy = answer
        said: list[str] = []
        session.subscribe(lambda e: said.append(e.msg.message) if e.msg.type == "agent_message" else None)
        await asyncio.wait_for(session.prompt("ask-flood"), 60)
    [asked] = seen
    details = asked["view"]["details"]
    assert len(json.dumps(asked["view"])) < 20_000 and len(asked["text"]) < 20_000
    # the 10,000 locations and the 30 diffs' paths, less those kept; the first MAX_CHECKED are checked
    assert len(details["paths"]) == MAX_PATHS and details["more_paths"] == 10_000 + 30 - MAX_PATHS
    assert details["more_outside"] == MAX_CHECKED - MAX_PATHS
    assert details["unchecked"] == 10_000 + 30 - MAX_CHECKED
    assert details["paths"][0] == {"path": "/outside/<b>0</b>.txt", "outside": True, "line": None}
    first = details["diffs"][0]
    assert first["path"] == "/etc/<img src=x onerror=alert(1)>.conf" and first["kind"] == "add"
    assert "too long to compare" in first["diff"]
    assert sum(len(d["diff"]) for d in details["diffs"]) <= MAX_DIFF + 50
    assert len(details["diffs"]) + details["more_diffs"] == 30  # every block is shown or counted
    assert said == ["outcome: no"]


def test_a_file_past_the_listed_ones_is_still_counted_and_checked(tmp_path: Path) -> None:
    """Twenty harmless edits do not hide a 21st outside the session folder: it is counted among the
    paths left out, as outside, in the warning, and among the diffs left out."""
    edits = [
        FileEditToolCallContent(type="diff", path=str(tmp_path / f"f{i}.txt"), old_text="a\n", new_text="b\n")
        for i in range(MAX_PATHS)
    ]
    edits.append(FileEditToolCallContent(type="diff", path="/etc/cron.d/evil", old_text=None, new_text="* * * * *\n"))
    details = permission_details(call(content=edits), str(tmp_path))
    assert len(details.paths) == MAX_PATHS and not details.outside
    assert (details.more_paths, details.more_outside, details.unchecked) == (1, 1, 0)
    assert details.more_diffs == 1
    lines = details.lines()
    assert lines[0] == "Warning: 1 path(s) lie outside the session folder."
    assert "... and 1 more paths (1 outside the session folder)" in lines
    assert "... and 1 more files' diffs" in lines
    assert details.to_json()["more_outside"] == 1


def test_paths_past_the_checked_ones_are_said_not_checked(tmp_path: Path) -> None:
    tool_call = call(locations=[ToolCallLocation(path=f"p{i}") for i in range(MAX_CHECKED + 50)])
    details = permission_details(tool_call, str(tmp_path))
    assert details.more_paths == MAX_CHECKED + 50 - MAX_PATHS
    assert details.more_outside == 0 and details.unchecked == 50
    assert f"... and {details.more_paths} more paths (50 not checked)" in details.lines()


async def test_paths_that_take_too_long_to_check_leave_the_question_without_them(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The paths are checked off the event loop (a symlink on a hung network mount blocks the check);
    past ``DETAILS_TIMEOUT`` the question is asked without them, and a warning says so."""
    import asyncio
    import sys
    import threading

    import codex_nb as cx
    from codex_nb.acp import acp_session

    hung, checked = threading.Event(), threading.Event()
    real = acp_session.question_event

    def slow_question_event(**fields: Any) -> Any:
        if fields["cwd"] is not None:  # the check a hung file system would block
            checked.set()
            hung.wait(30)
        return real(**fields)

    monkeypatch.setattr(acp_session, "question_event", slow_question_event)
    monkeypatch.setattr(acp_session, "DETAILS_TIMEOUT", 0.2)
    hostile = str(ACP_AGENTS / "hostile_agent.py")
    asked: list[str] = []
    warnings: list[str] = []
    try:
        async with cx.AcpAgent(sys.executable, [hostile]) as agent:
            session = await agent.new_session(tmp_path)
            session.answer_policy = lambda request: (
                asked.append(request.msg.questions[0].question) or {"permission": "Reject"}
            )
            session.subscribe(lambda e: warnings.append(e.msg.message) if e.msg.type == "warning" else None)
            await asyncio.wait_for(session.prompt("ask-flood"), 60)
    finally:
        hung.set()
    assert checked.is_set()
    [text] = asked
    assert "Path:" not in text and "Diff:" not in text
    assert any("could not check the paths" in w and "read the tool call before you allow it" in w for w in warnings)
