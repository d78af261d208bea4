"""Resume from the sessions browser with the REAL Codex, in JupyterLab and Notebook 7: a person
selects a saved session, presses Resume (the button's message reaches the kernel on whatever
thread and loop the front end's comm uses; the resume runs on the app-server's), sees the saved
conversation and its last plan, and a live turn on the resumed thread runs and ends.

The pinned ``codex app-server`` samples from a local scripted Responses server. The session is
saved by a first app-server that is closed before the browser's own one starts, so the resume
reads it from disk. The live turn's answer waits for a "Next" button: the running turn is seen
before it ends; no sleeps.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, gate_cell, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = (
    gate_cell("Next")
    + """\
import asyncio, os, tempfile, threading
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer


plan = cx.function_call("update_plan", {"plan": [{"step": "Remember the secret", "status": "completed"}]})
script = [[plan], [cx.assistant_message("I will remember 42.")],
          gated([cx.assistant_message("The secret is 42.")])]
srv = ResponsesServer(script).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), tools={"update_plan": {"enabled": True}})
env = {**os.environ, "OPENAI_API_KEY": "sk-local"}
async with cx.CodexAppServer(codex_home=home, env=env) as first:  # saves the session, then exits
    saved = await first.start_thread(cwd=tempfile.gettempdir())
    assert (await saved.start_turn("the secret is 42")).status == "completed"

server = cx.CodexAppServer(codex_home=home, env=env)
await server.start()
browser = cx.SessionsBrowser(codex_home=home, server=server)
ask = widgets.Button(description="Ask again")
# a live turn on the resumed thread, started on the app-server's loop like the browser's buttons
ask.on_click(lambda _b: server.loop.call_soon_threadsafe(browser.thread.start_turn, "what is the secret?"))
display(browser, ask, next_button)
"""
)


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_resume_shows_the_saved_conversation_and_a_live_turn(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"sessions_resume_{ui}.ipynb", [SETUP], ui=ui)
    notebook.run_all()

    rows = page.locator(".cx-sessions-table tr[data-id]")
    expect(rows).to_have_count(1, timeout=120_000)
    rows.first.click()
    expect(page.locator(".cx-transcript")).to_contain_text("I will remember 42.", timeout=30_000)
    page.locator(".cx-sessions-bar button", has_text="Resume").click()

    transcript = page.locator(".cx-transcript")
    expect(transcript.locator(".cx-kind-saved").first).to_contain_text("Saved conversation: 1 turn(s)", timeout=60_000)
    expect(transcript.locator(".cx-kind-user")).to_contain_text("the secret is 42")
    expect(transcript.locator(".cx-kind-assistant")).to_contain_text("I will remember 42.")
    plan = page.locator(".codex-plan")
    expect(plan).to_contain_text("Remember the secret")  # the last saved plan, not an empty checklist
    expect(page.locator(".cx-sessions-note")).to_contain_text("resumed")  # not an error

    page.get_by_role("button", name="Ask again").click()
    expect(transcript.locator(".cx-transcript-header")).to_have_text("Transcript: running", timeout=60_000)
    expect(transcript.locator(".cx-kind-user").first).to_contain_text("the secret is 42")  # kept above the live turn
    expect(transcript.locator(".cx-kind-user").last).to_contain_text("what is the secret?")  # the person's new words
    expect(transcript.locator(".cx-kind-saved").last).to_contain_text("End of the saved conversation")
    page.get_by_role("button", name="Next").click()
    expect(transcript.locator(".cx-transcript-header")).to_have_text("Transcript: completed", timeout=60_000)
    expect(transcript.locator(".cx-kind-assistant .cx-transcript-text").last).to_have_text("The secret is 42.")
    notebook.screenshot(f"sessions_resumed_{ui}.png")
    assert not notebook.unplaced_page_errors(), notebook.page_errors
    assert not [line for line in notebook.console if "attached to a different loop" in line], notebook.console
