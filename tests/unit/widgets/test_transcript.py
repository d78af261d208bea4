"""cx.Transcript: the running turn from events only, for any event source; coalesced updates."""

from __future__ import annotations

import asyncio

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
    assert view.text() == ("Transcript: completed\ntool update_plan [completed]: Plan updated\nassistant: All planned.")
    assert [(e["kind"], e["status"]) for e in view.entries] == [("tool", "completed"), ("assistant", "done")]
    assert view.entries[0]["detail"] == '{"plan": [{"step": "Read the code", "status": "in_progress"}]}'
    assert view.status == "completed"


async def test_a_retry_drops_the_abandoned_text_and_notes_the_retry() -> None:
    async with ResponsesServer([Events(deltas("half an ans", complete=False)), Events(deltas("Whole answer."))]) as srv:
        session = cx.Session()
        view = transcript(session)
        await session.run_turn("hi", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
    view.flush()
    assert view.text().splitlines() == [
        "Transcript: completed",
        "notice: Reconnecting... 1/5 (stream disconnected before completion: stream closed before response.completed)",
        "assistant: Whole answer.",
    ]


async def test_a_failed_turn_shows_the_last_error() -> None:
    async with ResponsesServer([HttpError(400, body={"error": {"message": "unknown model 'nope'"}})]) as srv:
        session = cx.Session()
        view = transcript(session)
        checklist = session.checklist()
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
        assert view.entries[0]["status"] == "running"
        handle.interrupt()
        await handle
    assert view.status == "interrupted"
    assert view.text().splitlines()[1].startswith("tool hang [aborted]: aborted by user after ")


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
        {"kind": "tool", "id": "cmd1", "text": "", "status": "running", "title": "ls -la", "detail": "/tmp"}
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
    assert view.text() == "Transcript: completed\nassistant: First."
    assert view.entries[-1]["text"] == "First."


def test_the_transcript_bundle_is_one_valid_module(tmp_path) -> None:
    import json
    import shutil
    import subprocess

    from codex_nb.widgets._static import bundle_esm

    node = shutil.which("node")
    assert node, "node is required for the widget JS checks"
    path = tmp_path / "transcript.mjs"
    path.write_text(bundle_esm("transcript.js"), encoding="utf-8")
    script = f"const m = await import({json.dumps(path.as_uri())}); console.log(typeof m.default.render);"
    out = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "function"
