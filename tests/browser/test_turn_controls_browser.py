"""The Stop control in a real JupyterLab: a person clicks Stop and the running turn is interrupted.

Kernel interrupt does not reach an awaiting cell, so this button is how a
notebook user stops a turn. The kernel reports through the DOM: the controls' status comes
from turn events, a Label shows the turn result, and the checklist keeps the plan that was
published before the interrupt (no rollback). No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

CELL = """\
import asyncio
import ipywidgets as widgets
import codex_nb as cx

session = cx.Session()
controls = cx.TurnControls(session)
checklist = cx.PlanChecklist(session)
outcome = widgets.Label(value="turn running")
never = asyncio.Event()

@session.tool
async def hang() -> str:
    "Waits until the turn is stopped."
    await never.wait()
    return "unreachable"

model = cx.ScriptedModel([[
    cx.function_call("update_plan", {"plan": [{"step": "Wait for Stop", "status": "in_progress"}]}, call_id="p"),
    cx.function_call("hang", {}, call_id="h"),
]])

def report(task):
    result = task.result()
    outcome.value = f"result: {result.status} / {result.outputs()['h'].split(' after ')[0]}"

display(controls, checklist, outcome)
handle = session.start_turn("wait for the user", model=model)
handle.task.add_done_callback(report)
"""


def test_stop_button_interrupts_the_running_turn(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "stop_lab.ipynb", [CELL])
    notebook.run_all()

    status = page.locator(".cx-turn-status")
    expect(status).to_have_text("Turn: running", timeout=60_000)
    expect(page.locator(".codex-plan-text", has_text="Wait for Stop")).to_be_visible()
    stop = page.locator("button.cx-stop")
    expect(stop).to_be_enabled()
    stop.click()

    expect(status).to_have_text("Turn: interrupted")
    expect(stop).to_be_disabled()
    expect(page.get_by_text("result: interrupted / aborted by user")).to_be_visible()
    expect(page.locator(".codex-plan-text", has_text="Wait for Stop")).to_be_visible()  # the published plan stays
    notebook.screenshot("turn_controls_stopped.png")
