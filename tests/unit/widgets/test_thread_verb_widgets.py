"""The widgets' thread verbs against the pinned Codex on the local Responses stand-in: the
sessions browser's Rename / Archive / Unarchive / Delete, the transcript's "Rewind to here" and
the turn controls' Compact, each sent as its view sends it (a comm message checked against
protocol.json), and hidden on a source that cannot."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.widgets.sessions_browser import SessionsBrowser
from codex_nb.widgets.testing import recording_comms

from helpers.app_server_helpers import real_codex


async def _until(widget: Any, names: list[str], check: Callable[[], bool], timeout: float = 60) -> None:
    """Wait until ``check()`` holds after a change of the widget's ``names`` (a background task sets them)."""
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()

    def seen(_change: object) -> None:
        loop.call_soon_threadsafe(changed.set)

    widget.observe(seen, names=names)
    try:
        async with asyncio.timeout(timeout):
            while not check():
                await changed.wait()
                changed.clear()
    finally:
        widget.unobserve(seen, names=names)


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_the_sessions_browser_renames_archives_unarchives_and_deletes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    async with real_codex([[cx.assistant_message("hi")]], home) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        await thread.run_turn("hello")
        with recording_comms():
            browser = SessionsBrowser(codex_home=home, server=server)
        assert all(browser.table.features[v] for v in ("rename", "archive", "unarchive", "delete"))
        sid = thread.thread_id

        async def click(kind: str, **fields: Any) -> None:
            before = browser.table.status
            browser._on_view_msg(browser.table, {"id": kind, "kind": kind, **fields}, [])
            await _until(
                browser.table, ["status", "error"], lambda: browser.table.status != before or bool(browser.table.error)
            )
            assert browser.table.error == ""

        browser.select(sid)
        await click("rename", session=sid, name="Release notes")
        listed = (await server.list_threads())["data"]
        assert [t["name"] for t in listed if t["id"] == sid] == ["Release notes"]
        await click("archive", session=sid)
        assert [r["id"] for r in browser.table.rows] == [] and [a["id"] for a in browser.table.archived] == [sid]
        assert browser.table.archived[0]["name"] == "Release notes"
        await click("unarchive", session=sid)
        assert [r["id"] for r in browser.table.rows] == [sid] and browser.table.archived == []
        await click("delete", session=sid)
        assert browser.table.rows == [] and browser.table.selected == ""
        assert (await server.list_threads())["data"] == []
        # a bad name is the view's one-line error, and nothing changes
        browser._on_view_msg(browser.table, {"id": "x", "kind": "rename", "session": sid, "name": 5}, [])
        assert "field 'name' must be string" in browser.table.error


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_rewind_to_here_from_the_transcript_and_compact_from_the_controls(tmp_path: Path) -> None:
    script = [[cx.assistant_message(f"answer {i}")] for i in range(3)] + [[cx.assistant_message("SUMMARY")]]
    async with real_codex(script, tmp_path / "home") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        with recording_comms():
            transcript = cx.Transcript(thread, max_rate=None)
            controls = cx.TurnControls(thread)
        assert controls.can_compact and transcript.rewind_turns == []
        ids = [(await thread.run_turn(f"question {i}")).turn_id for i in range(2)]
        assert transcript.rewind_turns == ids
        you = [e for e in transcript.entries if e["kind"] == "user"]
        assert [e["turn"] for e in you] == [ids[1]]  # the shown turn's words carry its id
        transcript._rewinder.on_view_msg(transcript, {"id": "r", "kind": "rewind", "turn": ids[1]}, [])
        await _until(transcript, ["rewind_note"], lambda: transcript.rewind_note.startswith("Rewound"))
        assert transcript.rewind_note == "Rewound: 1 turn undone (files they changed were not restored)"
        assert transcript.rewind_turns == ids[:1] and transcript.status == "rewound"
        assert all(e["rewound"] for e in transcript.entries if e["turn"] == ids[1])
        assert "you: question 1 [rewound]" in transcript.text()
        # a turn not offered (any more) is refused in one line, nothing sent
        transcript._rewinder.on_view_msg(transcript, {"id": "r", "kind": "rewind", "turn": ids[1]}, [])
        assert "is not one this transcript offers" in transcript.rewind_note
        controls.handle_message({"id": "c", "kind": "compact"})
        await _until(controls, ["compact_note"], lambda: controls.compact_note != "Compacting…")
        assert controls.compact_note == "Context compacted"
        assert (
            "context compaction [done]: Codex replaced the thread's earlier turns with a summary" in transcript.text()
        )
        await thread.run_turn("question after")
    said = [
        str(part.get("text"))
        for item in srv.requests[-1]["input"]
        if item.get("role") in ("user", "assistant")
        for part in item.get("content") or []
    ]
    assert "question 1" not in said and "answer 1" not in said


def test_a_source_without_the_verbs_offers_no_rewind_and_no_compact() -> None:
    session = cx.Session()
    with recording_comms():
        transcript = cx.Transcript(session)
        controls = cx.TurnControls(session)
    assert transcript.rewind_turns == [] and controls.can_compact is False
    controls.handle_message({"id": "c", "kind": "compact"})
    assert controls.compact_note == "this source cannot compact its thread"
