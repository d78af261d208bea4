"""The goal card of the turn controls, in a real JupyterLab and Notebook 7, fed by the REAL Codex.

Codex (``codex app-server``, the pinned version) samples from the local Responses server: setting
a goal starts its continuation turns by themselves; the second calls ``update_goal`` with
``complete``. The card above the checklist shows the objective, its status and the tokens against
the budget as Codex reports them; the saved fallback says the same. A second goal that never ends
is stopped with the card's Stop: Codex pauses it and its turn ends interrupted. The plan timeline
beside them lists each goal's set and status changes in order. No sleeps: every wait is an
auto-waiting expect.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import os, tempfile
import codex_nb as cx
from codex_nb.testing import ResponsesServer, Stall

work = tempfile.mkdtemp(prefix="goal-work-")
plan = cx.function_call("update_plan", {"plan": [{"step": "Write the notes", "status": "in_progress"}]}, call_id="p1")
script = [
    [plan],
    [cx.assistant_message("First pass done.")],
    [cx.function_call("update_goal", {"status": "complete"}, call_id="g1")],
    [cx.assistant_message("Goal complete.")],
    Stall(300),
]
srv = ResponsesServer(script, allow_leftover=True).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), tools={"update_plan": {"enabled": True}})
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=work)
controls = cx.TurnControls(thread)
from codex_nb.widgets.timeline import PlanTimelineWidget
display(controls, cx.PlanChecklist(thread), PlanTimelineWidget(thread))
"""

GOAL = """\
result = await thread.run_goal("Write the notes", budget=900000)
print("goal:", result.status, len(result.turns), "turns")
print("fallback:", controls.text().splitlines()[0])
controls.detach()  # a finished goal's card keeps what it showed
"""

STOPPED = """\
second = cx.TurnControls(thread)
display(second)
stopped = await thread.run_goal("Never ends")
print("second:", stopped.status, stopped.stopped, [t.status for t in stopped.turns])
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_goal_card_follows_the_real_codexs_goal_and_stop_pauses_it(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"goal_card_{ui}.ipynb", [SETUP, GOAL, STOPPED], ui=ui)
    notebook.run_all()
    card = page.locator(".cx-turn-controls .cx-goal-card").first
    expect(page.get_by_text("goal: complete 2 turns")).to_be_visible(timeout=120_000)
    expect(card.locator(".cx-goal-title")).to_have_text("Goal (complete): Write the notes")
    expect(card).to_have_attribute("data-status", "complete")
    expect(card.locator(".cx-goal-usage")).to_have_text(re.compile(r"^[\d,]+ of 900,000 tokens \(\d+%\) \u00b7 \d+ s$"))
    expect(card.locator("meter.cx-goal-meter")).to_be_visible()
    expect(page.get_by_text("fallback: Goal (complete): Write the notes")).to_be_visible()
    # the checklist's step, and the same in the timeline's shown revision
    expect(page.locator(".codex-plan-step").get_by_text("Write the notes")).to_have_count(2)
    # the second goal's turn waits on the model: the card's Stop pauses the goal and ends the turn
    card = page.locator(".cx-turn-controls").nth(1).locator(".cx-goal-card")
    expect(card.locator(".cx-goal-title")).to_have_text("Goal (active): Never ends", timeout=60_000)
    stop = page.locator(".cx-turn-controls").nth(1).locator("button.cx-stop")
    expect(stop).to_be_enabled(timeout=60_000)
    stop.click()
    expect(card.locator(".cx-goal-title")).to_have_text("Goal (paused): Never ends", timeout=60_000)
    expect(page.get_by_text("second: paused True ['interrupted']")).to_be_visible(timeout=60_000)
    # the timeline kept both goals' changes in order, each with its objective and usage
    goals = page.locator(".codex-timeline-goals .codex-timeline-goal")
    statuses = ["active", "complete", "active", "paused"]
    expect(goals).to_have_count(4)
    for goal, status in zip(goals.all(), statuses, strict=True):
        expect(goal).to_have_attribute("data-status", status)
    expect(goals.nth(1).locator(".codex-timeline-goal-line")).to_have_text(
        re.compile(r"^Goal \(complete\): Write the notes · [\d,]+ of 900,000 tokens \(\d+%\) · \d+ s$")
    )
    expect(goals.nth(3).locator(".codex-timeline-goal-line")).to_contain_text("Goal (paused): Never ends")
    notebook.screenshot(f"goal_card_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []
