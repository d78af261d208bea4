"""An ACP agent's sessions in the sessions browser, with the REAL codex-acp 2.6, in JupyterLab and
Notebook 7: a person sees the sessions a first agent process saved listed by a second one (the
table fills in the background), selects one, presses Resume (``session/load`` runs on the agent's
loop), sees the replayed conversation and its plan, and a live prompt on it runs and ends.

codex-acp samples from a local scripted Responses server; the live prompt's answer waits for a
"Next" button, so the running turn is seen before it ends; no sleeps.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_acp_agent("codex-acp")]

SETUP = """\
import tempfile, threading
from pathlib import Path
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing.acp_agents import acp_agent

gate = threading.Event()
next_button = widgets.Button(description="Next")
next_button.on_click(lambda _button: gate.set())

def gated(items):
    def entry(body):  # runs on the scripted server's thread: hold the model's answer
        gate.wait(120)
        return items
    return entry

spec = acp_agent("codex-acp")
plan = cx.function_call("update_plan", {"plan": [{"step": "Remember the secret", "status": "completed"}]})
script = [[plan], [cx.assistant_message("I will remember 42.")], gated([cx.assistant_message("The secret is 42.")])]
srv = spec.server(script).start()
home, work = Path(tempfile.mkdtemp(prefix="acp-home-")), Path(tempfile.mkdtemp(prefix="acp-work-"))
command = spec.command()
async with cx.AcpAgent(command[0], command[1:], env=spec.env(srv, home)) as first:  # saves it, then exits
    saved = await first.new_session(work)
    assert (await saved.prompt("the secret is 42")).status == "completed"

agent = cx.AcpAgent(command[0], command[1:], env=spec.env(srv, home))
browser = cx.SessionsBrowser(agent=agent)  # lists in the background on this loop
ask = widgets.Button(description="Ask again")
ask.on_click(lambda _b: agent.loop.call_soon_threadsafe(browser.thread.prompt, "what is the secret?"))
display(browser, ask, next_button)
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_an_acp_agents_session_is_listed_loaded_and_prompted(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"acp_sessions_{ui}.ipynb", [SETUP], ui=ui)
    notebook.run_all()

    rows = page.locator(".cx-sessions-table tr[data-id]")
    expect(rows).to_have_count(1, timeout=120_000)
    expect(page.locator(".cx-sessions-table th").first).to_contain_text("Title")
    expect(rows.first).to_contain_text("the secret is 42")
    expect(page.locator(".cx-sessions-bar button", has_text="Fork")).to_be_visible()  # codex-acp offers it
    rows.first.click()
    page.locator(".cx-sessions-bar button", has_text="Resume").click()

    transcript = page.locator(".cx-transcript")
    expect(transcript.locator(".cx-kind-saved").first).to_contain_text("Saved conversation: 1 turn(s)", timeout=60_000)
    expect(transcript.locator(".cx-kind-user")).to_contain_text("the secret is 42")
    expect(transcript.locator(".cx-kind-assistant")).to_contain_text("I will remember 42.")
    expect(page.locator(".codex-plan")).to_contain_text("Remember the secret")  # from codex-acp's rollout
    expect(page.locator(".cx-sessions-note")).to_contain_text("loaded")  # not an error

    page.get_by_role("button", name="Ask again").click()
    # the header says the session's title (codex-acp titles a session by its first prompt)
    expect(transcript.locator(".cx-transcript-header")).to_have_text(
        "Transcript: running · the secret is 42", timeout=60_000
    )
    page.get_by_role("button", name="Next").click()
    expect(transcript.locator(".cx-transcript-header")).to_have_text(
        "Transcript: completed · the secret is 42", timeout=60_000
    )
    expect(transcript.locator(".cx-kind-assistant .cx-transcript-text").last).to_have_text("The secret is 42.")
    notebook.screenshot(f"acp_sessions_{ui}.png")
    assert not notebook.unplaced_page_errors(), notebook.page_errors
    assert not [line for line in notebook.console if "attached to a different loop" in line], notebook.console
