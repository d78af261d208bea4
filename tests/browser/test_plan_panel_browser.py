"""The plan panel in a real JupyterLab (and its fallback in Notebook 7), driven by the magics.

JupyterLab: ``%codex_plan --panel`` puts the checklist and Stop control in the right side
area (sidecar); a ``%%codex`` turn far below keeps it updated while the notebook is scrolled
to the bottom; Stop in the panel interrupts the turn. Notebook 7 has no side area for it, so
the same widgets appear in the cell with a note. No sleeps: every wait is an expect.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from .harness import JupyterServer, NotebookPage, notebook_json, open_notebook

pytestmark = pytest.mark.browser

SETUP = """\
import asyncio
import codex_nb as cx
%load_ext codex_nb
gate, never = asyncio.Event(), asyncio.Event()
session = cx.extension.agent().source()

@session.tool
async def wait_for_gate() -> str:
    "Waits until the test releases it."
    await gate.wait()
    return "released"

@session.tool
async def hang() -> str:
    "Waits until the turn is stopped."
    await never.wait()
    return "unreachable"

def plan(*steps):
    return {"plan": [{"step": step, "status": status} for step, status in steps]}

script = [
    [cx.function_call("update_plan", plan(("Read the code", "in_progress"), ("Fix the bug", "pending")), call_id="p1"),
     cx.function_call("wait_for_gate", {}, call_id="g")],
    [cx.function_call("update_plan", plan(("Read the code", "completed"), ("Fix the bug", "in_progress")), call_id="p2"),
     cx.function_call("hang", {}, call_id="h")],
]
"""
PANEL = "%codex_plan --panel"
FILLER = 'print("\\n".join(f"filler line {i}" for i in range(40)))'
TURN = "%%codex --model script\nFind and fix the bug."
RELEASE = "gate.set()"


def _kernel_execute(page: Any, code: str) -> None:
    """Run code in the notebook's kernel without a cell (the cells have all finished)."""
    page.evaluate(
        """(code) => {
        const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        kernel.requestExecute({code});
    }""",
        code,
    )


def test_panel_follows_the_turn_while_scrolled_and_stop_interrupts_it(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    cells = [SETUP, PANEL, *[FILLER] * 6, TURN]
    notebook = open_notebook(page, jupyter_server, "panel_lab.ipynb", cells)
    notebook.run_all()

    panel = page.locator("#jp-right-stack .jupyterlab-sidecar .cx-plan-panel")
    expect(panel).to_be_visible(timeout=60_000)
    expect(page.locator(".cx-plan-panel-note")).to_have_attribute("data-area", "side")
    step = panel.locator(".codex-plan-step")
    expect(step.first).to_have_attribute("data-status", "in_progress", timeout=60_000)
    expect(step.first.locator(".codex-plan-text")).to_have_text("Read the code")

    # scroll the notebook to its bottom: the %%codex cell is in view, the panel cell is far above
    turn_view = page.locator(".jp-Notebook .jp-Cell").last.locator(".cx-turn-view")
    turn_view.scroll_into_view_if_needed()
    expect(turn_view).to_be_in_viewport()
    expect(page.locator(".cx-plan-panel-note")).not_to_be_in_viewport()
    _kernel_execute(page, RELEASE)
    expect(step.nth(1)).to_have_attribute("data-status", "in_progress")
    expect(step.first).to_have_attribute("data-status", "completed")
    expect(panel).to_be_in_viewport()
    notebook.screenshot("plan_panel_scrolled.png")

    stop = panel.locator("button.cx-stop")
    expect(stop).to_be_enabled()
    stop.click()
    expect(panel.locator(".cx-turn-status")).to_have_text("Turn: interrupted")
    expect(turn_view.locator(".cx-turn-outcome")).to_have_text("Turn interrupted")
    expect(step.nth(1).locator(".codex-plan-text")).to_have_text("Fix the bug")  # the plan stays


def test_notebook7_shows_the_panel_in_the_cell_with_a_note(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    cells = [SETUP, PANEL, TURN]
    notebook = open_notebook(page, jupyter_server, "panel_nb7.ipynb", cells, ui="notebook")
    notebook.run_all()

    note = page.locator(".cx-plan-panel-note")
    expect(note).to_have_attribute("data-area", "cell", timeout=60_000)
    expect(note).to_contain_text("this front end has no side area")
    inline = page.locator(".jp-Cell").nth(1).locator(".cx-plan-panel")
    expect(inline.locator(".codex-plan-text").first).to_have_text("Read the code", timeout=60_000)
    notebook.screenshot("plan_panel_notebook7.png")
    inline.locator("button.cx-stop").click()
    expect(inline.locator(".cx-turn-status")).to_have_text("Turn: interrupted")


def test_a_panel_whose_kernel_is_gone_says_so_and_closes(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    cells = ["%load_ext codex_nb", PANEL]
    notebook = open_notebook(page, jupyter_server, "panel_dead.ipynb", cells)
    notebook.run_all()

    panel = page.locator("#jp-right-stack .jupyterlab-sidecar")
    head = panel.locator(".cx-plan-panel-head")
    expect(head).to_have_attribute("data-alive", "true", timeout=60_000)
    expect(head.locator(".cx-plan-panel-title")).to_have_text("Codex plan · session default")
    expect(head.locator(".cx-plan-panel-gone")).to_be_hidden()

    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    gone = head.locator(".cx-plan-panel-gone")
    expect(gone).to_be_visible(timeout=60_000)
    expect(gone).to_contain_text("The kernel behind this panel has shut down")
    expect(head).to_have_attribute("data-alive", "false")
    notebook.screenshot_of(panel, "plan_panel_kernel_gone.png")
    gone.get_by_role("button", name="Close panel").click()
    expect(panel).to_have_count(0)
    expect(page.locator("#jp-right-stack .cx-plan-panel")).to_have_count(0)


# nbclient has no page: this is the report JupyterLab's view of the note sends, which makes the sidecar
PLACED_IN_THE_SIDE_AREA = """\
import codex_nb as cx
cell = cx.extension.agent().panel.cells[-1]
cell.note.handle_message({"id": "lab", "kind": "placed", "area": "side"})
"""

EXECUTE_SAVING_WIDGET_STATE = """\
import sys
import nbformat
from nbclient import NotebookClient
path = sys.argv[1]
notebook = nbformat.read(path, as_version=4)
NotebookClient(notebook, timeout=120, kernel_name="python3", store_widget_state=True).execute()
nbformat.write(notebook, path)
"""


def test_a_panel_restored_from_saved_widget_state_says_no_kernel_backs_it(
    page: Any, jupyter_server: JupyterServer
) -> None:
    """A notebook saved with widget state after its panel opened in JupyterLab's side area (nbclient
    saves widget state by default; JupyterLab can too): JupyterLab restores the panel from it with no
    kernel behind it. It must say so (and close), not look like a plan that never moves."""
    from playwright.sync_api import expect

    name = jupyter_server.write_notebook(
        "panel_saved.ipynb", notebook_json(["%load_ext codex_nb", PANEL, PLACED_IN_THE_SIDE_AREA])
    )
    # a subprocess: nbclient runs its own event loop, and Playwright's sync API keeps one running here
    subprocess.run(
        [sys.executable, "-c", EXECUTE_SAVING_WIDGET_STATE, str(jupyter_server.root / name)],
        check=True,
        timeout=180,
        capture_output=True,
    )
    assert "widgets" in json.loads((jupyter_server.root / name).read_text(encoding="utf-8"))["metadata"]

    notebook = NotebookPage(page, jupyter_server, name, ui="lab").open()
    panel = page.locator("#jp-right-stack .jupyterlab-sidecar")
    gone = panel.locator(".cx-plan-panel-gone")
    expect(gone).to_be_visible(timeout=60_000)
    expect(gone).to_contain_text("No kernel backs this panel")
    notebook.screenshot_of(panel, "plan_panel_restored.png")
    gone.get_by_role("button", name="Close panel").click()
    expect(panel).to_have_count(0)
