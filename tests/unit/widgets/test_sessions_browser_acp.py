"""``cx.SessionsBrowser(agent=...)``: an ACP agent's ``session/list`` in the sessions table, with the
real codex-acp 2.6 offline: two sessions made by one agent process are listed by a second, Resume
loads one into the live widgets (its replay as the saved conversation, its plan in the checklist)
and a prompt runs on it, Fork forks it; an agent without ``session/list`` is told in the table; what
an agent lists is bounded."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing.acp_agents import acp_agent
from codex_nb.widgets.sessions_browser import ACP_ROWS, SessionsBrowser, acp_rows

from helpers.paths import ROOT

HOSTILE = ROOT / "tests" / "acp_agents" / "hostile_agent.py"
sys.path.insert(0, str(ROOT / "tests" / "acp_agents"))
from dialects import DIALECTS  # noqa: E402

SAY = DIALECTS["codex-acp"]
PLAN = [("Read the code", "completed"), ("Write f.txt", "in_progress")]
TIMEOUT = 90


def agent_on(server: Any, home: Path) -> cx.AcpAgent:
    spec = acp_agent("codex-acp")
    command = spec.command()
    return cx.AcpAgent(command[0], command[1:], env=spec.env(server, home), startup_timeout=60)


async def until(check: Any, what: str) -> None:
    for _ in range(TIMEOUT * 20):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


@pytest.mark.slow
@pytest.mark.requires_acp_agent("codex-acp")
async def test_codex_acp_sessions_listed_loaded_prompted_and_forked_from_the_table(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    script = [SAY["plan"](PLAN), SAY["text"]("first answer"), SAY["text"]("second answer")]
    script += [SAY["text"]("loaded answer"), SAY["text"]("forked answer")]
    server = acp_agent("codex-acp").server(script).start()
    try:
        async with agent_on(server, tmp_path / "home") as first:
            planned = await first.new_session(work)
            assert (await planned.prompt("make a plan")).status == "completed"
            other = await first.new_session(work)
            assert (await other.prompt("say something else")).status == "completed"
        async with agent_on(server, tmp_path / "home") as agent:  # a new process: its own store
            browser = SessionsBrowser(agent=agent)  # lists in the background on this loop
            await until(lambda: len(browser.table.rows) == 2, "the two sessions listed")
            assert browser.table.columns == ["title", "cwd", "updated"] and browser.table.sort_by == "updated"
            assert {r["id"] for r in browser.table.rows} == {planned.session_id, other.session_id}
            assert browser.table.features == {"resume": True, "fork": True, "refresh": True}
            assert "2 session(s) of the ACP agent" in browser.table.status and browser.table.error == ""
            assert [r["id"] for r in browser.filter("plan")] == [planned.session_id]
            assert "ACP sessions: 1 of 2 shown" in browser.text() and "'make a plan'" in browser.text()
            browser.filter("")

            browser.select(other.session_id)  # what a click does; then another one
            first_detail = list(browser.detail.children)
            assert "say something else" in first_detail[0].value
            browser.table.selected = planned.session_id
            assert all(w.comm is None for w in first_detail)  # the previous selection's widgets, closed
            selected = list(browser.detail.children)

            opened = asyncio.Event()
            loop = asyncio.get_running_loop()
            browser.table.observe(lambda _change: loop.call_soon_threadsafe(opened.set), names=["status", "error"])

            async def click_resume() -> None:  # a comm message on another thread, in another loop
                message = {"id": "r1", "kind": "resume", "session": planned.session_id}
                browser._on_view_msg(browser.table, message, [])

            clicker = threading.Thread(target=asyncio.run, args=(click_resume(),))
            clicker.start()
            await asyncio.to_thread(clicker.join)
            await asyncio.wait_for(opened.wait(), TIMEOUT)
            assert browser.table.error == "" and browser.table.status.startswith("loaded 'make a plan'")
            loaded = browser.thread
            assert loaded is not None and loaded.session_id == planned.session_id
            assert all(w.comm is None for w in selected)  # closed on Resume
            controls, checklist, _prompts, transcript = browser.live_widgets
            assert [type(w).__name__ for w in browser.live_widgets] == [
                "TurnControls",
                "PlanChecklist",
                "PromptsWidget",
                "Transcript",
            ]
            assert "✔ Read the code" in checklist.text() and "Write f.txt" in checklist.text()
            saved = transcript.text()
            # codex-acp 2.6 titles a loaded session by its first prompt: the header says it, no turn of its own
            assert loaded.title == "make a plan" and saved.startswith("Transcript: idle · make a plan\n")
            assert "-- Saved conversation: 1 turn(s) --" in saved
            assert "you: make a plan" in saved and "assistant: first answer" in saved

            result = await asyncio.wait_for(loaded.start_turn("and now?"), TIMEOUT)
            assert result.status == "completed" and result.last_agent_message == "loaded answer"
            live = transcript.text()
            assert "Transcript: completed" in live and "assistant: loaded answer" in live
            assert live.count("first answer") == 1  # the replay's last message is not repeated in the new turn

            forked = await browser.fork()
            assert forked.session_id not in (planned.session_id, other.session_id)
            assert all(w.comm is None for w in (controls, checklist, transcript))
            assert browser.table.status.startswith("forked 'make a plan' into ")
            assert (
                await asyncio.wait_for(forked.prompt("in the fork?"), TIMEOUT)
            ).last_agent_message == "forked answer"
            assert {planned.session_id, forked.session_id} <= {r["id"] for r in await browser.refresh()}
            browser.close()
        server.check()
    finally:
        server.close()


@pytest.mark.slow
async def test_an_agent_without_session_list_is_told_in_the_table_not_by_a_traceback() -> None:
    async with cx.AcpAgent(sys.executable, [str(HOSTILE)]) as agent:
        browser = SessionsBrowser(agent=agent)
        await until(lambda: browser.table.error, "the listing failed")
        assert "does not list its sessions (its sessionCapabilities.list is off)" in browser.table.error
        assert browser.table.rows == [] and browser.table.status.endswith("not listed")
        # the buttons its capabilities do not allow are hidden: no load, no fork, no list
        assert browser.table.features == {"resume": False, "fork": False, "refresh": False}
        browser._on_view_msg(browser.table, {"id": "r1", "kind": "resume", "session": "nope"}, [])
        await until(lambda: "no session 'nope'" in browser.table.error, "a resume of an unknown row said so")
        browser.close()


class ListingAgent:
    """Stands in for an agent that lists what it likes (``list_sessions`` is all the table calls)."""

    command = "/opt/lister"
    env: dict[str, str] = {}
    info = None
    loop = None

    def __init__(self, listed: list[dict[str, Any]]) -> None:
        self.listed = listed

    async def list_sessions(self, cwd: Any = None, **_: Any) -> list[dict[str, Any]]:
        return self.listed


async def test_what_an_agent_lists_is_bounded_for_display() -> None:
    long = {"session_id": "long", "cwd": "/w\n" + "d" * 5000, "title": "T\n" * 5000, "updated_at": None}
    listed = [long, {**long, "session_id": "long"}, {"session_id": 7}, {"session_id": "x" * 10_000}]
    listed += [{"session_id": f"s{n}", "cwd": "/w", "title": f"t{n}", "updated_at": "2026"} for n in range(1500)]
    rows, left_out = acp_rows(listed)
    assert len(rows) == ACP_ROWS and left_out == len(listed) - ACP_ROWS
    assert len(rows[0]["title"]) == 200 and "\n" not in rows[0]["title"] and rows[0]["title"].endswith("…")
    assert len(rows[0]["cwd"]) <= 400 and rows[0]["updated"] == ""
    assert [r["id"] for r in rows[:2]] == ["long", "s0"]  # the repeated id, the number, the huge id: dropped
    browser = SessionsBrowser(agent=ListingAgent(listed))
    assert await browser.refresh() == rows
    assert f"{ACP_ROWS} session(s) of the ACP agent lister" in browser.table.status
    assert f"{len(listed) - ACP_ROWS} more not shown" in browser.table.status
    assert len(browser.text().splitlines()) < 60  # the text shows the first 50 rows
    browser.close()


def test_one_browser_shows_a_codex_home_or_an_agent_not_both(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not both"):
        SessionsBrowser(codex_home=tmp_path, agent=ListingAgent([]))
    with pytest.raises(ValueError, match="filters an ACP agent's listing"):
        SessionsBrowser(codex_home=tmp_path, cwd=tmp_path)
    browser = SessionsBrowser(agent=ListingAgent([]))  # no running loop: nothing listed yet, it says how
    assert "await browser.refresh()" in browser.table.status
    with pytest.raises(Exception, match="sort_by must be one of"):
        browser.sort("turns")  # a Codex column, not an ACP listing's
    browser.close()


@pytest.mark.slow
async def test_an_agent_paging_forever_fills_the_table_and_refresh_answers() -> None:
    """A real agent whose ``session/list`` pages never end: the table gets its 1,000 rows from the
    first page, the status says the agent lists more, and Refresh answers the same way."""
    endless = ROOT / "tests" / "acp_agents" / "endless_list_agent.py"
    async with cx.AcpAgent(sys.executable, [str(endless)]) as agent:
        browser = SessionsBrowser(agent=agent)
        await until(lambda: browser.table.rows, "the first listing")
        assert len(browser.table.rows) == ACP_ROWS
        assert f"{ACP_ROWS} session(s) of the ACP agent" in browser.table.status
        assert "the agent lists more sessions (the first 1000 read)" in browser.table.status
        browser.table.status = ""
        browser._on_view_msg(browser.table, {"id": "r1", "kind": "refresh"}, [])  # the Refresh button
        await until(lambda: browser.table.status, "Refresh answered")
        assert "the agent lists more sessions (the first 1000 read)" in browser.table.status
        assert len(browser.table.rows) == ACP_ROWS and browser.table.error == ""
        browser.close()
