"""The teaching notebooks after Run All in a real JupyterLab: every live widget shows what the text
beside it says.

Each code cell that displays widgets stores what a reader should see there after Run All, in
``metadata.codex_nb.expect`` (a list; see :mod:`notebook_expectations`). This test copies a
committed notebook into the server, clears its saved outputs, runs all cells through JupyterLab's
own command (so a cell that fails stops the run, as it does for a person) and waits for the
command's outcome: every cell ran. Then it reads each widget's visible text with Playwright's auto-waiting
``expect``; no sleeps.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.binary_requirements import NOTEBOOK_NEEDS
from helpers.saved_notebooks import contradictions

from .notebook_expectations import CELL_WIDGETS, NOTEBOOKS, PAGE_WIDGETS, expectations, live_notebooks
from .harness import ARTIFACTS, JupyterServer, NotebookPage

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 240_000

RUN_ALL = """() => {
    // not awaited here: the test polls the outcome (true: every cell ran; false: one failed)
    window.codexNbRunAll = undefined;
    window.jupyterapp.commands.execute('notebook:run-all-cells')
        .then((ok) => { window.codexNbRunAll = ok; }, (err) => { window.codexNbRunAll = String(err); });
}"""

RUN_ALL_OUTCOME = """() => {
    const outcome = window.codexNbRunAll;
    if (outcome === undefined) return false;
    const panel = window.jupyterapp.shell.currentWidget;
    if (outcome !== true) {
        const code = panel.content.widgets.filter((cell) => cell.model.type === 'code');
        const ran = code.filter((cell) => cell.model.executionCount !== null);
        const last = ran[ran.length - 1];
        const where = last ? panel.content.widgets.indexOf(last) : -1;
        const shown = last ? JSON.stringify(last.model.outputs.toJSON()) : '';
        return `Run All stopped (${outcome}) at cell ${where}, which showed ${shown}`;
    }
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return kernel && kernel.status === 'idle' ? 'done' : false;
}"""


def _run_all_and_wait(page: Any, server: JupyterServer) -> None:
    # saved execution counts would make a not-yet-run cell look finished
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function("""() => window.jupyterapp.shell.currentWidget.content.widgets
        .every((cell) => cell.model.type !== 'code' || cell.model.executionCount === null)""")
    page.evaluate(RUN_ALL)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        outcome = page.wait_for_function(RUN_ALL_OUTCOME, timeout=RUN_TIMEOUT_MS).json_value()
    except PlaywrightTimeout:
        pytest.fail(
            f"Run All did not end within {RUN_TIMEOUT_MS // 1000} s: {page.evaluate(RUN_ALL_STATE)}\n"
            f"server log (tail):\n{server.log()[-4000:]}"
        )
    assert outcome == "done", outcome


RUN_ALL_STATE = """() => {
    // where a Run All that never ended stands: the command's outcome, the kernel, the cell running
    const panel = window.jupyterapp.shell.currentWidget;
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    const cells = panel.content.widgets;
    const running = cells.filter((cell) => cell.model.type === 'code' && cell.promptNode
        && cell.promptNode.textContent.includes('*'));
    const describe = (cell) => `cell ${cells.indexOf(cell)}: ${cell.model.sharedModel.getSource().slice(0, 120)} `
        + `-> ${JSON.stringify(cell.model.outputs.toJSON()).slice(0, 600)}`;
    return `outcome ${String(window.codexNbRunAll)}; kernel ${kernel ? kernel.status : 'none'}; `
        + `running: ${running.map(describe).join(' | ') || 'none'}; `
        + `not run: ${cells.filter((c) => c.model.type === 'code' && c.model.executionCount === null)
            .map((c) => cells.indexOf(c)).join(',')}`;
}"""


def _locator(page: Any, cell_index: int, widget: str) -> Any:
    if widget in PAGE_WIDGETS:
        return page.locator(PAGE_WIDGETS[widget])
    cell = page.locator(".jp-Notebook .jp-Cell").nth(cell_index)
    return cell.locator(f".jp-OutputArea {CELL_WIDGETS[widget]}")


def _check(page: Any, cell_index: int, check: dict[str, Any]) -> None:
    from playwright.sync_api import expect

    widgets = _locator(page, cell_index, check["widget"])
    where = f"cell {cell_index}, {check['widget']}"
    if "count" in check:
        expect(widgets, where).to_have_count(check["count"])
        return
    widget = widgets.nth(check.get("index", 0))
    widget.scroll_into_view_if_needed()
    for text in check.get("text_contains", []):  # first: they show the final state has arrived
        expect(widget, f"{where} shows {text!r}").to_contain_text(text)
    for text in check.get("text_absent", []):
        expect(widget, f"{where} does not show {text!r}").not_to_contain_text(text)


def _cases() -> list[Any]:
    return [pytest.param(name, marks=NOTEBOOK_NEEDS.get(name, [])) for name in live_notebooks()]


@pytest.mark.parametrize("ui", ["lab", "notebook"])
@pytest.mark.parametrize("name", _cases())
def test_widgets_match_the_text_after_run_all(name: str, ui: str, page: Any, jupyter_server: JupyterServer) -> None:
    shutil.copy(NOTEBOOKS / name, jupyter_server.root / name)
    notebook = NotebookPage(page, jupyter_server, name, ui=ui).open()
    _run_all_and_wait(page, jupyter_server)
    checks = expectations(json.loads((NOTEBOOKS / name).read_text(encoding="utf-8")))
    assert checks, f"{name} shows live widgets but stores no expectation"
    try:
        for cell_index, check in checks:
            if check.get("ui", ui) == ui:
                _check(page, cell_index, check)
        # what the front end would save: its output models, with the widgets' in-place updates
        saved = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.toJSON()")
        assert contradictions(saved) == [], f"{name} as {ui} would save it contradicts itself"
    finally:
        notebook.screenshot(f"notebook_{Path(name).stem}_{ui}.png")
        (ARTIFACTS / f"notebook_{Path(name).stem}_{ui}.console.txt").write_text("\n".join(notebook.console))
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
    assert notebook.widget_errors == [], notebook.console
    assert not notebook.unplaced_page_errors(), notebook.console
