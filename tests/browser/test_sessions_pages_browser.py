"""A long thread in the sessions browser with the REAL Codex, in JupyterLab and Notebook 7: a person
selects it and sees its newest turns (read by pages, ``thread/turns/list``: the rollout is not read
whole), presses "Load older turns" until the history ends, then Resume opens it live with the
newest page again. The pinned ``codex app-server`` samples from a local scripted Responses server;
a first app-server saves the five-turn thread and is closed before the browser's own one starts.
The page size is 2 here, so five turns take three pages. No sleeps."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import os, tempfile
import codex_nb as cx
from codex_nb.testing import ResponsesServer
from codex_nb.widgets import sessions_browser

sessions_browser.HISTORY_PAGE_TURNS = 2  # five turns: three pages
srv = ResponsesServer([[cx.assistant_message(f"answer {n}")] for n in range(5)]).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"))
env = {**os.environ, "OPENAI_API_KEY": "sk-local"}
async with cx.CodexAppServer(codex_home=home, env=env) as first:
    saved = await first.start_thread(cwd=tempfile.gettempdir())
    for n in range(5):
        assert (await saved.run_turn(f"question {n}")).status == "completed"

server = cx.CodexAppServer(codex_home=home, env=env)
await server.start()
browser = cx.SessionsBrowser(codex_home=home, server=server)
browser.long_thread_bytes = 0  # this thread counts as long: it opens by pages
browser
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_long_thread_opens_with_its_newest_turns_and_loads_older_ones(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"sessions_pages_{ui}.ipynb", [SETUP], ui=ui)
    notebook.run_all()

    rows = page.locator(".cx-sessions-table tr[data-id]")
    expect(rows).to_have_count(1, timeout=120_000)
    rows.first.click()
    transcript = page.locator(".cx-transcript")
    users = transcript.locator(".cx-kind-user")
    expect(users).to_have_count(2, timeout=30_000)
    expect(users.first).to_contain_text("question 3")
    expect(users.last).to_contain_text("question 4")
    expect(transcript.locator(".cx-kind-saved").first).to_contain_text("the newest 2 turn(s)")
    expect(page.locator(".cx-sessions-paged")).to_contain_text("read by pages")

    older = page.get_by_role("button", name="Load older turns")
    older.click()
    expect(users).to_have_count(4, timeout=30_000)
    expect(users.first).to_contain_text("question 1")
    older.click()
    expect(users).to_have_count(5, timeout=30_000)
    expect(users.first).to_contain_text("question 0")
    expect(transcript.locator(".cx-kind-saved").first).to_contain_text("Saved conversation: 5 turn(s)")
    expect(older).to_be_hidden()  # the history ended
    notebook.screenshot(f"sessions_pages_{ui}.png")

    page.locator(".cx-sessions-bar button", has_text="Resume").click()
    expect(page.locator(".cx-sessions-note")).to_contain_text("resumed", timeout=60_000)
    expect(transcript.locator(".cx-kind-saved").first).to_contain_text("the newest 2 turn(s)", timeout=60_000)
    expect(users.first).to_contain_text("question 3")
    expect(page.get_by_role("button", name="Load older turns")).to_be_visible()
    assert not notebook.unplaced_page_errors(), notebook.page_errors
