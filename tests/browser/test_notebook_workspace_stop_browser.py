"""Stop reaches the page, in a real JupyterLab and Notebook 7: a request the page had already
started when the person pressed Stop (a ``run_cell`` whose cell is still running) runs to its end
and the page reports it; a request the page had received but not started (an ``insert_cell``
waiting behind that run) is skipped, so the cell never appears; the run's reply, which comes after
the kernel stopped waiting, is dropped without an error.

Every step waits for a handshake shown in the page: the slow cell's first line of output (the page
started the run), the turn's status in the Stop control, a label that shows what the kernel asked
the page and one that shows the bridge's ``after_stop`` reports. The slow cell awaits an event that
a button sets (ipykernel 7.4 dispatches widget messages while an async cell runs).
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

SETUP = """\
import asyncio, re
import ipywidgets as widgets
import codex_nb as cx

session = cx.Session(config=cx.Config.from_toml('''
[codex_nb.notebook_tools]
enabled = true
frontend_timeout_seconds = 60
[codex_nb.notebook_tools.approve]
insert_cell = false
run_cell = false
'''))
bridge = session.workspace.document()
release = asyncio.Event()
asked = widgets.Label(value="page asked: nothing")
after = widgets.Label(value="after stop: nothing")
release_button = widgets.Button(description="release the slow cell")
release_button.on_click(lambda _button: release.set())
second_button = widgets.Button(description="start the second turn")

def show_requests(change):
    asked.value = "page asked: " + (", ".join(r["op"] for r in change["new"]) or "nothing")

def show_after_stop(change):
    reports = "; ".join(f"{r['op']} {r['why']}: {r['outcome']}" for r in change["new"])
    after.value = f"after stop: {reports} | bridge errors: {bridge.error or 'none'}"

bridge.observe(show_requests, names="requests")
bridge.observe(show_after_stop, names="after_stop")

SLOW = "print('slow cell started')\\nawait release.wait()\\nprint('slow cell ran to its end')"
first = cx.ScriptedModel([
    [cx.function_call("insert_cell", {"source": SLOW}, call_id="ins", namespace="notebook")],
    lambda request: [cx.function_call("run_cell", {"cell_id": re.search(r"cell (\\S+) at", request.outputs()["ins"]).group(1)},
                                      call_id="run", namespace="notebook")],
    [cx.assistant_message("not reached: the person stops the turn")],
])
second = cx.ScriptedModel([
    [cx.function_call("insert_cell", {"source": "print('this cell must not appear')"}, call_id="late", namespace="notebook")],
    [cx.assistant_message("not reached: the person stops the turn")],
])
second_button.on_click(lambda _button: session.start_turn("add another cell", model=second))
display(cx.TurnControls(session), asked, after, second_button, release_button)
"""

TURN = 'handle = session.start_turn("run a slow cell", model=first)'


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_stop_skips_what_the_page_has_not_started_and_reports_what_it_had(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"workspace_stop_{ui}.ipynb", [SETUP, TURN], ui=ui)
    notebook.run_all()

    cells = page.locator(".jp-Notebook .jp-Cell")
    status = page.locator(".cx-turn-status")
    stop = page.locator("button.cx-stop")
    asked = page.locator(".widget-label", has_text="page asked:")
    after = page.locator(".widget-label", has_text="after stop:")

    # the agent's slow cell is inserted and the page runs it: the run has started in the page
    expect(page.locator(".jp-OutputArea-output", has_text="slow cell started")).to_be_visible(timeout=90_000)
    expect(asked).to_have_text("page asked: run")
    expect(status).to_have_text("Turn: running")
    stop.click()  # 1: Stop while the page runs the cell
    expect(status).to_have_text("Turn: interrupted")
    expect(asked).to_have_text("page asked: nothing")  # the kernel took the run back

    # a second turn asks for an insert while the page is still busy with the run: it waits there
    page.get_by_role("button", name="start the second turn").click()
    expect(asked).to_have_text("page asked: insert")
    expect(status).to_have_text("Turn: running")
    stop.click()  # 2: Stop before the page started the insert
    expect(status).to_have_text("Turn: interrupted")
    expect(after).to_have_text("after stop: insert stopped: skipped | bridge errors: none")

    # the slow cell ends: the run the page had started finishes, and the page says so
    page.get_by_role("button", name="release the slow cell").click()
    expect(page.locator(".jp-OutputArea-output", has_text="slow cell ran to its end")).to_be_visible()
    expect(after).to_have_text("after stop: insert stopped: skipped; run stopped: finished | bridge errors: none")
    expect(cells).to_have_count(3)  # SETUP, TURN and the slow cell: the skipped insert never happened
    expect(cells.nth(2).locator(".jp-InputArea")).to_contain_text("await release.wait()")
    notebook.screenshot(f"workspace_stop_{ui}.png")
    assert not notebook.unplaced_page_errors(), notebook.console
