"""TurnControls: turn state from events, Stop -> session.interrupt(), stable reprs."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest

import codex_nb as cx
from codex_nb.widgets.browser_messages import kinds
from codex_nb.widgets.testing import RecordingComm, recording_comms
from codex_nb.widgets.turn_controls import TurnControls, stop_outcomes
from helpers.paths import JS

JS = JS / "turn_controls.js"


def blocking_turn(session: cx.Session):
    started, release = asyncio.Event(), asyncio.Event()

    @session.tool
    async def slow() -> str:
        "Wait until released."
        started.set()
        await release.wait()
        return "done"

    model = cx.ScriptedModel(
        [[cx.function_call("slow", {}, call_id="s1")], [cx.assistant_message("ok")]], allow_leftover=True
    )
    return started, release, model


def make(session: cx.Session) -> tuple[TurnControls, RecordingComm]:
    with recording_comms():
        controls = TurnControls(session)
    assert isinstance(controls.comm, RecordingComm)
    return controls, controls.comm


def states(comm) -> list[tuple]:
    """The (status, stoppable) pairs the browser was sent, in order."""
    out, current = [], dict(comm.opened_state())
    out.append((current["status"], current["stoppable"]))
    for update in comm.updates():
        current.update(update)
        pair = (current["status"], current["stoppable"])
        if pair != out[-1]:
            out.append(pair)
    return out


async def test_stop_from_the_view_interrupts_the_running_turn(session, no_leaked_tasks):
    started, _, model = blocking_turn(session)
    controls, comm = make(session)
    assert controls.text() == "Turn: no turn yet"
    handle = session.start_turn("go", model=model)
    await started.wait()
    assert controls.text() == "Turn: running [Stop]"
    comm.send_custom({"id": "r1", "kind": "stop"})
    assert controls.last_stop == {"id": "r1", "outcome": "interrupting"}
    assert controls.text() == "Turn: running (stopping)"
    result = await handle
    assert result.status == "interrupted"
    assert controls.text() == "Turn: interrupted"
    assert states(comm) == [("idle", False), ("running", True), ("running", False), ("interrupted", False)]
    comm.send_custom({"id": "r2", "kind": "stop"})  # nothing running: still exactly one reply
    assert controls.stops == [{"id": "r1", "outcome": "interrupting"}, {"id": "r2", "outcome": "not_running"}]
    assert comm.updates()[-1] == {"last_stop": {"id": "r2", "outcome": "not_running"}}


async def test_completed_and_failed_turns(session, no_leaked_tasks):
    with recording_comms():
        controls = TurnControls(session)
    await session.run_turn("hi", model=cx.ScriptedModel([[cx.assistant_message("hello")]]))
    assert controls.status == "completed" and controls.text() == "Turn: completed"
    await session.run_turn("hi", model=cx.ScriptedModel([]))  # over-used model: the turn fails
    assert controls.status == "failed"


async def test_attached_while_a_turn_runs(session, no_leaked_tasks):
    started, release, model = blocking_turn(session)
    handle = session.start_turn("go", model=model)
    await started.wait()
    with recording_comms():
        controls = TurnControls(session)
    assert controls.status == "running" and controls.stoppable
    release.set()
    await handle
    assert controls.status == "completed"


async def test_stop_from_another_thread(session, no_leaked_tasks):
    started, _, model = blocking_turn(session)
    controls, comm = make(session)
    handle = session.start_turn("go", model=model)
    await started.wait()
    thread = threading.Thread(target=comm.send_custom, args=({"id": "t1", "kind": "stop"},))
    thread.start()
    result = await handle
    await asyncio.to_thread(thread.join)
    assert result.status == "interrupted"
    assert controls.stops == [{"id": "t1", "outcome": "interrupting"}]


@pytest.mark.parametrize(
    "message",
    [
        "stop",
        {"kind": "stop"},
        {"id": "x", "kind": "halt"},
        {"id": "x", "kind": "stop", "force": True},
        {"id": 3, "kind": "stop"},
    ],
)
def test_malformed_messages_are_rejected_visibly(session, message):
    controls, comm = make(session)
    comm.send_custom(message)
    assert controls.error and controls.rejected == [controls.error]
    assert controls.stops == []


def test_needs_a_session():
    with pytest.raises(TypeError, match=r"TurnControls needs a codex_nb.Session, got int"):
        TurnControls(3)


def test_reprs_are_stable(session):
    with recording_comms():
        controls = TurnControls(session)
    bundle, _ = controls._repr_mimebundle_()
    assert bundle["text/plain"] == "Turn: no turn yet" == repr(controls)
    assert bundle["text/html"] == (
        '<div class="cx-turn-controls-static"><span class="cx-turn-status">Turn: no turn yet</span></div>'
    )
    assert not re.search(r"0x[0-9a-f]+", str(bundle["text/plain"]))


def test_js_uses_the_protocol_kinds():
    assert kinds("turn_controls", "to_kernel") == ("stop", "set_option", "compact")
    assert stop_outcomes() == ("interrupting", "not_running")
    source = JS.read_text()
    assert "CONTROLS_TO_KERNEL.stop" in source and "CONTROLS_TO_KERNEL.compact" in source
    for outcome in stop_outcomes():
        if outcome != "interrupting":  # the view only needs to word the refusal
            assert f'"{outcome}"' in source
    for name in ("status", "stoppable", "last_stop", "error", "can_compact", "compact_note"):
        assert f'"{name}"' in source
        assert name in TurnControls.class_trait_names(sync=True)


def test_session_convenience(session):
    with recording_comms():
        controls = cx.TurnControls(session)
    assert isinstance(controls, TurnControls) and controls.text() == "Turn: no turn yet"


def test_a_codex_threads_waiting_note_and_settings_show_in_the_text_and_the_escaped_saved_html(session):
    from codex_nb.protocol.thread_state import ThreadSettings, ThreadSettingsUpdated, ThreadStatus, ThreadStatusChanged

    controls, comm = make(session)
    assert controls.text() == "Turn: no turn yet" and controls.waiting == controls.settings == ""  # no such state
    bus = session.bus
    hostile = ThreadSettings(model="<b>gpt</b>", mode="plan", approval_policy="never", sandbox="readOnly")
    bus.emit(ThreadSettingsUpdated(settings=hostile), id="s")
    bus.emit(ThreadStatusChanged(status=ThreadStatus(kind="active", flags=("waitingOnUserInput",))), id="s")
    assert controls.text() == (
        "Turn: no turn yet \u00b7 Waiting on your answer\n"
        "Settings: <b>gpt</b> \u00b7 Plan mode \u00b7 approvals: never \u00b7 sandbox: read-only"
    )
    page = controls.html()
    assert "<b>gpt" not in page and "&lt;b&gt;gpt&lt;/b&gt; \u00b7 Plan mode" in page
    assert '<span class="cx-turn-waiting">\u00b7 Waiting on your answer</span>' in page
    sent = [u for u in comm.updates() if "waiting" in u or "settings" in u]
    assert sent == [{"settings": hostile.text()}, {"waiting": "Waiting on your answer"}]
    bus.emit(ThreadStatusChanged(status=ThreadStatus(kind="systemError")), id="s")
    assert controls.text().splitlines()[0] == "Turn: no turn yet \u00b7 Codex reported a system error"
    bus.emit(ThreadStatusChanged(status=ThreadStatus(kind="idle")), id="s")
    assert "cx-turn-waiting" not in controls.html() and controls.text().splitlines()[0] == "Turn: no turn yet"


def test_a_turn_that_ends_waits_on_no_one_but_a_system_error_stays(session):
    from codex_nb.protocol.events import TurnComplete, TurnStarted
    from codex_nb.protocol.thread_state import ThreadStatus, ThreadStatusChanged

    controls, _comm = make(session)
    bus = session.bus
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    bus.emit(ThreadStatusChanged(status=ThreadStatus(kind="active", flags=("waitingOnApproval",))), id="s")
    assert controls.waiting == "Waiting on your approval"
    # Codex's server died mid-approval: it never said idle, and the turn ended failed
    bus.emit(TurnComplete(turn_id="t1"), id="t1", turn_id="t1")
    assert controls.waiting == "" and controls.text() == "Turn: completed"
    bus.emit(TurnStarted(turn_id="t2"), id="t2", turn_id="t2")
    bus.emit(ThreadStatusChanged(status=ThreadStatus(kind="systemError")), id="s")
    bus.emit(TurnComplete(turn_id="t2"), id="t2", turn_id="t2")
    assert controls.text() == "Turn: completed \u00b7 Codex reported a system error"
