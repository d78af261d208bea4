"""PlanTimelineWidget in a real JupyterLab: the revisions of a scripted turn are listed, a
click or an arrow key selects one and the checklist beside it shows that snapshot with its
changes. No sleeps: every wait is an auto-waiting expect on the DOM the kernel's state drew.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, NotebookPage, notebook_json

pytestmark = pytest.mark.browser

CELL = """\
import codex_nb as cx
from codex_nb.widgets.timeline import PlanTimelineWidget

session = cx.Session()
timeline = PlanTimelineWidget(session)
display(timeline)

def update(*steps):
    return cx.function_call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]})

model = cx.ScriptedModel([
    [update(("Read the code", "pending"), ("Write the tests", "pending"), ("<b>Ship</b> it", "pending"))],
    [update(("Read the code", "in_progress"), ("Write the tests", "pending"), ("<b>Ship</b> it", "pending"))],
    [update(("Read the code", "completed"), ("Write the tests", "in_progress"), ("<b>Ship</b> it", "pending"))],
    [update(("Read the code", "completed"), ("Write the unit tests", "in_progress"), ("<b>Ship</b> it", "pending"))],
    [update(("Read the code", "in_progress"), ("Write the unit tests", "completed"), ("Update the docs", "pending"))],
    [cx.assistant_message("done")],
])
result = await session.run_turn("plan", model=model)
result.status
"""


def test_revisions_are_selected_by_click_and_arrow_keys(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    jupyter_server.write_notebook("plan_timeline.ipynb", notebook_json([CELL]))
    notebook = NotebookPage(page, jupyter_server, "plan_timeline.ipynb", ui="lab").open()
    notebook.run_all()

    options = page.locator(".codex-timeline-item")
    expect(options).to_have_count(5, timeout=60_000)
    heading = page.locator(".codex-timeline-heading")
    # Following the newest: revision 4, its regression flagged in the list and on the step.
    expect(options.nth(4)).to_have_attribute("aria-selected", "true")
    expect(options.nth(4)).to_have_attribute("data-regression", "true")
    expect(heading).to_contain_text("#4")
    regression = page.locator('.codex-timeline-change[data-regression="true"]')
    expect(regression).to_have_text("regression: completed → in_progress")
    expect(page.locator(".codex-timeline-removed-step")).to_have_text("<b>Ship</b> it")  # shown as text

    options.nth(3).click()
    expect(heading).to_contain_text("#3")
    expect(options.nth(3)).to_have_attribute("aria-selected", "true")
    expect(page.locator(".codex-timeline-change", has_text="renamed")).to_have_text("renamed from “Write the tests”")
    expect(page.locator(".codex-timeline-detail .codex-plan-text")).to_have_text(
        ["Read the code", "Write the unit tests", "<b>Ship</b> it"]
    )

    listbox = page.locator(".codex-timeline-list")
    expect(listbox).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(heading).to_contain_text("#2")
    expect(page.locator(".codex-timeline-detail .codex-plan-step--in_progress .codex-plan-text")).to_have_text(
        "Write the tests"
    )
    page.keyboard.press("Home")
    expect(heading).to_contain_text("#0")
    expect(page.locator(".codex-timeline-change")).to_have_text(["added", "added", "added"])
    page.keyboard.press("End")
    expect(heading).to_contain_text("#4")
    expect(page.locator(".jp-OutputArea-output", has_text="'completed'")).to_be_visible()
    notebook.screenshot("plan_timeline.png")
