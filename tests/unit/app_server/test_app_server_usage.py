"""The real Codex's ``thread/tokenUsage/updated`` as codex_nb's ``token_count``: the pinned
app-server sampling from the local Responses server, whose ``response.completed`` carries the
usage scripted here, and the turn controls' meter reading it."""

from __future__ import annotations

import asyncio

from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.app_server.notifications import notification_events, token_count
from codex_nb.protocol.model_stream import TokenUsage
from codex_nb.testing import RecordingSubscriber
from codex_nb.testing.responses_server import Events
from codex_nb.widgets.testing import recording_comms

from helpers.app_server_helpers import plan_call, real_codex


def answered(items: list[dict[str, Any]], *, rid: str, input_tokens: int, output_tokens: int) -> Events:
    """One response of ``items`` whose ``response.completed`` reports exactly this usage."""
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 10},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 3},
        "total_tokens": input_tokens + output_tokens,
    }
    return Events(
        [
            {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
            *({"type": "response.output_item.done", "output_index": i, "item": item} for i, item in enumerate(items)),
            {"type": "response.completed", "response": {"id": rid, "status": "completed", "usage": usage}},
        ]
    )


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_token_usage_of_the_real_codex_is_token_count_and_the_meter_shows_it(tmp_path: Path) -> None:
    script = [
        answered([cx.assistant_message("one")], rid="r1", input_tokens=1000, output_tokens=50),
        answered([plan_call([("a", "in_progress")], call_id="p1")], rid="r2", input_tokens=1200, output_tokens=20),
        answered([cx.assistant_message("two")], rid="r3", input_tokens=1300, output_tokens=30),
    ]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        with recording_comms():
            controls = cx.TurnControls(thread)
        first = await thread.start_turn("first")
        assert controls.usage["turn"] == 1050 and controls.usage["total"] == 1050
        second = await thread.start_turn("second")
        assert server.connection.schema_errors == []
    counts = log.of_type("token_count")
    assert [e.turn_id for e in counts] == [first.turn_id, second.turn_id, second.turn_id]
    info = counts[-1].msg.info
    assert info.last_token_usage == TokenUsage(
        input_tokens=1300, cached_input_tokens=10, output_tokens=30, reasoning_output_tokens=3, total_tokens=1330
    )
    assert info.total_token_usage.total_tokens == 1050 + 1220 + 1330
    assert info.total_token_usage.input_tokens == 3500
    assert thread.token_usage == info.total_token_usage
    assert first.token_usage == TokenUsage(
        input_tokens=1000, cached_input_tokens=10, output_tokens=50, reasoning_output_tokens=3, total_tokens=1050
    )
    assert second.token_usage == TokenUsage(
        input_tokens=2500, cached_input_tokens=20, output_tokens=50, reasoning_output_tokens=6, total_tokens=2550
    )
    # each token_count comes before its turn's end, so a view that stops following then counts it
    types = [t for t in log.types if t in ("token_count", "turn_complete")]
    assert types == ["token_count", "turn_complete", "token_count", "token_count", "turn_complete"]
    window = info.model_context_window
    assert isinstance(window, int) and window > 0
    assert controls.usage == {"context_used": 1330, "context_window": window, "turn": 2550, "total": 3600}
    assert controls.text().splitlines()[-1] == (
        f"Context: 1,330 of {window:,} tokens ({1330 * 100 // window}%) \u00b7 This turn: 2,550 \u00b7 In all: 3,600"
    )


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_forked_thread_starts_from_the_usage_it_inherits(tmp_path: Path) -> None:
    """Codex sends the fork's inherited usage around its answer to thread/fork (before it in most
    runs, after it in one loaded CI run): the new thread keeps it either way, so its first turn's
    meter counts that turn only (it counted the whole thread)."""
    script = [
        answered([cx.assistant_message("one")], rid="r1", input_tokens=1000, output_tokens=50),
        answered([cx.assistant_message("two")], rid="r2", input_tokens=1300, output_tokens=30),
    ]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        await thread.start_turn("first")
        forked = await server.fork_thread(thread.thread_id)
        inherited = asyncio.Event()
        forked.subscribe(lambda e: e.msg.type == "token_count" and inherited.set())
        if forked.token_usage is None:  # sent after the answer: the thread takes it when it comes
            await asyncio.wait_for(inherited.wait(), 60)
        assert forked.token_usage == thread.token_usage
        assert forked.token_usage is not None and forked.token_usage.total_tokens == 1050
        assert not [p for _m, p in server.unrouted if p.get("threadId") == forked.thread_id]
        with recording_comms():
            controls = cx.TurnControls(forked)
        await forked.start_turn("second")
        assert server.connection.schema_errors == []
    assert controls.usage["turn"] == 1330 and controls.usage["total"] == 1050 + 1330


def test_a_malformed_token_usage_notification_is_a_warning_naming_the_field() -> None:
    good = {"inputTokens": 1, "cachedInputTokens": 0, "outputTokens": 2, "reasoningOutputTokens": 0, "totalTokens": 3}
    params = {"threadId": "t", "turnId": "u", "tokenUsage": {"total": good, "last": good, "modelContextWindow": None}}
    assert token_count(params).info.model_context_window is None
    bad = {**params, "tokenUsage": {"total": {**good, "totalTokens": -1}, "last": good}}
    [warning] = notification_events("thread/tokenUsage/updated", bad)
    assert warning.type == "warning"
    assert "`total`" in warning.message and "the usage meter keeps its last figures" in warning.message
    [warning] = notification_events("thread/tokenUsage/updated", {"tokenUsage": "x"})
    assert "needs an object `tokenUsage`" in warning.message
    window = {**params, "tokenUsage": {"total": good, "last": good, "modelContextWindow": "big"}}
    [warning] = notification_events("thread/tokenUsage/updated", window)
    assert "`modelContextWindow`" in warning.message
    huge = {**good, "totalTokens": 2**70}
    capped = token_count({"tokenUsage": {"total": huge, "last": good}})
    assert capped.info.total_token_usage.total_tokens == 2**53 - 1
