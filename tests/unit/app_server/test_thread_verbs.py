"""Rewind, compact, rename, archive, unarchive and delete against the pinned Codex app-server
sampling from the local Responses stand-in (offline), and what is refused before anything is sent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.app_server.binary import CodexVersionError
from codex_nb.app_server.thread_verbs import checked_id, checked_name
from codex_nb.app_server.versions import FEATURES, features_of
from codex_nb.testing import RecordingSubscriber, codex_binary
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.timeline import PlanTimelineWidget

from helpers.app_server_helpers import Waiter, plan_call, real_codex
from helpers.plan_timelines import BusSource

VERBS = (
    "thread/revert",
    "thread/compact/start",
    "thread/name/set",
    "thread/archive",
    "thread/unarchive",
    "thread/delete",
)


def _texts(body: dict[str, Any]) -> list[str]:
    """The user and assistant words of one request the stand-in got."""
    return [
        str(part.get("text"))
        for item in body["input"]
        if item.get("role") in ("user", "assistant")
        for part in item.get("content") or []
        if isinstance(part, dict)
    ]


@pytest.mark.slow
@pytest.mark.requires_codex
def test_every_verb_is_in_the_pinned_binarys_schema(tmp_path: Path) -> None:
    import subprocess

    subprocess.run(
        [str(codex_binary()), "app-server", "generate-json-schema", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    union = json.loads((tmp_path / "ClientRequest.json").read_text())
    methods = {v["properties"]["method"]["enum"][0] for v in union["oneOf"]}
    assert set(VERBS) <= methods
    assert set(FEATURES.values()) <= methods | {"turn/plan/updated", "item/tool/requestUserInput", "hook/started"}


def test_the_verbs_are_features_of_every_release_of_the_range() -> None:
    for version in ("0.160.0", "0.171.0"):
        assert all(features_of(version)[verb] for verb in VERBS)


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_rewinding_two_turns_leaves_them_out_of_the_next_request(tmp_path: Path) -> None:
    script = [
        [plan_call([("Read", "completed"), ("Write", "pending")], call_id="p0")],
        [cx.assistant_message("answer 0")],
        [plan_call([("Read", "completed"), ("Write", "in_progress")], call_id="p1")],
        [cx.assistant_message("answer 1")],
        [cx.assistant_message("answer 2")],
        [cx.assistant_message("answer 3")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        log = RecordingSubscriber(thread)
        with recording_comms():
            transcript = cx.Transcript(thread, max_rate=None)
            checklist = cx.PlanChecklist(thread)
        timeline = cx.PlanTimeline(thread)
        ids = [(await thread.run_turn(f"question {i}")).turn_id for i in range(3)]
        assert thread.turn_ids == ids
        first_path = thread.path
        done = await thread.rewind(turns=2)
        assert done.turn_ids == ids[1:] and done.before_turn_id == ids[1] and not done.files_restored
        assert thread.turn_ids == ids[:1] and thread.path != first_path
        # the checklist is back on the first turn's plan, the transcript and timeline say what went
        assert thread.latest_plan().turn_id == ids[0]
        checklist.flush()
        assert checklist.turn_id == ids[0]
        assert [s["status"] for s in checklist.steps] == ["completed", "pending"]
        assert "Rewound: 2 turns undone (files they changed were not restored)" in transcript.state.text()
        assert timeline.rewound_turns == tuple(ids[1:])
        with recording_comms():
            view = PlanTimelineWidget(timeline, max_rate=None)
        marked = [e["rewound"] for e in view.entries if "rewound" in e]
        assert len(marked) == 1 and "(rewound)" in view.text() and "<em>(rewound)</em>" in view.html()
        # the plan after the rewind is the first turn's again, a revision of that turn (not undone)
        assert view.entries[-1].get("rewound") is None and f"turn {ids[0][:8]}" in view.entries[-1]["label"]
        result = await thread.run_turn("question after")
        assert result.status == "completed"
        assert server.connection.schema_errors == []
    said = _texts(srv.requests[-1])
    assert said[-3:] == ["question 0", "answer 0", "question after"]
    assert not {"question 1", "answer 1", "question 2", "answer 2"} & set(said)
    assert [e.msg.type for e in log.events].count("thread_rewound") == 1


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_rename_archive_unarchive_delete_show_in_thread_list(tmp_path: Path) -> None:
    async with real_codex([[cx.assistant_message("hi")]], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        await thread.run_turn("hello")

        async def listed(**params: Any) -> dict[str, dict[str, Any]]:
            return {t["id"]: t for t in (await server.list_threads(**params))["data"]}

        await thread.rename("  Release notes  ")
        assert (await listed())[thread.thread_id]["name"] == "Release notes"
        await server.archive_thread(thread.thread_id)
        assert thread.thread_id not in await listed()
        assert thread.thread_id in await listed(archived=True)
        back = await server.unarchive_thread(thread.thread_id)
        assert back["id"] == thread.thread_id and thread.thread_id in await listed()
        await server.delete_thread(thread.thread_id)
        assert thread.thread_id not in await listed()
        assert thread.thread_id not in await listed(archived=True)


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_compact_runs_codexs_compaction_turn_and_the_transcript_shows_it(tmp_path: Path) -> None:
    script = [[cx.assistant_message("answer 0")], [cx.assistant_message("SUMMARY")]]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        with recording_comms():
            transcript = cx.Transcript(thread, max_rate=None)
        await thread.run_turn("question 0")
        result = await thread.compact()
        assert result.status == "completed" and result.turn_id in thread.turn_ids
        assert "context compaction [done]" in transcript.state.text()
        assert len(srv.requests) == 2  # the compaction sampled the model once


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_bad_arguments_are_one_line_errors_and_nothing_is_sent(tmp_path: Path) -> None:
    async with real_codex([[cx.assistant_message("hi")]], tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        await thread.run_turn("hello")
        for call, words in [
            (thread.rewind(), "a turn_id or turns=n"),
            (thread.rewind("t", turns=1), "not both"),
            (thread.rewind(turns=0), "1 or more"),
            (thread.rewind(turns=True), "whole number"),
            (thread.rewind(turns=2), "knows 1 turn(s)"),
            (thread.rewind("x" * 500), "not an id Codex gives"),
            (thread.rename("two\nlines"), "one non-empty line"),
            (server.delete_thread(""), "non-empty string"),
        ]:
            with pytest.raises((ValueError, cx.errors.TurnError)) as caught:
                await call
            assert words in str(caught.value) and "\n" not in str(caught.value)
        assert thread.turn_ids  # nothing was undone


def test_ids_and_names_are_checked() -> None:
    assert checked_id("019a-1", "turn_id") == "019a-1"
    assert checked_name(" x ") == "x"
    with pytest.raises(ValueError, match="at most 200"):
        checked_name("n" * 201)
    with pytest.raises(ValueError, match="one word"):
        checked_id("a b", "thread_id")


async def test_a_release_without_the_method_raises_a_version_error() -> None:
    class Old(cx.CodexAppServer):
        pass

    server = Old()
    server.version = "0.1.0"  # below the range: every gated feature is missing

    async def refuse(method: str, params: dict[str, Any]) -> Any:
        raise AssertionError("nothing may be sent")

    server.request = refuse  # type: ignore[method-assign]
    server._refused.add("thread/delete")
    with pytest.raises(CodexVersionError, match="does not offer thread/delete"):
        await server.delete_thread("t1")
    assert server.features["thread/delete"] is False


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_the_plan_timelines_rewind_to_here_runs_the_one_rewind_path(tmp_path: Path) -> None:
    script = [
        [plan_call([("Read", "in_progress")], call_id="p0")],
        [cx.assistant_message("answer 0")],
        [plan_call([("Read", "completed")], call_id="p1")],
        [cx.assistant_message("answer 1")],
    ]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        with recording_comms():
            view = PlanTimelineWidget(thread, max_rate=None)
        assert view.rewind_turns == []  # no turn yet
        ids = [(await thread.run_turn(f"question {i}")).turn_id for i in range(2)]
        assert view.rewind_turns == ids  # each turn the thread holds is offered
        view._refresh()
        assert view.snapshot["turn_id"] == ids[1]
        rewound = Waiter(thread, lambda e: e.msg.type == "thread_rewound")
        view.comm.send_custom({"id": "r1", "kind": "rewind", "turn": ids[1]})  # what the view's Rewind sends
        await rewound.wait(60)
        for _ in range(1000):  # the note is set by the rewind task's done callback, a few loop passes on
            if view.rewind_note != "Rewinding…":
                break
            await asyncio.sleep(0)
        assert view.rewind_note == "Rewound: 1 turn undone (files they changed were not restored)"
        assert view.rewind_turns == ids[:1] and thread.turn_ids == ids[:1]
        view._refresh()
        # the undone turn's revision is struck through; the plan is the kept turn's again
        assert [e.get("rewound", False) for e in view.entries] == [False, True, False]
        assert view.timeline.to_dict()["rewound_turns"] == ids[1:]
        assert server.connection.schema_errors == []


async def test_a_release_without_revert_offers_no_rewind_on_the_timeline(tmp_path: Path) -> None:
    class Thread(BusSource):
        turn_ids = ["t1"]

        async def rewind(self, turn: str) -> None:
            raise AssertionError("never called")

    for features in ({"thread/revert": False}, None):
        source = Thread()
        source.server = type("Server", (), {"features": features})()  # type: ignore[attr-defined]
        with recording_comms():
            view = PlanTimelineWidget(source, max_rate=None)
        assert view.rewind_turns == []
        source.server.features = {"thread/revert": True}  # type: ignore[attr-defined]
        with recording_comms():
            assert PlanTimelineWidget(source, max_rate=None).rewind_turns == ["t1"]


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_rewound_thread_is_one_row_and_a_fork_its_own(tmp_path: Path) -> None:
    script = [[cx.assistant_message(f"answer {i}")] for i in range(2)]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        for i in range(2):
            await thread.run_turn(f"question {i}")
        first_path = thread.path
        await thread.rewind(turns=1)
        fork = await server.fork_thread(thread.thread_id)
        await thread.rewind(turns=1)
        listed = [t["id"] for t in (await server.list_threads())["data"]]
        assert server.connection.schema_errors == []
    # Codex's thread/list has one entry per thread id; its home holds three files of the rewound one
    assert sorted(listed) == sorted([thread.thread_id, fork.thread_id])
    files = sorted((tmp_path / "home" / "sessions").rglob("*.jsonl"))
    assert sum(thread.thread_id in f.name for f in files) == 3
    sessions = cx.codex_sessions(tmp_path / "home")
    assert sorted(s.session_id for s in sessions) == sorted([thread.thread_id, fork.thread_id])
    row = sessions.by_id(thread.thread_id)
    assert row.path == Path(thread.path) and len(row.earlier) == 2 and row.earlier[-1] == Path(first_path)
    assert row.first_prompt == "question 0" and row.row()["rollouts"] == 3  # the oldest file's words
    with recording_comms():
        browser = cx.SessionsBrowser(codex_home=tmp_path / "home")
    assert sorted(r["id"] for r in browser.table.rows) == sorted([thread.thread_id, fork.thread_id])
