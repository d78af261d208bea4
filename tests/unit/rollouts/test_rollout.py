"""Rollouts written by the real Codex during this run: plan history, turns, replay, and
what a damaged file reports."""

from __future__ import annotations

import asyncio
import gc
import shutil
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx

from helpers.app_server_helpers import Reached, plan_call, real_codex


@pytest.fixture(autouse=True)
def collect_garbage_here():
    """As in the app-server tests (their conftest.py): this module's cyclic garbage is collected here, not later."""
    yield
    gc.collect()


async def _record(home: Path, cwd: Path) -> dict[str, Any]:
    interrupted = Reached()
    script = [
        [plan_call([("read", "in_progress"), ("write", "pending")], call_id="p1")],
        [cx.function_call("update_plan", {"plan": "not a list"}, call_id="bad")],
        [plan_call([("read", "completed"), ("write", "completed")], call_id="p2", explanation="done")],
        [cx.assistant_message("first turn done")],
        [plan_call([("again", "in_progress")], call_id="p3")],
        interrupted,
    ]
    async with real_codex(script, home) as (server, _srv):
        thread = await server.start_thread(cwd=cwd)
        first = await thread.start_turn("plan")
        handle = thread.start_turn("and more")
        await interrupted.wait()
        handle.interrupt()
        second = await handle
    return {"path": Path(thread.path), "thread": thread.thread_id, "turns": [first, second]}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("rollout")
    return asyncio.run(_record(root / "home", root))


@pytest.mark.requires_codex
def test_plan_snapshots_are_rebuilt_from_accepted_calls_only(recorded: dict[str, Any]) -> None:
    rollout = cx.read_rollout(recorded["path"])
    assert rollout.session_id == recorded["thread"]
    assert [p.call_id for p in rollout.plans] == ["p1", "p2", "p3"]
    assert rollout.rejected_plan_calls == ["bad"]
    assert [p.index for p in rollout.plans] == [0, 1, 2]
    assert rollout.plans[1].args.explanation == "done"
    assert [(s.step, str(s.status)) for s in rollout.plans[0].args.plan] == [
        ("read", "in_progress"),
        ("write", "pending"),
    ]
    first, second = recorded["turns"]
    assert [p.turn_id for p in rollout.plans] == [first.turn_id, first.turn_id, second.turn_id]
    assert [(t.turn_id, t.status) for t in rollout.turns] == [
        (first.turn_id, "completed"),
        (second.turn_id, "interrupted"),
    ]
    assert rollout.turns[0].last_agent_message == "first turn done"
    assert rollout.unknown_types == {} and rollout.malformed == [] and rollout.truncated is None
    assert {"session_meta", "event_msg", "response_item", "turn_context"} <= set(rollout.line_types)


@pytest.mark.requires_codex
def test_list_rollouts_finds_the_session(recorded: dict[str, Any]) -> None:
    home = recorded["path"].parents[4]
    assert recorded["path"] in cx.list_rollouts(home)
    assert cx.list_rollouts(home / "nowhere") == []


@pytest.mark.requires_codex
def test_unknown_lines_are_counted_and_a_truncated_last_line_is_reported(
    recorded: dict[str, Any], tmp_path: Path
) -> None:
    damaged = tmp_path / "rollout-damaged.jsonl"
    shutil.copy(recorded["path"], damaged)
    with damaged.open("a") as f:
        f.write('{"timestamp":"t","ordinal":999,"type":"future_line_kind","payload":{}}\n')
        f.write("[1, 2]\n")
        f.write('{"timestamp":"t","ordinal":1001,"type":"response_item","payload":{"type":"mess')
    rollout = cx.read_rollout(damaged)
    assert rollout.unknown_types == {"future_line_kind": 1}
    assert [reason for _, reason in rollout.malformed] == ["not an object with a string 'type'"]
    assert rollout.truncated is not None and rollout.truncated.startswith(f"line {rollout.lines}:")
    assert len(rollout.plans) == 3 and rollout.skipped == 3
    assert "1 unknown line(s) skipped (future_line_kind)" in rollout.summary()
    assert "truncated last line" in rollout.summary()


def test_read_rollout_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(cx.rollouts.RolloutError, match="is not a rollout file.*cx.list_rollouts"):
        cx.read_rollout(tmp_path / "missing.jsonl")


@pytest.mark.requires_codex
def test_replay_feeds_the_same_checklist_and_scrubs_both_ways(recorded: dict[str, Any]) -> None:
    replay = cx.RolloutReplay(recorded["path"])
    checklist = cx.PlanChecklist(replay, max_rate=None)
    assert len(replay) == 3 and replay.interrupt() is False
    replay.seek(-1)
    assert [s["step"] for s in checklist.steps] == ["again"]
    replay.seek(0)  # backwards: a fresh revision, so the checklist does not drop it as stale
    assert [s["status"] for s in checklist.steps] == ["in_progress", "pending"]
    assert replay.latest_plan().msg.plan[0].step == "read"
    replay.step(+1)
    assert checklist.explanation == "done" and replay.position == 1
    with pytest.raises(cx.rollouts.ReplayError, match="out of range: this session has 3"):
        replay.seek(3)


@pytest.mark.requires_codex
def test_scrubber_widget_steps_through_the_history(recorded: dict[str, Any]) -> None:
    scrubber = cx.ReplayScrubber(recorded["path"])
    assert scrubber.replay.position == 2 and scrubber.slider.max == 2
    assert scrubber.text().startswith("Replay: plan snapshot 3 of 3")
    scrubber.slider.value = 0
    assert scrubber.replay.position == 0 and scrubber.checklist.steps[0] == {"step": "read", "status": "in_progress"}
    scrubber.next()
    assert scrubber.slider.value == 1 and "Replay: plan snapshot 2 of 3" in scrubber.text()
    assert "done" in scrubber.checklist.text()


@pytest.mark.requires_codex
def test_compressed_and_archived_rollouts(recorded: dict[str, Any], tmp_path: Path) -> None:
    import zstandard

    archived = tmp_path / "archived_sessions" / "2026" / "12" / "01"
    archived.mkdir(parents=True)
    packed = archived / (recorded["path"].name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(recorded["path"].read_bytes()))
    assert cx.list_rollouts(tmp_path) == []
    assert cx.list_rollouts(tmp_path, archived=True) == [packed]
    rollout = cx.read_rollout(packed)
    assert [p.call_id for p in rollout.plans] == ["p1", "p2", "p3"] and rollout.truncated is None
    broken = tmp_path / "rollout-broken.jsonl.zst"
    broken.write_bytes(b"not zstd at all")
    with pytest.raises(cx.rollouts.RolloutError, match="not a valid zstd file"):
        cx.read_rollout(broken)


@pytest.mark.requires_codex
def test_legacy_turn_event_names_are_read(recorded: dict[str, Any], tmp_path: Path) -> None:
    legacy = tmp_path / "rollout-legacy.jsonl"
    text = recorded["path"].read_text().replace('"type":"task_started"', '"type":"turn_started"')
    text = text.replace('"type":"task_complete"', '"type":"turn_complete"')
    assert '"type":"task_' not in text and text.count('"type":"turn_started"') == 2  # the old names only
    legacy.write_text(text)
    assert [t.status for t in cx.read_rollout(legacy).turns] == ["completed", "interrupted"]
