"""cx.Transcript: the running turn from events only, for any event source; coalesced updates."""

from __future__ import annotations

import asyncio
import json

import pytest

import codex_nb as cx
from codex_nb.events.bus import EventBus
from codex_nb.protocol.events import (
    AgentMessage,
    AgentMessageDelta,
    ItemCompleted,
    ItemStarted,
    TurnComplete,
    TurnStarted,
)
from codex_nb.testing import Events, HttpError, ResponsesServer
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.transcript import Transcript
from codex_nb.widgets.transcript_state import TranscriptState

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


PLAN = {"plan": [{"step": "Read the code", "status": "in_progress"}]}


def transcript(source, **options) -> Transcript:
    with recording_comms():
        return Transcript(source, **options)


def deltas(*parts: str, complete: bool = True) -> list[dict]:
    text = "".join(parts)
    message = {"type": "message", "id": "m1", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    events = [{"type": "response.created", "response": {"id": "r"}}]
    events += [{"type": "response.output_text.delta", "item_id": "m1", "delta": p} for p in parts]
    if complete:
        events += [
            {"type": "response.output_item.done", "item": message},
            {"type": "response.completed", "response": {"id": "r"}},
        ]
    return events


async def test_a_streaming_turn_shows_text_and_each_tool_call_with_its_output() -> None:
    async with ResponsesServer(
        [[cx.function_call("update_plan", PLAN, call_id="c1")], Events(deltas("All ", "planned."))]
    ) as srv:
        session = cx.Session()
        view = transcript(session)
        await session.run_turn("plan", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
    view.flush()
    assert view.text() == (
        "Transcript: completed\nyou: plan\ntool update_plan [completed]: Plan updated\nassistant: All planned."
    )
    assert [(e["kind"], e["status"]) for e in view.entries] == [
        ("user", "done"),
        ("tool", "completed"),
        ("assistant", "done"),
    ]
    assert view.entries[1]["detail"] == '{"plan": [{"step": "Read the code", "status": "in_progress"}]}'
    assert view.status == "completed"


async def test_a_retry_drops_the_abandoned_text_and_notes_the_retry() -> None:
    async with ResponsesServer([Events(deltas("half an ans", complete=False)), Events(deltas("Whole answer."))]) as srv:
        session = cx.Session()
        view = transcript(session)
        await session.run_turn("hi", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
    view.flush()
    assert view.text().splitlines() == [
        "Transcript: completed",
        "you: hi",
        "notice: Reconnecting... 1/5 (stream disconnected before completion: stream closed before response.completed)",
        "assistant: Whole answer.",
    ]


async def test_a_failed_turn_shows_the_last_error() -> None:
    async with ResponsesServer([HttpError(400, body={"error": {"message": "unknown model 'nope'"}})]) as srv:
        session = cx.Session()
        view = transcript(session)
        checklist = cx.PlanChecklist(session)
        result = await session.run_turn("hi", model=cx.ResponsesModel(model="nope", base_url=srv.base_url))
    assert view.status == "failed" and view.error == result.error
    assert "unexpected status 400 Bad Request: unknown model 'nope'" in view.error
    assert checklist.error == result.error  # the other widgets show it too
    checklist.close()


async def test_an_interrupted_call_shows_aborted() -> None:
    events = [
        {"type": "response.created", "response": {"id": "r"}},
        {"type": "response.output_item.done", "item": cx.function_call("hang", {}, call_id="h1")},
    ]
    async with ResponsesServer([Events(events, hold_after=2)]) as srv:
        session = cx.Session()
        view = transcript(session)
        started = asyncio.Event()

        @session.tool
        async def hang() -> str:
            "Waits forever."
            started.set()
            await asyncio.Event().wait()
            return "never"

        handle = session.start_turn("go", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
        await started.wait()
        view.flush()
        assert view.entries[1]["status"] == "running"
        handle.interrupt()
        await handle
    assert view.status == "interrupted"
    assert view.text().splitlines()[2].startswith("tool hang [aborted]: aborted by user after ")


async def test_ten_thousand_deltas_are_coalesced_and_the_final_text_is_whole() -> None:
    parts = [f"w{i} " for i in range(10_000)]
    async with ResponsesServer([Events(deltas(*parts))]) as srv:
        session = cx.Session()
        view = transcript(session, max_rate=20)
        result = await session.run_turn("long", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
    assert result.status == "completed"
    assert view.entries[-1]["text"] == "".join(parts)
    assert view.flushes < 200  # not one update per delta


def test_any_event_source_works_app_server_items_included() -> None:
    bus = EventBus("thread-x")  # a bare event source, as the app-server and ACP sources reuse
    view = transcript(bus)
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    started = {
        "type": "commandExecution",
        "id": "cmd1",
        "command": "ls -la",
        "cwd": "/tmp",
        "status": "inProgress",
        "commandActions": [],
    }
    bus.emit(ItemStarted(thread_id="thread-x", turn_id="t1", item=started, started_at_ms=0), id="t1", turn_id="t1")
    view.flush()
    assert view.entries == [
        {
            "kind": "tool",
            "id": "cmd1",
            "text": "",
            "status": "running",
            "title": "ls -la",
            "detail": "/tmp",
            "turn": "t1",
            "rewound": False,
        }
    ]
    done = {**started, "status": "completed", "aggregatedOutput": "total 0\n", "exitCode": 0}
    bus.emit(ItemCompleted(thread_id="thread-x", turn_id="t1", item=done, completed_at_ms=1), id="t1", turn_id="t1")
    mcp = {
        "type": "mcpToolCall",
        "id": "m1",
        "server": "docs",
        "tool": "search",
        "arguments": {"q": "x"},
        "status": "completed",
        "result": {"content": [{"type": "text", "text": "found"}]},
    }
    bus.emit(ItemCompleted(thread_id="thread-x", turn_id="t1", item=mcp, completed_at_ms=2), id="t1", turn_id="t1")
    bus.emit(TurnComplete(turn_id="t1"), id="t1", turn_id="t1")
    assert view.text() == (
        "Transcript: completed\ntool ls -la [completed]: total 0 ⏎ \ntool docs.search [completed]: found"
    )
    view.close()


def test_transcript_needs_an_event_source() -> None:
    with pytest.raises(TypeError, match=r"Transcript needs an event source .* cx.Transcript\(session\)"):
        Transcript(object())


def test_state_fold_buffers_deltas_and_keeps_streaming_after_a_snapshot() -> None:
    state = TranscriptState()
    bus = EventBus("t")
    bus.subscribe(state.apply)
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    for _ in range(1000):
        bus.emit(AgentMessageDelta(delta="x"), id="t1", turn_id="t1")
    assert state.snapshot()[0]["text"] == "x" * 1000
    bus.emit(AgentMessageDelta(delta="y"), id="t1", turn_id="t1")
    assert state.snapshot()[0] == {
        "kind": "assistant",
        "id": "assistant-1",
        "text": "x" * 1000 + "y",
        "status": "streaming",
        "title": "",
        "detail": "",
        "turn": "t1",
        "rewound": False,
    }
    bus.emit(AgentMessage(message="final"), id="t1", turn_id="t1")
    assert state.snapshot()[0]["text"] == "final" and state.snapshot()[0]["status"] == "done"


async def test_detach_keeps_what_is_shown_and_ignores_later_turns() -> None:
    async with ResponsesServer([Events(deltas("First.")), Events(deltas("Second."))]) as srv:
        session = cx.Session()
        view = transcript(session)
        model = cx.ResponsesModel(model="m", base_url=srv.base_url)
        await session.run_turn("one", model=model)
        view.detach()
        await session.run_turn("two", model=model)
    assert view.text() == "Transcript: completed\nyou: one\nassistant: First."
    assert view.entries[-1]["text"] == "First."


def _tool_turn(bus: EventBus, calls: int, *, detail: str = "x") -> None:
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    for i in range(calls):
        item = {
            "type": "dynamicToolCall",
            "id": f"c{i}",
            "tool": "work",
            "arguments": {"n": detail},
            "status": "inProgress",
        }
        bus.emit(ItemStarted(thread_id="thread-x", turn_id="t1", item=item, started_at_ms=0), id="t1", turn_id="t1")
        done = {**item, "status": "completed", "contentItems": [{"type": "inputText", "text": f"done {i}"}]}
        bus.emit(ItemCompleted(thread_id="thread-x", turn_id="t1", item=done, completed_at_ms=1), id="t1", turn_id="t1")


def test_a_thousand_tool_calls_sync_only_the_newest_rows() -> None:
    bus = EventBus("thread-x")
    view = transcript(bus, max_rate=None, rows=50)
    _tool_turn(bus, 1000)
    view.flush()
    assert len(view.entries) == 50 and view.earlier == 950
    assert [e["id"] for e in view.entries] == [f"c{i}" for i in range(950, 1000)]
    assert len(view.state.entries) == 1000  # the kernel keeps them all (text() shows them)
    assert view.text().count("\ntool ") == 1000
    bus.emit(TurnStarted(turn_id="t2"), id="t2", turn_id="t2")
    view.flush()
    assert view.entries == [] and view.earlier == 0


def test_the_sync_cost_does_not_grow_with_the_turn() -> None:
    """Each update sends the window, not the turn: the state a flush sends stays the same size."""
    bus = EventBus("thread-x")
    with recording_comms() as comms:
        view = Transcript(bus, max_rate=None, rows=20)
    _tool_turn(bus, 40, detail="d" * 1000)
    early = len(json.dumps(view.get_state(["entries"])))
    sent_early = len(json.dumps(comms[0].messages[-1][1]))
    _tool_turn(bus, 2000, detail="d" * 1000)
    assert len(json.dumps(view.get_state(["entries"]))) <= early * 1.05
    assert len(json.dumps(comms[0].messages[-1][1])) <= sent_early * 1.05


def test_a_turn_keeps_at_most_max_entries_and_says_how_many_went() -> None:
    state = TranscriptState(max_entries=100)
    bus = EventBus("thread-x")
    bus.subscribe(state.apply)
    _tool_turn(bus, 250)
    assert len(state.entries) == 100 and state.dropped == 150
    assert state.earlier(20) == 230
    assert state.text().splitlines()[1] == "(150 earlier entries of this turn dropped: a turn keeps 100)"
    late = {"type": "dynamicToolCall", "id": "c3", "tool": "work", "arguments": {}, "status": "completed"}
    bus.emit(
        ItemCompleted(thread_id="thread-x", turn_id="t1", item=late, completed_at_ms=2), id="t1", turn_id="t1"
    )  # an update of a dropped call comes back at the end
    assert state.entries[-1].id == "c3"


def test_a_huge_text_is_shown_by_its_head_and_tail() -> None:
    bus = EventBus("thread-x")
    view = transcript(bus, max_rate=None)
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    text = "a" * 80_000 + "b" * 80_000
    bus.emit(AgentMessage(message=text), id="t1", turn_id="t1")
    shown = view.entries[-1]["text"]
    assert shown.startswith("a" * 50_000) and shown.endswith("b" * 50_000)
    assert "… 60000 characters not shown …" in shown
    assert view.state.entries[-1].text() == text


@pytest.mark.parametrize("rows", [0, -1, 1.5, True, "10"])
def test_rows_must_be_a_positive_int(rows) -> None:
    with pytest.raises(ValueError, match="positive int"):
        transcript(EventBus("t"), rows=rows)


async def test_a_response_of_a_thousand_tool_calls_is_coalesced_too() -> None:
    session = cx.Session()

    @session.tool
    def work(n: int) -> str:
        "Do one small piece of work."
        return f"piece {n} done"

    calls = [cx.function_call("work", {"n": i}, call_id=f"w{i}") for i in range(1000)]
    view = transcript(session, rows=100)
    async with ResponsesServer([calls, [cx.assistant_message("All done.")]]) as srv:
        result = await session.run_turn("long", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
    assert result.status == "completed" and len(view.state.entries) == 1002
    assert view.entries[-2]["text"] == "piece 999 done" and view.earlier == 902
    assert view.flushes < 200  # not two updates per call


def test_a_tool_call_with_no_input_has_no_detail_not_null() -> None:
    """Gemini CLI's first word of a tool call is a ``tool_call_update`` with no input: its row ended
    in a literal ``null`` (notebook 14)."""
    bus = EventBus("thread-x")
    view = transcript(bus, max_rate=None)
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    item = {"type": "dynamicToolCall", "id": "c1", "tool": "Set 2 todo(s)", "status": "completed"}
    bus.emit(ItemStarted(thread_id="thread-x", turn_id="t1", item=item, started_at_ms=0), id="t1", turn_id="t1")
    bus.emit(ItemCompleted(thread_id="thread-x", turn_id="t1", item=item, completed_at_ms=1), id="t1", turn_id="t1")
    view.flush()
    assert [(e["kind"], e["detail"]) for e in view.entries] == [("tool", "")]
    assert "null" not in view.text()


def test_the_turns_diff_is_one_entry_after_the_turn_replaced_by_each_newer_one() -> None:
    from codex_nb.protocol.turn_diff import TurnDiff

    bus = EventBus("thread-x")
    view = transcript(bus, max_rate=None)
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    one = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+first\n"
    bus.emit(TurnDiff(turn_id="t1", unified_diff=one), id="t1", turn_id="t1")
    bus.emit(AgentMessage(message="done"), id="t1", turn_id="t1")
    two = one + "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = <2>\n"
    bus.emit(TurnDiff(turn_id="t1", unified_diff=two, cut_chars=7), id="t1", turn_id="t1")
    bus.emit(TurnComplete(turn_id="t1"), id="t1", turn_id="t1")
    assert [(e["kind"], e["id"]) for e in view.entries] == [("assistant", "assistant-1"), ("diff", "diff-t1")]
    assert view.entries[-1]["title"] == "2 files changed, +2 -1" and view.entries[-1]["text"] == two
    assert view.text().splitlines()[2:] == [
        "changes: 2 files changed, +2 -1",
        "  add notes.txt +1 -0",
        "  update app.py +1 -1",
        f"  (cut: 7 characters past the first {len(two)} not kept)",
    ]
    html = view.html()
    assert "<b>What changed</b>: 2 files changed, +2 -1</summary>" in html
    assert '<span style="background:rgba(46,160,67,.15)">+x = &lt;2&gt;</span>' in html
    assert "<code>app.py</code> (update)" in html and "cut: 7 characters" in html
    # a kept diff is never cut again by the view's cap on an entry's text, so the view reads every file
    from codex_nb.app_server.notifications import turn_diff
    from codex_nb.widgets.transcript_state import MAX_SHOWN_CHARS

    huge = turn_diff({"turnId": "t1", "diff": one + ("+" + "y" * 99 + "\n") * 5000})
    assert huge.cut_chars > 0 and len(huge.unified_diff) <= MAX_SHOWN_CHARS
    bus.emit(huge, id="t1", turn_id="t1")
    assert view.entries[-1]["text"] == huge.unified_diff
    bus.emit(TurnStarted(turn_id="t2"), id="t2", turn_id="t2")  # the next turn starts with no diff
    assert "diff" not in [e["kind"] for e in view.entries] and "changes:" not in view.text()
    assert "What changed" not in view.html()


def test_an_acp_agents_notices_compaction_subagent_and_title_read_the_same_live_and_saved() -> None:
    from codex_nb.acp import AcpCompaction, AcpNotice, AcpSessionTitle, AcpSubagent

    bus = EventBus("s1")
    bus.title = "Old title"  # type: ignore[attr-defined]  # what an AcpSession carries before the widget
    view = transcript(bus)
    assert view.title == "Old title"
    bus.emit(AcpNotice(severity="warning", title="Configuration warning", description="line 1\nline 2"), id="n")
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")  # a notice before the turn stays, as the person's words
    bus.emit(AcpSessionTitle(title="Fix <the> parser"), id="t1", turn_id="t1")
    bus.emit(AcpCompaction(compaction_id="c1", status="in_progress"), id="t1", turn_id="t1")
    bus.emit(AcpCompaction(compaction_id="c1", status="completed", summary="Kept"), id="t1", turn_id="t1")
    bus.emit(AcpSubagent(session_id="k", name="Explorer", state="running", tool_calls=2), id="t1", turn_id="t1")
    bus.emit(TurnComplete(turn_id="t1"), id="t1", turn_id="t1")
    view.flush()
    assert view.title == "Fix <the> parser"
    assert [(e["kind"], e["title"], e["status"]) for e in view.entries] == [
        ("agent_notice", "Configuration warning (warning)", "done"),
        ("compaction", "Context compaction", "completed"),
        ("subagent", "Explorer", "running"),
    ]
    text = view.text()
    assert text.splitlines() == [
        "Transcript: completed · Fix <the> parser",
        "notice Configuration warning (warning): line 1 ⏎ line 2",
        "context compaction [completed]: Kept",
        "subagent Explorer [running]: 2 tool call(s); 0 message(s)",
    ]
    bundle, _ = view._repr_mimebundle_()
    assert bundle["text/plain"] == text  # the saved notebook says what the view says
    assert "Transcript: completed · Fix &lt;the&gt; parser" in bundle["text/html"]
    view.close()
