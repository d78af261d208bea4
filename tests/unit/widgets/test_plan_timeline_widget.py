"""PlanTimelineWidget without a browser: the synced state a view draws (the list of
revisions, the selected snapshot with its changes), selection requests checked against
protocol.json, coalesced bursts, and the static fallbacks."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.widgets._static import asset
from codex_nb.widgets.testing import RecordingComm, recording_comms
from codex_nb.widgets.timeline import MAX_LISTED, PlanTimelineWidget

from helpers.app_server_helpers import plan_call
from helpers.plan_timelines import FIVE_PLANS, BusSource


def make(source: Any) -> tuple[PlanTimelineWidget, RecordingComm]:
    with recording_comms():
        widget = PlanTimelineWidget(source, max_rate=None)  # every loop pass: what these tests check
    assert isinstance(widget.comm, RecordingComm)
    return widget, widget.comm


async def _session_widget(session: cx.Session) -> tuple[PlanTimelineWidget, RecordingComm]:
    widget, comm = make(session)
    script: list[Any] = [[plan_call(steps, call_id=f"call-{i}")] for i, steps in enumerate(FIVE_PLANS)]
    await session.run_turn("plan", model=cx.ScriptedModel([*script, [cx.assistant_message("done")]]))
    await asyncio.sleep(0)  # one loop pass: the coalesced refresh runs (call_soon)
    return widget, comm


async def test_the_list_and_the_newest_snapshot_follow_a_session(session: cx.Session) -> None:
    widget, comm = await _session_widget(session)
    assert [e["index"] for e in widget.entries] == [0, 1, 2, 3, 4]
    assert widget.entries[4]["regression"] and not widget.entries[3]["regression"]
    assert widget.entries[3]["summary"] == "1 renamed"
    turn = widget.timeline[0].turn_id
    assert turn is not None and len(turn) > 12
    assert widget.entries[0]["label"] == f"#0 · turn {turn[:11]}… · call call-0"  # the list keeps ids short
    assert widget.snapshot["heading"] == f"#4 · turn {turn} · call call-4"  # the heading has them whole
    assert widget.selected is None and widget.snapshot is not None and widget.snapshot["index"] == 4
    assert [(s["step"], s["change"]) for s in widget.snapshot["steps"]] == [
        ("Read the code", "regression: completed → in_progress"),
        ("Write the unit tests", "in_progress → completed"),
        ("Update the docs", "added"),
    ]
    assert widget.snapshot["removed"] == ["Ship it"]
    assert len(json.loads([u for u in comm.updates() if "entries" in u][-1]["entries"])) == 5  # one JSON string


async def test_a_burst_in_one_loop_pass_is_one_update() -> None:
    source = BusSource()
    widget, comm = make(source)
    for revision in range(1, 51):
        source.plan([(f"step {revision}", "pending")], revision=revision)
    assert comm.updates() == []  # nothing sent yet: the refresh waits for the loop
    await asyncio.sleep(0)
    assert len(comm.updates()) == 1 and len(widget.entries) == 50 and widget.snapshot["index"] == 49


async def test_a_select_request_shows_that_revision_and_null_follows_the_newest(session: cx.Session) -> None:
    widget, comm = await _session_widget(session)
    comm.send_custom({"id": "s1", "kind": "select", "index": 3})
    assert comm.customs()[-1] == {"kind": "ack", "id": "s1"}
    assert widget.selected == 3 and widget.snapshot["index"] == 3
    assert widget.snapshot["steps"][1] == {
        "step": "Write the unit tests",
        "status": "in_progress",
        "change": "renamed from “Write the tests”",
    }
    await session.run_turn(
        "more", model=cx.ScriptedModel([[plan_call([("x", "pending")], call_id="c5")], [cx.assistant_message("k")]])
    )
    await asyncio.sleep(0)
    assert widget.snapshot["index"] == 3 and len(widget.entries) == 6  # a selection stays put
    comm.send_custom({"id": "s2", "kind": "select", "index": None})
    assert widget.selected is None and widget.snapshot["index"] == 5


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ({"id": "1", "kind": "select"}, "missing field 'index'"),
        ({"id": "1", "kind": "select", "index": "3"}, "field 'index' must be integer|null"),
        ({"id": "1", "kind": "rendered", "revision": 1}, "unknown message kind 'rendered'"),
        ({"id": "1", "kind": "select", "index": 99}, "revision 99 does not exist yet"),
    ],
)
def test_bad_requests_are_answered_and_shown(content: dict[str, Any], needle: str) -> None:
    source = BusSource()
    widget, comm = make(source)
    source.plan([("a", "pending")], revision=1)
    comm.send_custom(content)
    assert needle in widget.protocol_error
    assert comm.customs()[-1]["kind"] == "error" and needle in comm.customs()[-1]["message"]
    comm.send_custom({"id": "ok", "kind": "select", "index": 0})
    assert comm.customs()[-1] == {"kind": "ack", "id": "ok"} and widget.protocol_error == ""


def test_a_long_history_lists_the_newest_and_counts_the_rest() -> None:
    source = BusSource()
    timeline = cx.PlanTimeline(source, max_revisions=MAX_LISTED + 20)
    widget, _comm = make(timeline)
    for revision in range(1, MAX_LISTED + 51):
        source.plan([(f"step {revision}", "pending")], revision=revision)
    assert len(widget.entries) == MAX_LISTED
    assert widget.hidden == 20 and widget.entries[0]["index"] == 50
    assert widget.notes == [f"30 older revision(s) dropped (keeps the newest {MAX_LISTED + 20})"]


def test_the_list_is_one_page_and_a_selection_brings_its_page() -> None:
    source = BusSource()
    widget, _comm = make(source)
    for revision in range(1, 251):
        source.plan([("a", "in_progress" if revision % 2 else "pending")], revision=revision)
    widget._refresh()
    assert [e["index"] for e in widget.entries] == list(range(150, 250)) and (widget.hidden, widget.newer) == (150, 0)
    widget.select(10)  # pages count back from the newest: 0..49, 50..149, 150..249
    assert [e["index"] for e in widget.entries] == list(range(50)) and (widget.hidden, widget.newer) == (0, 200)
    assert widget.snapshot["index"] == 10
    widget.select(50)
    assert widget.entries[0]["index"] == 50 and len(widget.entries) == MAX_LISTED and widget.newer == 100
    widget.select(None)
    assert widget.entries[-1]["index"] == 249 and widget.newer == 0


@pytest.mark.slow
def test_ten_thousand_revisions_cost_the_view_one_page_and_refused_ones_are_named() -> None:
    source = BusSource()
    timeline = cx.PlanTimeline(source)  # recorded first: a widget without a loop would redraw each one
    for revision in range(1, 10_001):
        source.plan([(f"step {revision % 7}", "pending"), ("<b>html</b> \ud800", "in_progress")], revision=revision)
    source.plan([("late", "pending")], revision=5)  # older than the newest: refused, not slotted in
    widget, comm = make(timeline)
    comm.request_state()
    assert len(widget.timeline) == 10_000 and len(widget.entries) == MAX_LISTED
    last = comm.updates()[-1]
    assert (
        len(json.loads(last["entries"])) == MAX_LISTED and len(json.dumps(last)) < 60_000
    )  # one page and one snapshot, whatever the history's length
    assert widget.notes == ["1 out-of-order snapshot(s) refused (revision 5 after 10000)"]
    assert "1 out-of-order snapshot(s) refused (revision 5 after 10000)" in widget.html()
    assert widget.snapshot["steps"][1]["step"] == "<b>html</b> \ufffd"  # text, well-formed
    assert "&lt;b&gt;html&lt;/b&gt; \ufffd" in widget.html() and "<b>html" not in widget.html()


def test_an_evicted_selection_falls_back_to_the_newest() -> None:
    source = BusSource()
    widget, _comm = make(cx.PlanTimeline(source, max_revisions=2))
    source.plan([("a", "pending")], revision=1)
    widget.select(0)
    source.plan([("b", "pending")], revision=2)
    source.plan([("c", "pending")], revision=3)
    assert widget.selected is None and widget.snapshot["index"] == 2


def test_hostile_text_crosses_the_comm_well_formed() -> None:
    source = BusSource()
    widget, comm = make(source)
    source.plan([("lone \ud800 <b>x</b>", "pending")], revision=1, explanation="\udfff")
    state = comm.updates()[-1]
    assert state["snapshot"]["steps"][0]["step"] == "lone \ufffd <b>x</b>"  # the view sets it as text
    assert state["snapshot"]["explanation"] == "\ufffd"
    page = widget.html()
    assert "<b>" not in page and "lone \ufffd &lt;b&gt;x&lt;/b&gt;" in page  # the stored HTML shows it as text


def test_the_widget_ships_its_bundle_and_static_fallbacks() -> None:
    source = BusSource()
    widget, comm = make(source)
    source.plan([("a", "pending")], revision=1)
    comm.request_state()
    assert comm.updates()[-1]["_esm"] == asset("plan_timeline.js").read_text(encoding="utf-8")
    data, _ = widget._repr_mimebundle_()
    assert data["text/plain"] == widget.timeline.text()
    assert data["text/html"] == widget.html() and data["text/html"].startswith('<div class="codex-timeline-static"')
    assert "Plan history</strong> <span>(1 revision)" in data["text/html"]


def test_closing_a_widget_stops_the_timeline_it_made_but_not_one_it_was_given() -> None:
    source = BusSource()
    own, _ = make(source)
    given_timeline = cx.PlanTimeline(source)
    given, _ = make(given_timeline)
    own.close()
    given.close()
    assert own.timeline.closed and not given_timeline.closed
    source.plan([("a", "pending")], revision=1)
    assert len(own.timeline) == 0 and len(given_timeline) == 1


class SignallingComm(RecordingComm):
    """A recording comm that says when a message was sent, so a test can wait for it."""

    def __init__(self, **kwargs: Any) -> None:
        self.sent = asyncio.Event()
        self.times: list[float] = []
        """The loop's clock at each send (not when a waiting test woke up: that lags under load)."""
        super().__init__(**kwargs)

    def publish_msg(self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any):
        super().publish_msg(msg_type, data, metadata, buffers, **keys)
        self.times.append(asyncio.get_running_loop().time())
        self.sent.set()


async def test_a_stream_of_revisions_is_sent_at_most_max_rate_times_a_second() -> None:
    source = BusSource()
    with recording_comms(SignallingComm):
        widget = PlanTimelineWidget(source, max_rate=20)
    comm = widget.comm
    assert isinstance(comm, SignallingComm)
    loop = asyncio.get_running_loop()
    comm.sent.clear()
    before = loop.time()  # the first update's refresh starts after this, and the throttle counts from it
    source.plan([("a", "pending")], revision=1)
    await comm.sent.wait()  # the first one goes at once
    comm.sent.clear()
    source.plan([("a", "in_progress")], revision=2)
    source.plan([("a", "completed")], revision=3)
    await asyncio.sleep(0)
    assert not comm.sent.is_set()  # held back: the last update was less than 1/20 s ago
    await comm.sent.wait()  # ...and then it lands, both revisions in one update
    assert comm.times[-1] - before >= 0.05 - 1e-3
    assert [e["index"] for e in json.loads(comm.updates()[-1]["entries"])] == [0, 1, 2]
    widget.close()


def test_goal_records_reach_the_view_and_the_saved_html() -> None:
    from codex_nb.protocol.goal import GoalUpdated, ThreadGoal

    source = BusSource()
    widget, _comm = make(source)
    goal = ThreadGoal(objective="<b>ship</b> it", status="active", token_budget=500, tokens_used=10)
    source.bus.emit(GoalUpdated(goal=goal), id="g0")
    source.bus.emit(GoalUpdated(goal=goal.model_copy(update={"status": "complete"}), turn_id="turn-1"), id="g1")
    source.bus.emit(GoalUpdated(goal=None), id="g2")
    widget._refresh()
    assert [(g["index"], g["status"], g["turn"]) for g in widget.goals] == [
        (0, "active", None),
        (1, "complete", "turn-1"),
        (2, "cleared", None),
    ]
    assert widget.goals[1]["line"] == "Goal (complete): <b>ship</b> it \u00b7 10 of 500 tokens (2%) \u00b7 0 s"
    html = widget.html()
    assert '<li data-goal-status="complete">Goal (complete): &lt;b&gt;ship&lt;/b&gt; it' in html
    assert "Goal cleared: &lt;b&gt;ship&lt;/b&gt; it" in html and "Rewind" not in html  # a saved view offers none
    assert "Goal cleared: <b>ship</b> it" in widget.text()


def test_a_source_that_cannot_rewind_offers_none_and_a_hello_is_answered() -> None:
    source = BusSource()
    widget, comm = make(source)
    source.plan([("a", "pending")], revision=1)
    widget._refresh()
    assert widget.rewind_turns == [] and widget.snapshot["turn_id"] == "t1"
    comm.send_custom({"id": "h1", "kind": "hello"})
    assert comm.customs()[-1] == {"kind": "ack", "id": "h1"}
    comm.send_custom({"id": "r1", "kind": "rewind", "turn": "t1"})
    assert widget.rewind_note == "turn 't1' is not one this timeline offers to rewind to"
    comm.send_custom({"id": "r2", "kind": "rewind"})
    assert widget.rewind_note.startswith("the view sent a message codex_nb cannot read: rewind: missing field 'turn'")
