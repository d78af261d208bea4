"""Send to agent in a real JupyterLab and Notebook 7: ``%load_ext codex_nb`` registers the command;
the person selects two cells, chooses Send to agent from the cell context menu, edits one of them,
and the next ``%%codex`` prompt carries both as they are then: its turn shows them as attachments
and the (scripted) model's answer quotes what it received. The command palette lists the command.

The prompt runs on codex_nb's runtime, and on the REAL Codex (``%%codex --source thread``, the
pinned ``codex app-server`` sampling from a local scripted Responses server), whose answer quotes
the request Codex sent to that server. A model's choices are the only fake; every wait is an
auto-waiting ``expect``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook
from .real_codex import START

pytestmark = pytest.mark.browser

SETUP = """\
%load_ext codex_nb
import codex_nb as cx
echo = cx.ScriptedModel([lambda request: [cx.assistant_message("saw: " + request.items[-1]["content"][0]["text"])]])
%codex_config --model echo
"""
CODEX_SETUP = (
    START
    + """\


def echo(body):  # the text of the last user message the real Codex sent
    said = [i for i in body["input"] if i.get("type", "message") == "message" and i.get("role") == "user"]
    return [cx.assistant_message("saw: " + said[-1]["content"][-1]["text"])]


srv, thread = await codex_on([echo])
%load_ext codex_nb
"""
)
FIRST = "x = 6 * 7\nx"
SECOND = "print('second cell')"
PROMPT = "What do these cells do?"
SOURCES = {"runtime": (SETUP, "%%codex\n"), "codex": (CODEX_SETUP, "%%codex --source thread\n")}
"""Each source's first cell and the magic line of its prompt."""


def run(page: Any, index: int, command: str) -> None:
    """``command`` with cell ``index`` active and alone selected; not awaited (a cell may wait on widgets)."""
    page.evaluate(
        """([index, command]) => {
            const panel = window.jupyterapp.shell.currentWidget;
            panel.content.activeCellIndex = index;
            panel.content.deselectAll();
            window.jupyterapp.commands.execute(command);
        }""",
        [index, command],
    )


@pytest.mark.parametrize("ui", ["lab", "notebook"])
@pytest.mark.parametrize("source", ["runtime", pytest.param("codex", marks=pytest.mark.requires_codex)])
def test_selected_cells_go_to_the_next_prompt_from_the_context_menu(
    page: Any, jupyter_server: JupyterServer, ui: str, source: str
) -> None:
    from playwright.sync_api import expect

    setup, magic = SOURCES[source]
    notebook = open_notebook(
        page, jupyter_server, f"send_cells_{source}_{ui}.ipynb", [setup, FIRST, SECOND, magic + PROMPT], ui=ui
    )
    cells = page.locator(".jp-Notebook .jp-Cell")
    run(page, 3, "notebook:run-all-above")
    expect(cells.nth(2).locator(".jp-OutputArea-output")).to_have_text("second cell", timeout=90_000)

    # the palette knows the command once the kernel loaded the extension
    page.locator(".jp-Notebook").click(position={"x": 5, "y": 5})
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Shift+c")
    page.keyboard.type("Send to agent")
    expect(page.locator(".lm-CommandPalette-item", has_text="Send to agent")).to_be_visible()
    page.keyboard.press("Escape")

    # select cells 2 and 3 as a person does, then the cell context menu
    cells.nth(1).locator(".jp-InputPrompt").click()
    cells.nth(2).locator(".jp-InputPrompt").click(modifiers=["Shift"])
    cells.nth(2).locator(".jp-InputArea").click(button="right")
    page.locator(".lm-Menu-item", has_text="Send to agent").click()
    expect(page.get_by_text("codex_nb: 2 cells attached").first).to_be_visible()

    # changed after Send to agent: the prompt reads it as it is when sent
    page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.context.model.sharedModel.cells[1].setSource('x = 6 * 8\\nx')"
    )
    run(page, 3, "notebook:run-cell")
    output = cells.nth(3).locator(".jp-OutputArea")
    expect(output).to_contain_text("- notebook cell 2 (In [2])", timeout=60_000)
    expect(output).to_contain_text("- output of notebook cell 2 (In [2])")
    expect(output).to_contain_text("- notebook cell 3 (In [3])")
    answer = output.locator(".cx-transcript")
    # the model's answer quotes the prompt it received
    expect(answer).to_contain_text("saw: Context from the notebook:", timeout=90_000)
    expect(answer).to_contain_text("x = 6 * 8")
    expect(answer).to_contain_text("[output of notebook cell 2 (In [2])] 42")
    expect(answer).to_contain_text("second cell")
    expect(answer).to_contain_text(f"Message: {PROMPT}")
    notebook.screenshot(f"send_cells_{source}_{ui}.png")
    assert not notebook.unplaced_page_errors(), notebook.console
