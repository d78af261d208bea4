"""``cx.SessionsBrowser``: the committed Codex home browsed with no binary (table, filter, sort,
selection showing the plan timeline and transcript, messages from the view), and with the real
pinned Codex: Resume and Fork from the table into live widgets, its own thread list, and the Fork
button hidden when the server lacks ``thread/fork``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import SAMPLE_CODEX_HOME
from codex_nb.widgets.sessions_browser import SessionsBrowser, visible_rows

from helpers.app_server_helpers import plan_call, real_codex

HOME = SAMPLE_CODEX_HOME
PARSER = "01a2420a-d25f-7bd1-81f9-db2acd04ba04"


def test_the_table_lists_filters_sorts_and_says_which_rows_have_a_problem() -> None:
    browser = SessionsBrowser(codex_home=HOME)
    assert len(browser.table.rows) == 4 and "4 saved Codex session(s)" in browser.table.status
    assert browser.table.features == {"resume": False, "fork": False}  # no server: no buttons
    assert [s.session_id for s in browser.filter("CSV parser")] == [PARSER]
    assert browser.table.query == "CSV parser" and "1 of 4 shown" in browser.text()
    browser.filter("")
    assert [s.turns for s in browser.sort("turns", descending=True)][0] == 2
    assert [s.cwd for s in browser.sort("cwd")][0] == "/home/ada/work/api"
    assert "! half written: the last line has no end yet" in browser.text()
    with pytest.raises(Exception, match="sort_by must be one of"):
        browser.sort("size of the moon")


def test_selecting_a_session_shows_its_plan_timeline_and_last_turn() -> None:
    browser = SessionsBrowser(codex_home=HOME)
    browser.table.selected = PARSER  # what a click in the view does
    shown = browser.text()
    assert "PlanTimeline: 3 revisions of thread " + PARSER in shown
    assert "3/3 done" in shown
    assert "Transcript: completed" in shown and "assistant: All 42 tests pass." in shown
    assert browser.timeline is not None and len(browser.timeline.revisions) == 3
    browser.select("01a2420a-d53c-7570-94a9-1a27f0a05fdd")  # the plan-less one: no revisions, its text
    assert "assistant: Hello! What shall we build?" in browser.text()
    with pytest.raises(KeyError, match="no session 'nope'"):
        browser.select("nope")
    browser.close()


def test_the_views_messages_are_checked_and_resume_without_a_server_says_what_to_do() -> None:
    browser = SessionsBrowser(codex_home=HOME)
    sent: list[Any] = []
    browser.table.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    browser._on_view_msg(browser.table, {"id": "r1", "kind": "launch", "session": PARSER}, [])
    assert "unknown message kind 'launch'" in browser.table.error and sent[0]["kind"] == "error"
    with pytest.raises(RuntimeError, match="Resume needs a running Codex: pass server="):
        asyncio.run(browser.resume(PARSER))


def test_python_and_view_rules_agree_on_a_table() -> None:
    rows = [
        {"id": "a", "cwd": "/x", "turns": 2, "started": "1", "prompt": "CSV", "model": "", "status": "", "problem": ""},
        {
            "id": "b",
            "cwd": "/y",
            "turns": 10,
            "started": "2",
            "prompt": "api",
            "model": "",
            "status": "",
            "problem": "",
        },
        {"id": "c", "cwd": "/z", "turns": 1, "started": "3", "prompt": "hi", "model": "", "status": "", "problem": "x"},
    ]
    # the same cases as js/tests/sessions_view.test.mjs
    assert [r["id"] for r in visible_rows(rows, "", "turns", False)] == ["c", "a", "b"]
    assert [r["id"] for r in visible_rows(rows, "", "turns", True)] == ["b", "a", "c"]
    assert [r["id"] for r in visible_rows(rows, "csv /X", "started", True)] == ["a"]


@pytest.mark.requires_codex
async def test_resume_and_fork_from_the_table_into_live_widgets(tmp_path: Path) -> None:
    seen: list[str] = []

    def answer(body: dict[str, Any]) -> list[Any]:
        seen.append(json.dumps(body["input"]))
        return [cx.assistant_message(f"answer {len(seen)}")]

    script = [[plan_call([("remember", "completed")], call_id="p1")], answer, answer, answer]
    home = tmp_path / "home"
    async with real_codex(script, home, allow_leftover=True) as (server, _srv):
        first = await server.start_thread(cwd=tmp_path)
        assert (await first.start_turn("the secret is 42")).status == "completed"
        browser = SessionsBrowser(codex_home=home, server=server)
        assert browser.table.features == {"resume": True, "fork": True}
        assert [s.session_id for s in browser.sessions] == [first.thread_id]
        assert browser.sessions[0].plan_progress == "1/1" and browser.sessions[0].first_prompt == "the secret is 42"
        browser.select(first.thread_id)
        resumed = await browser.resume()
        assert resumed.thread_id == first.thread_id and browser.thread is resumed
        assert [type(w).__name__ for w in browser.live_widgets] == [
            "TurnControls",
            "PlanChecklist",
            "PromptsWidget",
            "Transcript",
        ]
        assert (await resumed.start_turn("what is the secret?")).status == "completed"
        assert "answer" in browser.live_widgets[3].text()
        forked = await browser.fork()
        assert forked.thread_id != first.thread_id
        assert (await forked.start_turn("and in the fork?")).status == "completed"
        assert "the secret is 42" in seen[-1]  # the fork carries the history
        live = await browser.refresh()
        assert {first.thread_id, forked.thread_id} <= {t["id"] for t in live}
        server._refused.add("thread/fork")  # a server that answered thread/fork as unknown
        assert SessionsBrowser(codex_home=home, server=server).table.features == {"resume": True, "fork": False}
        browser.close()
