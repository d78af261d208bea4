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


REPLAY_CELL = """\
import json, tempfile, pathlib
import codex_nb as cx
from codex_nb.widgets.plan_answers import PlanAnswersWidget

plan = {"plan": [{"step": "Read the saved plan", "status": "in_progress"}]}
lines = [
    {"type": "session_meta", "payload": {"id": "0199a213-81c0-7800-8aa1-bbab2a035a53", "cwd": "/tmp"}},
    {"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "update_plan", "call_id": "p1",
                                          "arguments": json.dumps(plan)}},
    {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "p1", "output": "Plan updated"}},
]
path = pathlib.Path(tempfile.mkdtemp()) / "rollout-saved.jsonl"
path.write_text("".join(json.dumps({"timestamp": "2026-12-01T10:00:00.000Z", **l}) + "\\n" for l in lines))
replay = cx.RolloutReplay(path)
replay.seek(0)
display(cx.TurnControls(replay), PlanAnswersWidget.of(replay))
"""


def test_a_replay_shows_no_stop_and_no_send_controls(page: Any, jupyter_server: JupyterServer) -> None:
    """A replay's capabilities offer neither Stop nor answers: the views leave those controls out."""
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "replay_controls_lab.ipynb", [REPLAY_CELL])
    notebook.run_all()

    expect(page.locator(".cx-turn-status")).to_have_text("Turn: no turn yet", timeout=60_000)
    expect(page.locator("button.cx-stop")).to_be_hidden()
    expect(page.locator(".cx-pa-step-text", has_text="Read the saved plan")).to_be_visible()
    expect(page.get_by_role("button", name="Comment on step 1: Read the saved plan")).to_have_count(0)
    expect(page.get_by_role("button", name="Suggest a change")).to_have_count(0)
