"""A re-run ``%%codex`` cell in a real JupyterLab and Notebook 7 never shows two turns at once.

The cell's first turn ends with a plan; the cell is run again and its second (scripted) model
holds its answer until the person clicks a button. While it waits, the view says "Turn: running"
beside an empty plan and an empty outcome line: the previous turn's finished plan, or an outcome
line saying "Turn running…", would read as a contradiction (and a front end that drew the outcome
late kept "Turn running…" under "Turn: completed"). Released, the status and the outcome line both
say completed. No sleeps: every wait is an auto-waiting ``expect``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

SETUP = """\
%load_ext codex_nb
import asyncio
import ipywidgets as widgets
import codex_nb as cx

release = asyncio.Event()
button = widgets.Button(description="Let the model answer")
button.on_click(lambda _button: release.set())
plan = {"plan": [{"step": "Read the README", "status": "completed"}, {"step": "Run the tests", "status": "completed"}]}


async def held(request):
    await release.wait()
    return [cx.assistant_message("Second done.")]


models = [
    cx.ScriptedModel([[cx.function_call("update_plan", plan)], [cx.assistant_message("First done.")]]),
    cx.ScriptedModel([held]),
]


def next_model():
    return models.pop(0)


display(button)
"""
PROMPT = "%%codex --model next_model\nDo it."


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_rerun_codex_cell_shows_only_its_own_turn(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"turn_view_rerun_{ui}.ipynb", [SETUP, PROMPT], ui=ui)
    notebook.run_all()
    view = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea")
    status, outcome, steps = (
        view.locator(".cx-turn-status"),
        view.locator(".cx-turn-outcome"),
        view.locator(".codex-plan-step"),
    )
    expect(outcome).to_have_text("Turn completed: First done.", timeout=90_000)
    expect(status).to_have_text(re.compile(r"completed"))
    expect(steps).to_have_count(2)

    # run the same cell again: a new view of the same session, whose latest plan is the first turn's
    page.evaluate(
        """() => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = 1;
            window.jupyterapp.commands.execute('notebook:run-cell');
        }"""
    )
    expect(status).to_have_text(re.compile(r"running"), timeout=60_000)
    expect(steps).to_have_count(0)
    expect(outcome).to_have_text("")
    expect(view).not_to_contain_text("Read the README")
    notebook.screenshot_of(view, f"turn_view_rerun_running_{ui}.png")

    page.get_by_role("button", name="Let the model answer").click()
    expect(outcome).to_have_text("Turn completed: Second done.", timeout=30_000)
    expect(status).to_have_text(re.compile(r"completed"))
    expect(view).not_to_contain_text("running")
    assert notebook.unplaced_page_errors() == []
