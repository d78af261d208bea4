"""The sessions browser reads a long thread by pages with the REAL pinned Codex (``thread/turns/list``):
selecting it shows its newest turns without reading its rollout whole, Resume and Fork open with the
newest page (``excludeTurns``: Codex sends no turns), and "Load older turns" adds the next older page
until the history ends; a short thread, and a server that cannot page, get the old whole read. Here
``long_thread_bytes = 0`` makes a five-turn thread count as long."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.widgets import sessions_browser
from codex_nb.widgets.sessions_browser import SessionsBrowser

from helpers.app_server_helpers import real_codex


async def _settled(browser: SessionsBrowser) -> None:
    """Wait for the browser's background reads (a selection's page, a button's) to end."""
    while browser._tasks:
        await asyncio.gather(*list(browser._tasks), return_exceptions=True)


def _shown(widget: Any) -> list[str]:
    return [line for line in widget.text().splitlines() if line.startswith(("you:", "assistant:", "--"))]


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_long_thread_opens_by_pages_and_loads_older_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions_browser, "HISTORY_PAGE_TURNS", 2)
    script = [[cx.assistant_message(f"answer {n}")] for n in range(5)]
    home = tmp_path / "home"
    async with real_codex(script, home) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        for n in range(5):
            assert (await thread.run_turn(f"question {n}")).status == "completed"
        browser = SessionsBrowser(codex_home=home, server=server)
        browser.long_thread_bytes = 0  # this thread counts as long
        reads: list[str] = []
        with monkeypatch.context() as patched:
            patched.setattr(type(browser.sessions[0]), "read", lambda s: reads.append(s.path.name))
            browser.select(thread.thread_id)
            await _settled(browser)
        assert reads == [] and browser.history is not None and browser.history.pages == 1
        transcript = browser.detail.children[-1]
        assert _shown(transcript) == [
            "-- Saved conversation: the newest 2 turn(s); older ones load on demand (Load older turns) --",
            "you: question 3",
            "assistant: answer 3",
            "you: question 4",
            "assistant: answer 4",
            "-- End of the saved conversation --",
        ]
        button = browser.older_button
        assert button is not None and button in browser.detail.children and button.layout.display is None

        button.click()  # the view's click: the read runs on the server's loop
        await _settled(browser)
        assert _shown(transcript)[1] == "you: question 1" and browser.history.loaded == 4
        await browser.load_older()
        assert _shown(transcript)[0] == "-- Saved conversation: 5 turn(s) --"
        assert _shown(transcript)[1] == "you: question 0" and button.layout.display == "none"
        assert (await browser.load_older()).turns == []  # the history ended: nothing more is asked
        assert browser.history.pages == 3
        await server.close()  # Resume by a second server: the thread is saved, not running

    sent: list[dict[str, Any]] = []
    async with cx.CodexAppServer(codex_home=home, env=server._env) as second:
        request = second.request

        async def spy(method: str, params: dict[str, Any], **kw: Any) -> Any:
            sent.append({"method": method, **params})
            return await request(method, params, **kw)

        monkeypatch.setattr(second, "request", spy)
        browser = SessionsBrowser(codex_home=home, server=second)
        browser.long_thread_bytes = 0
        resumed = await browser.resume(thread.thread_id)
        assert sent[0]["method"] == "thread/resume" and sent[0]["excludeTurns"] is True
        assert resumed.info["thread"]["turns"] == []
        assert _shown(browser.live_widgets[3])[1:3] == ["you: question 3", "assistant: answer 3"]
        assert browser.older_button is not None and browser.older_button in browser.detail.children
        await browser.load_older()
        assert _shown(browser.live_widgets[3])[1] == "you: question 1"
        browser.long_thread_bytes = 10**12  # a short thread: read from its rollout, Codex sends its turns
        again = await browser.resume(thread.thread_id)
        assert sent[-1]["method"] == "thread/resume" and "excludeTurns" not in sent[-1] and again is resumed
        assert browser.history is None and browser.older_button is None
        assert "-- Saved conversation: 5 turn(s) --" in browser.live_widgets[3].text()
        browser.long_thread_bytes = 0

        forked = await browser.fork(thread.thread_id)
        assert forked.thread_id != thread.thread_id and sent[-2]["excludeTurns"] is True
        assert _shown(browser.live_widgets[3])[1:5] == [
            "you: question 3",
            "assistant: answer 3",
            "you: question 4",
            "assistant: answer 4",
        ]
        browser.close()


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_server_that_cannot_page_resumes_as_before(tmp_path: Path) -> None:
    script = [[cx.assistant_message("remembered")]]
    home = tmp_path / "home"
    async with real_codex(script, home) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        assert (await thread.run_turn("the secret is 42")).status == "completed"
    async with cx.CodexAppServer(codex_home=home, env=server._env) as second:
        second._refused.add("thread/turns/list")  # as after a build answered it as unknown
        browser = SessionsBrowser(codex_home=home, server=second)
        browser.long_thread_bytes = 0
        await browser.resume(thread.thread_id)
        assert browser.history is None and browser.older_button is None
        assert "-- Saved conversation: 1 turn(s) --" in browser.live_widgets[3].text()
        with pytest.raises(RuntimeError, match="no paged history is open"):
            await browser.load_older()
        browser.close()


def test_older_turns_loaded_widen_the_transcript_view_within_a_bound() -> None:
    from codex_nb.app_server import ThreadHistory
    from codex_nb.app_server.history_pages import saved_turn
    from codex_nb.rollouts.rollout import Rollout
    from codex_nb.rollouts.rollout_replay import RolloutReplay
    from codex_nb.testing import SAMPLE_CODEX_HOME
    from codex_nb.widgets.transcript import DEFAULT_ROWS, Transcript

    def turn(n: int) -> dict[str, Any]:
        said = {"type": "userMessage", "id": f"u{n}", "content": [{"type": "text", "text": f"question {n}"}]}
        return {"id": f"t{n}", "status": "completed", "items": [said, {"type": "agentMessage", "text": f"a{n}"}]}

    browser = SessionsBrowser(codex_home=SAMPLE_CODEX_HOME)
    transcript = Transcript(RolloutReplay(Rollout(path=Path("t.jsonl"), session_id="th")), max_rate=None)
    browser.detail.children = [transcript]
    browser._history_view = transcript
    browser.history = history = ThreadHistory(None, "th")  # type: ignore[arg-type]
    history.turns = [saved_turn("th", turn(n)) for n in range(300)]  # as if 15 pages were loaded
    browser._show_history(None)  # type: ignore[arg-type]
    assert transcript.rows > DEFAULT_ROWS and transcript.earlier == 0  # every loaded turn is drawn
    assert transcript.entries[1]["text"] == "question 0"
    history.turns = [saved_turn("th", turn(n)) for n in range(2000)]
    browser._show_history(None)  # type: ignore[arg-type]
    assert transcript.rows == sessions_browser.HISTORY_ROWS and transcript.earlier > 0  # bounded, counted
    browser.close()
