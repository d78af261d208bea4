"""``cx.SessionsBrowser``: the committed Codex home browsed with no binary (table, filter, sort,
selection showing the plan timeline and transcript, messages from the view), and with the real
pinned Codex: Resume and Fork from the table into live widgets, its own thread list, and the Fork
button hidden when the server lacks ``thread/fork``."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import SAMPLE_CODEX_HOME
from codex_nb.rollouts.rollout_replay import RolloutReplay
from codex_nb.widgets.sessions_browser import SessionsBrowser, visible_rows
from codex_nb.widgets.transcript import Transcript
from codex_nb.widgets.transcript_state import TranscriptState

from helpers.app_server_helpers import plan_call, real_codex

VERBS = ("rename", "archive", "unarchive", "delete")

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


def _ended_badly(tmp_path: Path) -> Path:
    """A copy of the sample home whose two-turn session failed its first turn (an ``error`` before
    ``task_complete``) and was interrupted in its second (``turn_aborted``, no ``task_complete``)."""
    home = tmp_path / "home"
    shutil.copytree(HOME, home)
    path = next(home.rglob(f"*{PARSER}.jsonl"))
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ends = [i for i, line in enumerate(lines) if line["payload"].get("type") == "task_complete"]
    first, second = lines[ends[0]], lines[ends[1]]
    error = {**first, "payload": {"type": "error", "message": "stream disconnected before completion"}}
    second["payload"] = {"type": "turn_aborted", "turn_id": second["payload"]["turn_id"], "reason": "interrupted"}
    lines.insert(ends[0], error)
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines), encoding="utf-8")
    return home


def test_a_saved_failed_or_interrupted_turn_is_not_shown_as_completed(tmp_path: Path) -> None:
    home = _ended_badly(tmp_path)
    browser = SessionsBrowser(codex_home=home)
    browser.select(PARSER)
    assert "Transcript: interrupted" in browser.text()  # the last turn, as the detail shows it
    replay = RolloutReplay(browser._session(PARSER).path)
    first = Transcript(replay, max_rate=None)
    replay.play_turn(0)
    assert first.status == "failed" and first.error == "stream disconnected before completion"
    saved, earlier = replay.saved_turns()
    assert [t.status for t in saved] == ["failed", "interrupted"] and earlier == 0
    state = TranscriptState()
    state.load_saved(saved)
    text = state.text()
    assert "error: stream disconnected before completion" in text and "-- this turn was interrupted --" in text
    first.close()
    browser.close()


def test_the_saved_conversation_is_shown_bounded_with_the_earlier_turns_counted() -> None:
    replay = RolloutReplay(next(HOME.rglob(f"*{PARSER}.jsonl")))
    saved, earlier = replay.saved_turns(1)
    assert earlier == 1 and [t.prompt for t in saved] == ["Now run the whole test suite."]
    state = TranscriptState()
    state.load_saved(saved, earlier_turns=earlier)
    assert state.snapshot()[0] == {
        "turn": "",
        "rewound": False,
        "kind": "saved",
        "id": "saved-head",
        "text": "Saved conversation: 1 turn(s); 1 earlier turn(s) not shown",
        "status": "done",
        "title": "",
        "detail": "",
    }
    every, _ = replay.saved_turns()
    state.load_saved(every)
    kinds = [(e["kind"], e["text"]) for e in state.snapshot() if e["kind"] in ("user", "assistant")]
    assert kinds[0] == ("user", "The CSV parser drops the last field. Fix it.")
    assert kinds[-1] == ("assistant", "All 42 tests pass.")
    assert state.earlier(2) == len(state.snapshot()) - 2 and len(state.snapshot(last=2)) == 2
    with pytest.raises(ValueError, match="how many saved turns to keep"):
        replay.saved_turns(-1)


def test_selecting_another_session_closes_the_previous_ones_widgets() -> None:
    browser = SessionsBrowser(codex_home=HOME)
    browser.select(PARSER)
    shown, timeline = list(browser.detail.children), browser.timeline
    assert shown and all(w.comm is not None for w in shown)
    browser.select("01a2420a-d53c-7570-94a9-1a27f0a05fdd")
    assert all(w.comm is None for w in shown), [type(w).__name__ for w in shown if w.comm is not None]
    assert timeline is not None and timeline is not browser.timeline
    now = list(browser.detail.children)
    browser.close()
    assert all(w.comm is None for w in now)


def test_the_views_messages_are_checked_and_resume_without_a_server_says_what_to_do() -> None:
    browser = SessionsBrowser(codex_home=HOME)
    sent: list[Any] = []
    browser.table.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    browser._on_view_msg(browser.table, {"id": "r1", "kind": "launch", "session": PARSER}, [])
    assert "unknown message kind 'launch'" in browser.table.error and sent[0]["kind"] == "error"
    with pytest.raises(RuntimeError, match="Resume needs a running Codex: pass server="):
        asyncio.run(browser.resume(PARSER))
    browser._on_view_msg(browser.table, {"id": "r2", "kind": "resume", "session": PARSER}, [])
    assert browser.table.error.startswith("Resume needs a running Codex")  # said in the view, not raised


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
        assert browser.table.features == {"resume": True, "fork": True} | dict.fromkeys(VERBS, True)
        assert [s.session_id for s in browser.sessions] == [first.thread_id]
        assert browser.sessions[0].plan_progress == "1/1" and browser.sessions[0].first_prompt == "the secret is 42"
        browser.select(first.thread_id)
        selected = list(browser.detail.children)
        opened = asyncio.Event()
        loop = asyncio.get_running_loop()
        browser.table.observe(lambda _change: loop.call_soon_threadsafe(opened.set), names=["status", "error"])

        async def click_resume() -> None:  # a comm message on another thread, in another loop (ipykernel's)
            message = {"id": "r1", "kind": "resume", "session": first.thread_id}
            browser._on_view_msg(browser.table, message, [])

        clicker = threading.Thread(target=asyncio.run, args=(click_resume(),))
        clicker.start()
        await asyncio.to_thread(clicker.join)
        await asyncio.wait_for(opened.wait(), 60)
        assert browser.table.error == "" and browser.table.status.startswith("resumed ")
        resumed = browser.thread
        assert resumed is not None and resumed.thread_id == first.thread_id
        assert all(w.comm is None for w in selected)  # the selected session's widgets, closed on Resume
        saved = browser.live_widgets[3].text()  # the saved conversation, before any new turn
        assert "-- Saved conversation: 1 turn(s) --" in saved and "you: the secret is 42" in saved
        assert "assistant: answer 1" in saved
        assert "✔ remember" in browser.live_widgets[1].text()  # the last saved plan, not an empty one
        assert [type(w).__name__ for w in browser.live_widgets] == [
            "TurnControls",
            "PlanChecklist",
            "PromptsWidget",
            "Transcript",
        ]
        assert (await resumed.start_turn("what is the secret?")).status == "completed"
        live = browser.live_widgets[3].text()
        assert "Transcript: completed" in live and "you: the secret is 42" in live and "answer 2" in live
        resumed_widgets = list(browser.live_widgets)
        forked = await browser.fork()
        assert all(w.comm is None for w in resumed_widgets)
        assert forked.thread_id != first.thread_id
        assert (await forked.start_turn("and in the fork?")).status == "completed"
        assert "the secret is 42" in seen[-1]  # the fork carries the history
        live = await browser.refresh()
        assert {first.thread_id, forked.thread_id} <= {t["id"] for t in live}
        server._refused.add("thread/fork")  # a server that answered thread/fork as unknown
        features = SessionsBrowser(codex_home=home, server=server).table.features
        assert features == {"resume": True, "fork": False} | dict.fromkeys(VERBS, True)
        browser.close()


def test_a_replayed_turn_shows_the_persons_words_before_the_answer() -> None:
    replay = RolloutReplay(next(HOME.rglob(f"*{PARSER}.jsonl")))
    view = Transcript(replay, max_rate=None)
    timeline = cx.PlanTimeline(replay)
    replay.play_turn(-1)
    lines = view.text().splitlines()
    assert lines[1] == "you: Now run the whole test suite." and lines.count("you: Now run the whole test suite.") == 1
    assert [m.role for m in timeline.messages][0] == "user" and timeline.messages[0].text.startswith("Now run")
    saved, _ = replay.saved_turns(1)
    state = TranscriptState()
    state.load_saved(saved)
    assert state.text().count("you: Now run the whole test suite.") == 1  # the prompt once, not twice
    timeline.close()
    view.close()
