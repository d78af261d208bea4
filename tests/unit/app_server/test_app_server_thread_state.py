"""The real Codex's account of a thread: ``thread/status/changed`` (what it waits on),
``thread/settings/updated`` (its next turn's settings) and ``thread/queue/changed`` as
``thread.status``, ``thread.settings`` and ``thread.queue_changes``, their events, and the turn
controls showing them; the pinned app-server on the local Responses server, and what a hostile
server could send, against a stand-in."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.app_server.notifications import notification_events
from codex_nb.protocol.thread_state import (
    MAX_SETTING_CHARS,
    ThreadSettings,
    ThreadStateError,
    ThreadStatus,
    thread_settings,
    thread_status,
)
from codex_nb.testing import RecordingSubscriber
from codex_nb.widgets.testing import recording_comms

from helpers.app_server_helpers import SCOPE_QUESTION, Waiter, of_type, real_codex
from helpers.app_server_peer import connected, line, started_thread

ESCALATED = {"cmd": "touch approved.txt", "sandbox_permissions": "require_escalated", "justification": "make a file"}


def waiting_on(flag: str) -> Callable[[cx.events.Event], bool]:
    return lambda e: e.msg.type == "thread_status" and flag in e.msg.status.flags


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_plan_mode_question_shows_waiting_on_your_answer_and_the_plan_mode_settings(tmp_path: Path) -> None:
    script = [[cx.function_call("request_user_input", SCOPE_QUESTION, call_id="q1")], [cx.assistant_message("ok")]]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        # the thread/start answer already says the status and most settings (no mode yet)
        assert thread.status == ThreadStatus(kind="idle")
        assert thread.settings is not None and thread.settings.model and thread.settings.mode is None
        assert thread.settings.cwd == str(tmp_path) and thread.settings.approval_policy
        log = RecordingSubscriber(thread)
        with recording_comms():
            controls = cx.TurnControls(thread)
            prompts = cx.PromptsWidget(thread)
        assert prompts.receive({"kind": "ready", "id": "view-1"})
        assert controls.settings == thread.settings.text() and controls.waiting == ""
        asked = Waiter(thread, waiting_on("waitingOnUserInput"))
        shown = Waiter(thread, of_type("request_user_input"))
        handle = thread.start_turn("ask me", mode="plan")
        await asked.wait()
        await shown.wait()
        assert thread.status is not None and thread.status.kind == "active" and thread.status.waiting_on_user_input
        assert controls.waiting == "Waiting on your answer"
        assert controls.text().splitlines()[0] == "Turn: running [Stop] \u00b7 Waiting on your answer"
        assert "Waiting on your answer" in controls.html()
        request = thread.frontend_requests.pending[0]
        idle = Waiter(thread, lambda e: e.msg.type == "thread_status" and e.msg.status.kind == "idle")
        assert prompts.receive({"kind": "answer_user_input", "id": request.id, "answers": {"scope": "Large"}})
        result = await handle
        await idle.wait()
        assert thread.status == ThreadStatus(kind="idle")
        assert server.connection.schema_errors == []
    assert thread.status is None  # the server is closed: no one reports it now
    assert result.status == "completed"
    # Plan mode came as a settings update: the mode, never its developer instructions
    settings = [e.msg.settings for e in log.of_type("thread_settings")]
    assert settings and settings[-1].mode == "plan" and thread.settings == settings[-1]
    assert "Plan mode" in controls.settings and controls.settings == thread.settings.text()
    assert f"Settings: {thread.settings.text()}" in controls.text().splitlines()
    assert "Plan Mode (Conversational)" not in json.dumps([s.model_dump() for s in settings])
    # the status went active, active + waiting on the answer, active, then idle once the turn ended
    statuses = [e.msg.status for e in log.of_type("thread_status")]
    assert ThreadStatus(kind="active", flags=("waitingOnUserInput",)) in statuses
    assert statuses[-1] == ThreadStatus(kind="idle")
    assert controls.waiting == "" and "Waiting" not in controls.text()


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_pending_approval_shows_waiting_on_your_approval_until_it_is_answered(tmp_path: Path) -> None:
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("ok")]]
    async with real_codex(script, tmp_path / "home", approval_policy="on-request", sandbox_mode="workspace-write") as (
        server,
        _srv,
    ):
        thread = await server.start_thread(cwd=tmp_path)
        assert thread.settings is not None
        assert (thread.settings.approval_policy, thread.settings.sandbox) == ("on-request", "workspaceWrite")
        with recording_comms():
            controls = cx.TurnControls(thread)
            prompts = cx.PromptsWidget(thread)
        assert prompts.receive({"kind": "ready", "id": "view-1"})
        assert "approvals: on-request \u00b7 sandbox: workspace-write" in controls.settings
        asked = Waiter(thread, waiting_on("waitingOnApproval"))
        shown = Waiter(thread, of_type("exec_approval_request"))
        handle = thread.start_turn("make the file")
        await asked.wait()  # Codex says so before it sends the approval request itself
        await shown.wait()
        assert thread.status is not None and thread.status.waiting_on_approval
        assert controls.waiting == "Waiting on your approval"
        assert '<span class="cx-turn-waiting">\u00b7 Waiting on your approval</span>' in controls.html()
        request = thread.frontend_requests.pending[0]
        settled = Waiter(thread, lambda e: e.msg.type == "thread_status" and not e.msg.status.flags)
        assert prompts.receive({"kind": "answer_approval", "id": request.id, "decision": "approve"})
        await settled.wait()
        assert controls.waiting == ""  # answered: no longer waiting, while the turn goes on or ends
        idle = Waiter(thread, lambda e: e.msg.type == "thread_status" and e.msg.status.kind == "idle")
        result = await handle
        await idle.wait()
        assert thread.status == ThreadStatus(kind="idle")
        assert server.connection.schema_errors == []
    assert result.status == "completed" and (tmp_path / "approved.txt").exists()
    assert controls.waiting == ""


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_server_that_dies_mid_approval_leaves_no_waiting_note_and_no_status(tmp_path: Path) -> None:
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("ok")]]
    async with real_codex(
        script, tmp_path / "home", allow_leftover=True, approval_policy="on-request", sandbox_mode="workspace-write"
    ) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with recording_comms():
            controls = cx.TurnControls(thread)
        asked = Waiter(thread, of_type("exec_approval_request"))
        handle = thread.start_turn("make the file")
        await asked.wait()
        assert controls.waiting == "Waiting on your approval"
        await server.kill("the test kills it mid-approval")
        result = await handle
    assert result.status == "failed" and controls.status == "failed"
    assert controls.waiting == "" and thread.status is None  # no server says what it does now


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_queued_input_is_counted_never_invented(tmp_path: Path) -> None:
    """0.171 sends ``thread/queue/changed`` when its queue of submissions changes; codex_nb never
    queues (its published protocol has no queue request), so the binary's unpublished
    ``thread/queue/add`` stands in for another client: Codex queues the input, takes it at once on
    an idle thread and runs it as a turn of its own, saying twice that the queue changed."""
    async with real_codex([[cx.assistant_message("ok")]], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        ran = Waiter(thread, of_type("turn_complete"))
        queued = {"threadId": thread.thread_id, "clientUserMessageId": "u1", "input": [{"type": "text", "text": "x"}]}
        await server.request("thread/queue/add", queued)
        await ran.wait()
    changes = log.of_type("queue_changed")
    assert [e.msg.count for e in changes] == [1, 2] and thread.queue_changes == 2
    assert [e.msg.model_dump() for e in changes][0] == {"type": "queue_changed", "count": 1}  # no contents
    assert log.types.index("queue_changed") < log.types.index("turn_started")


# -- what a hostile server could send -------------------------------------------------------------


def test_statuses_read_as_a_person_needs_them() -> None:
    assert thread_status({"type": "idle"}).text() == ""
    assert thread_status({"type": "active", "activeFlags": []}).text() == ""
    assert thread_status({"type": "active", "activeFlags": ["waitingOnApproval"]}).text() == "Waiting on your approval"
    both = thread_status({"type": "active", "activeFlags": ["waitingOnUserInput", "waitingOnApproval"]})
    assert both.text() == "Waiting on your approval and your answer"
    assert thread_status({"type": "systemError"}).text() == "Codex reported a system error"
    # a later release's flag is kept, cut, and not worded; flags of a non-active status are ignored
    odd = thread_status({"type": "active", "activeFlags": ["x" * 500, *["waitingOnApproval"] * 20]})
    assert len(odd.flags) == 8 and len(odd.flags[0]) == 64 and odd.text() == "Waiting on your approval"
    assert thread_status({"type": "idle", "activeFlags": "junk"}) == ThreadStatus(kind="idle")


@pytest.mark.parametrize(
    "status",
    [None, "idle", {"type": "busy"}, {"type": "active"}, {"type": "active", "activeFlags": [1]}, [{"type": "idle"}]],
)
def test_a_status_of_the_wrong_shape_is_refused_saying_what_was_wrong(status: object) -> None:
    with pytest.raises(ThreadStateError, match="thread status"):
        thread_status(status)
    (event,) = notification_events("thread/status/changed", {"threadId": "t", "status": status})
    assert event.type == "warning"
    assert event.message.startswith("thread/status/changed: thread status")  # type: ignore[attr-defined]
    assert event.message.endswith("the thread's last known status stays")  # type: ignore[attr-defined]


def test_settings_keep_a_bounded_subset_and_never_the_developer_instructions() -> None:
    wire = {
        "model": "m" * 5000,
        "modelProvider": "local",
        "effort": "high",
        "summary": "concise",
        "approvalPolicy": {"granular": {"rules": True, "mcp_elicitations": False, "sandbox_approval": True}},
        "approvalsReviewer": "auto_review",
        "sandboxPolicy": {"type": "externalSandbox", "networkAccess": "enabled"},
        "collaborationMode": {"mode": "plan", "settings": {"model": "m", "developer_instructions": "secret " * 10_000}},
        "cwd": "/w",
        "serviceTier": None,
        "personality": "friendly",
        "disabledPluginIds": ["p"] * 1000,
        "environments": [{"environmentId": "local"}],
    }
    settings = thread_settings(wire)
    assert len(settings.model or "") == MAX_SETTING_CHARS and (settings.model or "").endswith("\u2026")
    assert (settings.approval_policy, settings.approvals_reviewer) == ("granular", "auto_review")
    assert (settings.sandbox, settings.network_access, settings.mode) == ("externalSandbox", True, "plan")
    assert "secret" not in settings.model_dump_json()
    assert settings.text().endswith(
        "\u00b7 effort high \u00b7 Plan mode \u00b7 approvals: granular \u00b7 reviewer: auto review "
        "\u00b7 sandbox: external (network on)"
    )
    assert ThreadSettings(model="gpt", sandbox="dangerFullAccess", network_access=True, mode="default").text() == (
        "gpt \u00b7 Default mode \u00b7 sandbox: full access (no sandbox)"
    )
    assert ThreadSettings().text() == ""


@pytest.mark.parametrize(
    ("wire", "field"),
    [
        ("settings", "`threadSettings`"),
        ({"model": 5}, "`model`"),
        ({"effort": ["high"]}, "`effort`"),
        ({"approvalPolicy": {"never": 1}}, "`approvalPolicy`"),
        ({"sandboxPolicy": "readOnly"}, "`sandboxPolicy`"),
        ({"sandboxPolicy": {"type": "readOnly", "networkAccess": "wide"}}, "`networkAccess`"),
        ({"collaborationMode": {"mode": None}}, "`collaborationMode`"),
    ],
)
def test_settings_of_the_wrong_shape_are_refused_naming_the_field(wire: object, field: str) -> None:
    with pytest.raises(ThreadStateError, match=field):
        thread_settings(wire)
    (event,) = notification_events("thread/settings/updated", {"threadId": "t", "threadSettings": wire})
    assert event.type == "warning" and field in event.message  # type: ignore[attr-defined]


async def test_a_hostile_server_gets_one_warning_per_bad_notification_and_the_thread_keeps_its_state(
    tmp_path: Path,
) -> None:
    server = cx.CodexAppServer(codex_home=tmp_path)
    server._loop = asyncio.get_running_loop()
    async with connected(server) as (peer_reader, peer_writer, _connection):
        answer = {"thread": {"id": "th", "status": {"type": "nonsense"}}, "model": "m", "sandbox": {"type": "readOnly"}}
        thread = await started_thread(server, (peer_reader, peer_writer), tmp_path, answer)
        assert thread.status is None  # the answer's bad status is unknown, not a crash
        assert thread.settings == ThreadSettings(model="m", sandbox="readOnly")
        log = RecordingSubscriber(thread)
        with recording_comms():
            controls = cx.TurnControls(thread)
        notes = [
            ("thread/status/changed", {"status": {"type": "active", "activeFlags": ["waitingOnApproval"]}}),
            ("thread/status/changed", {"status": {"type": "active", "activeFlags": "all"}}),
            ("thread/settings/updated", {"threadSettings": {"model": "gpt", "collaborationMode": {"mode": "plan"}}}),
            ("thread/settings/updated", {"threadSettings": {"model": {"name": "x"}}}),
            ("thread/queue/changed", {}),
            ("thread/queue/changed", {"queue": ["invented"]}),
        ]
        ended = Waiter(thread, lambda e: e.msg.type == "queue_changed" and e.msg.count == 2)
        for method, params in notes:
            peer_writer.write(line({"method": method, "params": {"threadId": "th", **params}}))
        await ended.wait(10)
    assert thread.status == ThreadStatus(kind="active", flags=("waitingOnApproval",))
    assert thread.settings == ThreadSettings(model="gpt", mode="plan")
    assert thread.queue_changes == 2
    assert [e.msg.count for e in log.of_type("queue_changed")] == [1, 2]
    warnings = [e.msg.message for e in log.of_type("warning")]
    assert len(warnings) == 2
    assert "`activeFlags`" in warnings[0] and "`model`" in warnings[1]
    assert controls.waiting == "Waiting on your approval" and controls.settings == "gpt \u00b7 Plan mode"
