"""cx.compare in a real JupyterLab and Notebook 7: three agents side by side, one Stop, then Stop all.

Three codex_nb sessions each publish a plan and then wait in a tool until they are stopped. The
cell shows the comparison and returns at once (the agents run in the background). A person
stops the first agent with its own column's Stop, then presses Stop all: every column says
interrupted, the summary table says so too, and the kernel reports that no session has a turn left.
No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

CELL = """\
import asyncio
import ipywidgets as widgets
import codex_nb as cx

def agent(name):
    session = cx.Session()
    never = asyncio.Event()

    @session.tool
    async def hang() -> str:
        "Waits until the turn is stopped."
        await never.wait()
        return "unreachable"

    model = cx.ScriptedModel([[
        cx.function_call("update_plan", {"plan": [{"step": f"{name} waits for Stop", "status": "in_progress"}]}),
        cx.function_call("hang", {}),
    ]])
    return session, model

outcome = widgets.Label(value="agents running")
agents = {name: agent(name) for name in ("alpha", "beta", "gamma")}
comparison = cx.compare(agents, "wait for the user")

async def report():
    runs = await comparison
    left = [n for n, (session, _) in agents.items() if session.active_turn is not None or not runs[n].done]
    outcome.value = "ended: " + ", ".join(f"{n}={r.status}" for n, r in runs.items()) + f" | running: {len(left)}"

reporter = asyncio.ensure_future(report())
display(comparison, outcome)
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_stop_one_then_stop_all_in_the_side_by_side_widget(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"compare_{ui}.ipynb", [CELL], ui=ui)
    notebook.run_all()

    view = page.locator(".cx-compare")
    expect(view).to_have_count(1, timeout=60_000)
    statuses = view.locator(".cx-turn-status")
    expect(statuses).to_have_count(3)
    for name in ("alpha", "beta", "gamma"):
        expect(view.locator(".codex-plan-text", has_text=f"{name} waits for Stop").first).to_be_visible()
    for i in range(3):
        expect(statuses.nth(i)).to_have_text("Turn: running")

    view.locator("button.cx-stop").first.click()  # alpha's own Stop
    expect(statuses.nth(0)).to_have_text("Turn: interrupted")
    expect(statuses.nth(1)).to_have_text("Turn: running")

    view.get_by_role("button", name="Stop all").click()
    for i in range(3):
        expect(statuses.nth(i)).to_have_text("Turn: interrupted")
    expect(
        page.get_by_text("ended: alpha=interrupted, beta=interrupted, gamma=interrupted | running: 0")
    ).to_be_visible()
    expect(view.locator("table.codex-nb-compare")).to_contain_text("interrupted")
    stop_all = view.get_by_role("button", name="Stop all")
    expect(stop_all).to_be_disabled()
    expect(stop_all).not_to_have_class(re.compile(r"\bmod-danger\b"))  # red once nothing was left to stop
    notebook.screenshot(f"compare_stopped_{ui}.png")
