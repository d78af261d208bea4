"""PlanChecklist with a recording comm: snapshot replacement, ordering, coalescing, fallbacks."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import subprocess
import threading
import types

import pytest

import codex_nb as cx
from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import PlanItemArg, StepStatus
from codex_nb.widgets import browser_messages as wire
from codex_nb.widgets._static import asset
from codex_nb.widgets.checklist import SNAPSHOT_KEYS, PlanChecklist
from codex_nb.widgets.plan_static import _fallback_text, static_html
from codex_nb.widgets.testing import RecordingComm, recording_comms
from helpers.paths import JS


def plan(*steps: tuple[str, str], explanation: str | None = None) -> PlanUpdate:
    return PlanUpdate(explanation=explanation, plan=[PlanItemArg(step=s, status=StepStatus(st)) for s, st in steps])


def emit(session: cx.Session, msg: PlanUpdate, *, revision: int | None, turn_id: str = "turn-1") -> None:
    session.bus.emit(msg, id="sub-1", turn_id=turn_id, revision=revision)


def make(session: cx.Session, **kwargs: object) -> tuple[PlanChecklist, RecordingComm]:
    with recording_comms():
        widget = PlanChecklist(session, **kwargs)
    assert isinstance(widget.comm, RecordingComm)
    return widget, widget.comm


def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("node is required in CI for the JS protocol checks")
        pytest.skip("node is not installed")
    return found


# ---------------------------------------------------------------- snapshot replacement


def test_each_snapshot_is_one_update_message_with_the_whole_snapshot(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    emit(session, plan(("a", "in_progress"), ("b", "pending"), explanation="why"), revision=1)
    emit(session, plan(("a", "completed"), ("b", "in_progress")), revision=2)
    updates = comm.updates()
    assert len(updates) == 2
    assert updates == [
        {
            "explanation": "why",
            "steps": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "pending"}],
            "thread_id": session.thread_id,
            "turn_id": "turn-1",
            "revision": 1,
        },
        {
            "explanation": None,
            "steps": [{"step": "a", "status": "completed"}, {"step": "b", "status": "in_progress"}],
            "thread_id": session.thread_id,
            "turn_id": "turn-1",
            "revision": 2,
        },
    ]
    assert set(updates[0]) == set(SNAPSHOT_KEYS)
    assert widget.revision == 2 and widget.explanation is None


def test_shrinking_and_empty_snapshots_replace_everything(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    emit(session, plan(*[(f"s{i}", "pending") for i in range(5)]), revision=1)
    emit(session, plan(("only", "in_progress"), ("last", "pending")), revision=2)
    assert [s["step"] for s in widget.steps] == ["only", "last"]
    emit(session, plan(explanation="Starting"), revision=3)
    assert widget.steps == [] and widget.explanation == "Starting"
    assert comm.updates()[-1]["steps"] == []


def test_a_ranked_plan_carries_its_priorities_and_a_codex_plan_none(session: cx.Session) -> None:
    from codex_nb.acp.acp_events import AcpPlanUpdate

    widget, comm = make(session, max_rate=None)
    steps = plan(("a", "in_progress"), ("b", "pending"), ("c", "pending")).plan
    emit(session, AcpPlanUpdate(explanation=None, plan=steps, priorities=("high", "")), revision=1)
    assert widget.steps == [
        {"step": "a", "status": "in_progress", "priority": "high"},
        {"step": "b", "status": "pending"},
        {"step": "c", "status": "pending"},
    ]
    # the saved rendering labels the rank as the live badge does ("high priority"), only where one is
    page = widget.html()
    assert (
        page.count("priority)") == 1 and '<strong>a</strong> <small class="codex-plan-priority">(high priority)' in page
    )
    emit(session, plan(("a", "completed")), revision=2)
    assert "priority" not in widget.html()
    assert comm.updates()[-1]["steps"] == [{"step": "a", "status": "completed"}]


def test_stale_and_out_of_order_revisions_are_dropped(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    emit(session, plan(("new", "pending")), revision=3)
    emit(session, plan(("older", "pending")), revision=2)
    emit(session, plan(("same", "pending")), revision=3)
    assert widget.steps == [{"step": "new", "status": "pending"}]
    assert len(comm.updates()) == 1
    assert widget.stats.dropped_stale == 2


def test_other_threads_are_ignored(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    other = cx.Session()
    other.subscribe(widget._on_event)  # even if wired to the wrong bus, the thread id filters
    other.bus.emit(plan(("foreign", "pending")), id="x", turn_id="t", revision=9)
    assert widget.revision is None and comm.updates() == []
    assert widget.stats.other_thread == 1


async def test_real_update_plan_call_reaches_the_widget(session: cx.Session) -> None:
    widget, comm = make(session)
    await session.call_tool("update_plan", {"explanation": "x", "plan": [{"step": "a", "status": "completed"}]})
    await widget.settled()
    assert comm.updates()[-1]["steps"] == [{"step": "a", "status": "completed"}]
    assert widget.revision == 1


# ---------------------------------------------------------------- coalescing


async def test_burst_is_coalesced_and_the_last_snapshot_arrives(
    session: cx.Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    widget, comm = make(session)
    # The burst takes no time on the widget's clock: on a loaded machine the 100 emits can take
    # longer than one 1/60 s interval, and the widget then rightly flushes in the middle of it.
    monkeypatch.setattr("codex_nb.widgets.checklist.time", types.SimpleNamespace(monotonic=lambda: 1000.0))
    for revision in range(1, 101):
        emit(session, plan((f"step {revision}", "in_progress")), revision=revision)
    await widget.settled()
    updates = comm.updates()
    assert [u["revision"] for u in updates] == [1, 100]
    assert updates[-1]["steps"] == [{"step": "step 100", "status": "in_progress"}]
    assert widget.stats.coalesced == 98 and widget.stats.flushes == 2


async def test_burst_from_another_thread_is_flushed_on_the_loop(session: cx.Session) -> None:
    widget, comm = make(session)
    done = asyncio.Event()
    loop = asyncio.get_running_loop()

    def producer() -> None:
        for revision in range(1, 201):
            emit(session, plan((f"s{revision}", "pending")), revision=revision)
        loop.call_soon_threadsafe(done.set)

    thread = threading.Thread(target=producer)
    thread.start()
    await done.wait()
    thread.join()
    await widget.settled()
    assert widget.revision == 200
    assert comm.updates()[-1]["revision"] == 200
    revisions = [u["revision"] for u in comm.updates()]
    assert revisions == sorted(revisions) and len(revisions) < 200


async def test_turn_end_flushes_the_pending_snapshot_at_once(session: cx.Session) -> None:
    widget, comm = make(session)
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": [{"step": "a", "status": "in_progress"}]}, call_id="c1")],
            [cx.function_call("update_plan", {"plan": [{"step": "a", "status": "completed"}]}, call_id="c2")],
            [cx.assistant_message("done")],
        ]
    )
    result = await session.run_turn("go", model=model)
    assert result.status == "completed"
    # no settled(): turn_complete flushed synchronously with the final snapshot
    assert widget.steps == [{"step": "a", "status": "completed"}]
    assert widget.turn_status == "completed" and widget.turn_id == result.turn_id
    assert comm.updates()[-1]["turn_status"] == "completed"


# ---------------------------------------------------------------- views and browser messages


def test_a_second_view_gets_the_same_state(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    emit(session, plan(("a", "completed"), ("b", "in_progress"), explanation="e"), revision=4)
    comm.request_state()
    state = comm.updates()[-1]
    for key in (*SNAPSHOT_KEYS, "turn_status", "error", "protocol_error"):
        assert state[key] == getattr(widget, key), key
    assert state["_esm"] == asset("plan_checklist.js").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("not an object", "expected a JSON object"),
        ({"id": "1"}, "unknown message kind None"),
        ({"id": "1", "kind": "delete_everything"}, "unknown message kind 'delete_everything'"),
        ({"kind": "rendered", "revision": 1}, "'id' must be a non-empty string"),
        ({"id": "", "kind": "rendered", "revision": 1}, "'id' must be a non-empty string"),
        ({"id": "x" * 500, "kind": "rendered", "revision": 1}, "'id' must be a non-empty string"),
        ({"id": "1", "kind": "rendered"}, "missing field 'revision'"),
        ({"id": "1", "kind": "rendered", "revision": "3"}, "field 'revision' must be integer|null"),
        ({"id": "1", "kind": "rendered", "revision": True}, "field 'revision' must be integer|null"),
        ({"id": "1", "kind": "rendered", "revision": 1, "extra": 2}, "unexpected field(s) ['extra']"),
    ],
)
def test_malformed_browser_messages_are_rejected_visibly(
    session: cx.Session, content: object, needle: str, caplog: pytest.LogCaptureFixture
) -> None:
    widget, comm = make(session, max_rate=None)
    with caplog.at_level(logging.WARNING, logger="codex_nb.widgets.checklist"):
        comm.send_custom(content)
    assert needle in widget.protocol_error
    assert needle in caplog.text
    reply = comm.customs()[-1]
    assert reply["kind"] == "error" and needle in reply["message"]
    assert reply["id"] == (
        content.get("id") if isinstance(content, dict) and isinstance(content.get("id"), str) else None
    )
    assert comm.updates()[-1] == {"protocol_error": widget.protocol_error}
    # the widget keeps working
    comm.send_custom({"id": "ok", "kind": "rendered", "revision": 7})
    assert comm.customs()[-1] == {"kind": "ack", "id": "ok"}
    emit(session, plan(("still", "pending")), revision=1)
    assert widget.steps == [{"step": "still", "status": "pending"}]


def test_field_types_cover_every_spec_in_protocol_json() -> None:
    specs = {
        spec
        for widget in wire.protocol()["widgets"].values()
        for fields in widget["to_kernel"].values()
        for spec in fields.values()
    }
    for spec in specs:
        for name in spec.split("|"):
            if name == "absent":  # not a type: the field may be left out (browser_messages reads it so)
                continue
            assert name in wire._CHECKS, f"protocol.json uses field type {name!r} the validator does not know"


def test_rendered_reports_are_recorded(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    comm.send_custom({"id": "a", "kind": "rendered", "revision": 3})
    comm.send_custom({"id": "b", "kind": "rendered", "revision": 2})
    assert widget.rendered_revision == 3
    assert comm.customs() == [{"kind": "ack", "id": "a"}, {"kind": "ack", "id": "b"}]


def test_request_hooks_accept_only_declared_kinds(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    with pytest.raises(ValueError, match="declare it in js/protocol.json"):
        widget.on_request("stop", lambda m: None)

    def broken(message: dict) -> None:
        raise RuntimeError("handler bug")

    widget.on_request("rendered", broken)
    comm.send_custom({"id": "z", "kind": "rendered", "revision": 1})
    assert comm.customs()[-1]["kind"] == "error"
    assert "RuntimeError: handler bug" in widget.protocol_error


# ---------------------------------------------------------------- turn status and errors


async def test_a_failed_background_turn_is_shown(session: cx.Session) -> None:
    widget, comm = make(session)
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": [{"step": "a", "status": "in_progress"}]}, call_id="c1")],
        ]
    )  # under-scripted: the second sampling step fails the turn
    handle = session.start_turn("go", model=model)
    result = await handle
    assert result.status == "failed"
    await widget.settled()
    assert widget.turn_status == "failed"
    assert "ScriptedModel was asked for response 2" in widget.error
    assert "ScriptedModel was asked for response 2" in widget.text()
    assert widget.handle is handle


async def test_an_exception_in_a_tracked_task_is_shown(session: cx.Session) -> None:
    widget, comm = make(session)

    async def boom() -> None:
        raise RuntimeError("background failure")

    task = asyncio.ensure_future(boom())
    assert widget.track(task) is task
    assert widget.turn_status == "running"
    with pytest.raises(RuntimeError):
        await task
    await widget.settled()
    assert widget.turn_status == "failed"
    assert widget.error == "RuntimeError: background failure"


async def test_an_interrupted_turn_is_shown(session: cx.Session) -> None:
    widget, comm = make(session)
    gate = asyncio.Event()
    entered = asyncio.Event()

    @session.tool
    async def wait_here() -> str:
        "Wait for the test."
        entered.set()
        await gate.wait()
        return "released"

    model = cx.ScriptedModel(
        [[cx.function_call("wait_here", {}, call_id="w1")], [cx.assistant_message("never")]], allow_leftover=True
    )
    handle = session.start_turn("go", model=model)
    await entered.wait()
    assert widget.turn_status == "running"
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted"
    await widget.settled()
    assert widget.turn_status == "interrupted"
    # the saved rendering says the turn ended, as the live header does
    assert '<div class="codex-plan-turn" data-turn-status="interrupted">Turn interrupted</div>' in widget.html()
    assert widget.text().endswith("\n  Turn interrupted")


def test_a_step_a_stopped_turn_left_in_progress_reads_as_stopped_in_the_saved_renderings() -> None:
    """Opened without a kernel, an interrupted turn's plan must not show live work."""
    from codex_nb.protocol.plan import UpdatePlanArgs
    from codex_nb.widgets.plan_static import plain_text, static_html

    args = UpdatePlanArgs.model_validate({"plan": [{"step": "Wait for it", "status": "in_progress"}]})
    live = static_html(args, turn_status="running")
    assert 'title="In progress"' in live and "jp-brand-color1" in live and "codex-plan-turn" not in live
    assert "Turn" not in plain_text(args, turn_status="running")
    for status in ("interrupted", "failed"):
        saved = static_html(args, turn_status=status)
        assert f'title="In progress when the turn was {status}" style="opacity:.6"' in saved
        assert "jp-brand-color1" not in saved
        assert plain_text(args, turn_status=status).endswith(f"\n  Turn {status}")
    assert "Turn" not in plain_text(args, turn_status="completed")


async def test_session_checklist_convenience(session: cx.Session) -> None:
    with recording_comms():
        widget = cx.PlanChecklist(session, width=40)
    assert isinstance(widget, PlanChecklist) and widget.thread_id == session.thread_id
    await session.call_tool("update_plan", {"plan": [{"step": "a", "status": "pending"}]})
    await widget.settled()
    assert widget.text() == "• Updated Plan\n  └ □ a"
    assert PlanChecklist.attach(session, max_rate=None).thread_id == session.thread_id


def test_a_widget_outlives_its_first_loop(session: cx.Session) -> None:
    async def first() -> PlanChecklist:
        with recording_comms():
            return PlanChecklist(session)

    widget = asyncio.run(first())  # the loop it captured is now closed

    async def second() -> None:
        emit(session, plan(("a", "pending")), revision=1)
        emit(session, plan(("b", "pending")), revision=2)
        await widget.settled()

    asyncio.run(second())
    assert widget.steps == [{"step": "b", "status": "pending"}]


def test_constructor_needs_a_session() -> None:
    with pytest.raises(TypeError, match="needs a codex_nb.Session"):
        PlanChecklist(object())  # type: ignore[arg-type]


def test_close_unsubscribes(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    widget.close()
    emit(session, plan(("after", "pending")), revision=1)
    assert widget.revision is None


# ---------------------------------------------------------------- static fallbacks


def test_text_plain_is_the_codex_rendering_and_stable(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None, width=40)
    data, _ = widget._repr_mimebundle_()
    assert data["text/plain"] == "• Updated Plan\n  └ (no plan yet)"
    emit(
        session,
        plan(("Define error taxonomy", "in_progress"), ("Implement mapping to user messages", "pending")),
        revision=1,
    )
    data, _ = widget._repr_mimebundle_()
    assert data["text/plain"] == (
        "• Updated Plan\n  └ □ Define error taxonomy\n    □ Implement mapping to user messages"
    )
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "0x" not in data["text/plain"] and session.thread_id not in data["text/plain"]
    assert "0x" not in repr(widget)


def test_text_html_escapes_and_carries_status_in_text(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    emit(
        session,
        plan(
            ("<script>alert(1)</script>", "completed"),
            ("b & c", "in_progress"),
            ("d", "pending"),
            explanation="<b>why</b>",
        ),
        revision=1,
    )
    page = widget._repr_mimebundle_()[0]["text/html"]
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;why&lt;/b&gt;" in page and "b &amp; c" in page
    assert 'title="Completed"' in page and "<s>" in page and "<strong>b &amp; c</strong>" in page
    assert "(1/3 done)" in page
    assert "(no steps provided)" in static_html(UpdatePlanArgs(plan=[]))


@pytest.mark.parametrize(
    "args",
    [
        UpdatePlanArgs(plan=[]),
        UpdatePlanArgs(explanation="  Starting ", plan=[]),
        UpdatePlanArgs(
            explanation="Why",
            plan=[
                PlanItemArg(step="a", status=StepStatus.COMPLETED),
                PlanItemArg(step="b", status=StepStatus.IN_PROGRESS),
                PlanItemArg(step="c", status=StepStatus.PENDING),
            ],
        ),
    ],
)
def test_the_text_fallback_matches_the_codex_renderer_for_short_lines(args: UpdatePlanArgs) -> None:
    from codex_nb.render.text import render_plan_text

    assert _fallback_text(args) == render_plan_text(args, width=80)


@pytest.mark.slow
def test_huge_snapshot_is_accepted_and_rendered_statically(session: cx.Session) -> None:
    widget, comm = make(session, max_rate=None)
    big = "x" * 10_240
    emit(session, plan(*[(f"{i} {big}", "pending") for i in range(1000)]), revision=1)
    assert len(widget.steps) == 1000
    assert widget.html().count("<li") == 1000


# ---------------------------------------------------------------- JS assets and protocol


def test_python_and_js_read_the_same_protocol() -> None:
    script = (
        "import * as p from './protocol.js';"
        "console.log(JSON.stringify({version: p.PROTOCOL_VERSION, to_kernel: Object.keys(p.CHECKLIST_TO_KERNEL),"
        " to_view: Object.keys(p.CHECKLIST_TO_VIEW), step: p.STEP_STATUSES, turn: p.TURN_STATUSES}));"
    )
    out = subprocess.run(
        [node(), "--input-type=module", "-e", script], cwd=JS, capture_output=True, text=True, check=True
    ).stdout
    js = json.loads(out)
    assert js == {
        "version": wire.protocol()["version"],
        "to_kernel": list(wire.kinds("plan_checklist", "to_kernel")),
        "to_view": list(wire.kinds("plan_checklist", "to_view")),
        "step": [s.value for s in StepStatus],
        "turn": wire.protocol()["turn_statuses"],
    }
    assert set(wire.protocol()["turn_statuses"]) >= {"idle", "running", "completed", "interrupted", "failed"}
