"""PlanTimelineWidget in a real JupyterLab and Notebook 7, light and dark: the revisions of a
scripted turn are listed, a click or an arrow key selects one and the checklist beside it shows
that snapshot with its changes; a checklist of a session with ``update_plan`` off says why it has
no plan. After export: an executed notebook exported to HTML and opened with no kernel and no
network shows the plan as it ended. No sleeps: every wait is an auto-waiting expect on the DOM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.plan_export import FINAL_STEPS, write_exported

from .harness import ARTIFACTS, JupyterServer, open_notebook
from .test_widget_themes_browser import CONTRAST

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

OFF_CELL = """\
off = cx.Session(config=cx.Config(update_plan_enabled=False))
off_checklist = cx.PlanChecklist(off)
display(off_checklist)
await off.run_turn("hi", model=cx.ScriptedModel([[cx.assistant_message("no plan here")]]))
print("off done")
"""


def _set_theme(page: Any, theme: str) -> None:
    page.evaluate("(t) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", theme)
    light = "true" if theme == "JupyterLab Light" else "false"
    page.wait_for_function("(v) => document.body.dataset.jpThemeLight === v", arg=light)


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_revisions_are_selected_by_click_and_arrow_keys(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"plan_timeline_{ui}.ipynb", [CELL, OFF_CELL], ui=ui)
    notebook.run_all()

    # Both cells ended: their displays were updated in place at the cell's end (the stored
    # output is the final state), and each view was drawn again once, with no duplicate.
    expect(page.locator(".jp-OutputArea-output", has_text="off done")).to_be_visible(timeout=90_000)
    expect(page.locator(".codex-timeline")).to_have_count(1)
    # Saved by the front end, the notebook holds those final states (what an export shows).
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    saved = json.loads((jupyter_server.root / notebook.name).read_text(encoding="utf-8"))
    stored = [
        {kind: "".join(text) for kind, text in o["data"].items() if kind.startswith("text/")}  # saved as lines
        for c in saved["cells"]
        for o in c["outputs"]
        if "text/html" in o.get("data", {})
    ]
    assert any("Plan history</strong> <span>(5 revisions)" in d["text/html"] for d in stored), stored
    assert any("[tools.update_plan] enabled = true" in d["text/plain"] for d in stored), stored
    why = page.locator(".codex-plan-no-plan")
    expect(why).to_contain_text("No plan: update_plan is off in this session's config")
    expect(why).to_contain_text("[tools.update_plan] enabled = true")

    options = page.locator(".codex-timeline-item")
    expect(options).to_have_count(5)
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
    notebook.screenshot(f"plan_timeline_{ui}.png")
    notebook.screenshot_of(page.locator(".codex-timeline"), f"plan_timeline_widget_{ui}.png")

    try:
        for theme in ("JupyterLab Dark", "JupyterLab Light"):
            _set_theme(page, theme)
            for text in (".codex-timeline-label", ".codex-timeline-detail .codex-plan-text", ".codex-plan-no-plan"):
                assert page.locator(text).first.evaluate(CONTRAST) >= 4.5, (ui, theme, text)
            if theme == "JupyterLab Dark":
                notebook.screenshot(f"plan_timeline_{ui}_dark.png")
    finally:
        _set_theme(page, "JupyterLab Light")  # the theme is a user setting: later tests start light


def test_an_exported_notebook_shows_the_final_plan_with_no_kernel(chromium: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    pages = write_exported(tmp_path)
    context = chromium.new_context(viewport={"width": 1100, "height": 900})
    try:
        page = context.new_page()
        # no kernel, no network: only the exported file itself may load
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        for theme, path in pages.items():
            page.goto(path.as_uri())
            checklist = page.locator(".codex-plan-static li")
            expect(checklist).to_have_count(3)
            final = page.locator(".codex-timeline-static-final li")
            for i, step in enumerate(FINAL_STEPS):
                expect(checklist.nth(i)).to_contain_text(step)  # "<b>parser</b>" as text, not bold
                expect(final.nth(i)).to_contain_text(step)
            expect(page.locator(".codex-plan-static")).to_contain_text("(3/3 done)")
            expect(page.locator(".codex-timeline-static")).to_contain_text("Plan history (3 revisions)")
            expect(page.locator(".codex-timeline-static details li")).to_have_count(3)
            assert page.locator(".codex-plan-static b").count() == 0
            for text in (".codex-plan-static li", ".codex-timeline-static-final li"):
                assert page.locator(text).first.evaluate(CONTRAST) >= 4.5, (theme, text)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"plan_export_{theme}.png"), full_page=True)
    finally:
        context.close()
