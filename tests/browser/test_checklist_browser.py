"""PlanChecklist in a real JupyterLab and Notebook 7, driven by a background scripted turn.

The turn pauses at a ``checkpoint`` tool after each snapshot; the test checks the DOM with
auto-waiting ``expect`` and then clicks the notebook's "Next snapshot" button, which sets
the asyncio.Event the checkpoint awaits. No sleeps: every step is a handshake.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, NotebookPage, open_notebook

pytestmark = pytest.mark.browser

SETUP = """\
import asyncio
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.widgets.checklist import PlanChecklist

session = cx.Session()
checklist = PlanChecklist(session)
loop = asyncio.get_running_loop()
gate = asyncio.Event()
next_button = widgets.Button(description="Next snapshot")
next_button.on_click(lambda _button: loop.call_soon_threadsafe(gate.set))

@session.tool
async def checkpoint() -> str:
    "Wait until the browser test releases the turn."
    await gate.wait()
    gate.clear()
    return "released"
"""

SCRIPT = """\
def update(explanation, *steps):
    plan = [{"step": step, "status": status} for step, status in steps]
    return cx.function_call("update_plan", {"explanation": explanation, "plan": plan})

pause = lambda: cx.function_call("checkpoint", {})
model = cx.ScriptedModel([
    [update("Growing plan", ("Inspect workspace", "in_progress")), pause()],
    [update(None, ("Inspect workspace", "completed"), ("Write code", "in_progress"),
            ("<b>Escape</b> me", "pending")), pause()],
    [update("Five steps", ("Inspect workspace", "completed"), ("Write code", "completed"),
            ("Review", "in_progress"), ("Ship it", "pending"), ("Write notes", "pending")), pause()],
    [update("Shrunk to two", ("Ship it", "in_progress"), ("Write notes", "pending")), pause()],
    [update("Nothing to do yet"), pause()],
    [update("All done", ("Inspect workspace", "completed"), ("Write code", "completed"),
            ("Ship it", "completed"))],
    [cx.assistant_message("Finished.")],
])
display(checklist, next_button)
"""

START = 'handle = session.start_turn("Drive the checklist", model=model)'

HUGE = """\
import codex_nb as cx
from codex_nb.widgets.checklist import PlanChecklist

session = cx.Session()
checklist = PlanChecklist(session)
display(checklist)
long_text = ("<i>not italic</i> " + "word " * 2100)[:10240]
steps = [{"step": f"{i}: {long_text}", "status": ("completed", "in_progress", "pending")[i % 3]} for i in range(1000)]
result = await session.call_tool("update_plan", {"explanation": "A thousand steps", "plan": steps})
result.output
"""


# Remember the list's row nodes, and which rows any later DOM mutation lands in.
WATCH_ROWS = """ol => {
  ol.__rows = [...ol.children];
  ol.__touched = new Set();
  new MutationObserver((records) => {
    for (const record of records) {
      let node = record.target;
      while (node && node.parentNode !== ol) node = node.parentNode;
      if (node) ol.__touched.add([...ol.children].indexOf(node));
    }
  }).observe(ol, {subtree: true, childList: true, characterData: true, attributes: true});
}"""
ROWS_WATCHED = """ol => ({
  same: ol.__rows.every((node, i) => ol.children[i] === node),
  touched: [...ol.__touched].sort((a, b) => a - b),
})"""


def run_notebook(page: Any, server: JupyterServer, name: str, cells: list[str], ui: str) -> NotebookPage:
    notebook = open_notebook(page, server, name, cells, ui=ui)
    notebook.run_all()
    return notebook


def expect_steps(plan: Any, rows: list[tuple[str, str]], counter: str, explanation: str | None) -> None:
    from playwright.sync_api import expect

    items = plan.get_by_role("listitem")
    expect(items).to_have_count(len(rows))
    expect(plan.locator(".codex-plan-counter")).to_have_text(counter)
    for index, (text, status) in enumerate(rows):
        item = items.nth(index)
        expect(item).to_have_attribute("data-status", status)
        expect(item.locator(".codex-plan-text")).to_have_text(text)
        label = {"completed": "Completed: ", "in_progress": "In progress: ", "pending": "Pending: "}[status]
        expect(item).to_have_text(f"{'✔' if status == 'completed' else '□'} {label}{text}")
    if explanation is None:
        expect(plan.locator(".codex-plan-explanation")).to_have_count(0)
    else:
        expect(plan.locator(".codex-plan-explanation")).to_have_text(explanation)


def drive(notebook: NotebookPage, screenshot: str) -> None:
    from playwright.sync_api import expect

    page = notebook.page
    plan = page.locator(".codex-plan")
    expect(plan).to_be_visible(timeout=60_000)
    next_button = page.get_by_role("button", name="Next snapshot")

    # 1: growing from nothing
    expect_steps(plan, [("Inspect workspace", "in_progress")], "0/1 done", "Growing plan")
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn running")
    in_progress = plan.get_by_role("listitem").first
    expect(in_progress).to_have_css("font-weight", "700")
    expect(in_progress).to_have_class("codex-plan-step codex-plan-step--in_progress")
    next_button.click()

    # 2: three steps; HTML in a step is text
    expect_steps(
        plan,
        [("Inspect workspace", "completed"), ("Write code", "in_progress"), ("<b>Escape</b> me", "pending")],
        "1/3 done",
        None,
    )
    expect(plan.locator("li b")).to_have_count(0)
    expect(plan.get_by_role("listitem").first.locator(".codex-plan-text")).to_have_css(
        "text-decoration-line", "line-through"
    )
    plan.locator("ol").evaluate(WATCH_ROWS)
    next_button.click()

    # 3: five steps
    expect_steps(
        plan,
        [
            ("Inspect workspace", "completed"),
            ("Write code", "completed"),
            ("Review", "in_progress"),
            ("Ship it", "pending"),
            ("Write notes", "pending"),
        ],
        "2/5 done",
        "Five steps",
    )
    # patched in place: the rows are the same nodes, and the unchanged first row was not touched
    assert plan.locator("ol").evaluate(ROWS_WATCHED) == {"same": True, "touched": [1, 2]}
    expect(plan.get_by_role("list", name="Plan steps")).to_be_visible()
    expect(plan).to_have_attribute("aria-label", "Plan, 2 of 5 steps done")
    notebook.screenshot_of(plan, screenshot.replace(".png", "_five_steps.png"))
    next_button.click()

    # 4: shrinking from five to two (a replacement, not a merge)
    expect_steps(plan, [("Ship it", "in_progress"), ("Write notes", "pending")], "0/2 done", "Shrunk to two")
    next_button.click()

    # 5: an empty plan
    expect(plan.locator(".codex-plan-empty")).to_have_text("(no steps provided)")
    expect_steps(plan, [], "0/0 done", "Nothing to do yet")
    next_button.click()

    # 6: final, all completed, and the turn has ended
    expect_steps(
        plan,
        [("Inspect workspace", "completed"), ("Write code", "completed"), ("Ship it", "completed")],
        "3/3 done",
        "All done",
    )
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn completed")
    expect(plan.locator(".codex-plan-error")).to_be_hidden()
    path = notebook.screenshot(screenshot)
    assert path.stat().st_size > 0
    # the apps log their own page errors (Notebook 7 does); the widget must log nothing
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console


def switch_theme(page: Any, theme: str, light: bool) -> None:
    from playwright.sync_api import expect

    page.evaluate("(theme) => { window.jupyterapp.commands.execute('apputils:change-theme', {theme}); }", theme)
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "true" if light else "false")


def test_checklist_follows_a_background_turn_in_jupyterlab(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = run_notebook(page, jupyter_server, "checklist_lab.ipynb", [SETUP, SCRIPT, START], "lab")
    drive(notebook, "checklist_jupyterlab.png")
    # the widget follows JupyterLab's theme variables
    plan = page.locator(".codex-plan")
    light_text = plan.evaluate("el => getComputedStyle(el).color")
    light_background = plan.evaluate("el => getComputedStyle(el).backgroundColor")
    switch_theme(page, "JupyterLab Dark", light=False)
    try:
        expect(plan).not_to_have_css("color", light_text)
        expect(plan).not_to_have_css("background-color", light_background)
        notebook.screenshot_of(plan, "checklist_jupyterlab_dark.png")
    finally:
        switch_theme(page, "JupyterLab Light", light=True)


def test_checklist_follows_a_background_turn_in_notebook7(page: Any, jupyter_server: JupyterServer) -> None:
    notebook = run_notebook(page, jupyter_server, "checklist_nb7.ipynb", [SETUP, SCRIPT, START], "notebook")
    drive(notebook, "checklist_notebook7.png")


def test_a_huge_plan_renders_scrolls_and_stays_text(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = run_notebook(page, jupyter_server, "checklist_huge.ipynb", [HUGE], "lab")
    plan = page.locator(".codex-plan")
    # A long plan is drawn folded (200 rows from the first unfinished step); the counter counts all.
    expect(plan.get_by_role("listitem")).to_have_count(200, timeout=60_000)
    expect(plan.locator(".codex-plan-counter")).to_have_text("334/1000 done")
    expect(plan.locator(".codex-plan-fold-text")).to_have_text("\u2026 800 steps below")
    plan.get_by_role("button", name="Show all 1000 steps").click()
    expect(plan.get_by_role("listitem")).to_have_count(1000)
    expect(plan.locator(".codex-plan-fold")).to_have_count(0)
    expect(plan.locator("li i")).to_have_count(0)
    body = plan.locator(".codex-plan-body")
    assert body.evaluate("el => el.scrollHeight > el.clientHeight && getComputedStyle(el).overflowY === 'auto'")
    first = plan.locator(".codex-plan-text").first
    assert first.evaluate("el => el.scrollWidth <= el.clientWidth + 1")  # long text wraps, no overflow
    assert page.evaluate("() => 1 + 1") == 2  # the page still answers
    notebook.screenshot("checklist_huge.png")
