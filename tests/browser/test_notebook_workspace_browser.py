"""The notebook tools in a real JupyterLab and Notebook 7: an agent turn inserts a cell and runs
it, and the cell with its output appears in the page; ``run_code`` waits for the person's
approval in the prompts widget (which shows the code); a PreToolUse hook blocks a tool.

The turn is scripted (a model's choices are the only fake): the second response reads the id of
the inserted cell from the first tool output. The kernel reports through the DOM (a Label shows
the model's last input), and every wait is an auto-waiting ``expect``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, final_label, open_notebook

pytestmark = pytest.mark.browser

SETUP = (
    """\
import os
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx

config = cx.Config.from_toml('''
[codex_nb.notebook_tools]
enabled = true
frontend_timeout_seconds = 60
[codex_nb.notebook_tools.approve]
insert_cell = false
run_cell = false
''')
session = cx.Session(config=config)
session.frontend_requests.view_grace = 120  # a slow first render must not fail the request
prompts = cx.PromptsWidget(session)
@session.pre_tool_use(matcher="^notebook__edit_cell$")
def no_edits(hook_input):
    return {"decision": "block", "reason": "edits are off in this test"}

"""
    + final_label("session", prefix="model got: ")
    + """\
numbers = [3, 1, 2]
display(prompts, received)
"""
)

TURN = """\
import re

def inserted_id(request):
    return re.search(r"cell (\\S+) at", request.outputs()["ins"]).group(1)

model = cx.ScriptedModel([
    [cx.function_call("insert_cell", {"source": "print('hello from the agent', sum(numbers))"},
                      call_id="ins", namespace="notebook")],
    lambda request: [cx.function_call("run_cell", {"cell_id": inserted_id(request)}, call_id="run",
                                      namespace="notebook")],
    lambda request: [cx.function_call("edit_cell", {"cell_id": inserted_id(request), "source": ""}, call_id="edit",
                                      namespace="notebook")],
    [cx.function_call("run_code", {"code": "sorted(numbers)"}, call_id="code", namespace="notebook")],
    lambda request: [cx.assistant_message(request.outputs()["edit"] + " | " + request.outputs()["code"])],
])
handle = session.start_turn("Add a cell that greets, run it, then sort the numbers", model=model)
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_agent_inserts_and_runs_a_cell_approves_code_and_a_hook_blocks(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"workspace_{ui}.ipynb", [SETUP, TURN], ui=ui)
    notebook.run_all()

    # the inserted cell appears at the end of the notebook and runs in the page
    output = page.locator(".jp-OutputArea-output", has_text="hello from the agent 6")
    expect(output).to_be_visible(timeout=90_000)
    agent_cell = page.locator(".jp-Notebook .jp-Cell").nth(2)  # after SETUP and TURN
    expect(agent_cell.locator(".jp-InputArea")).to_contain_text("print('hello from the agent', sum(numbers))")
    expect(agent_cell.locator(".jp-OutputArea-output")).to_have_text("hello from the agent 6")

    # run_code asks first: the card shows the code
    card = page.locator(".cx-prompt")
    expect(card).to_be_visible(timeout=60_000)
    expect(card.locator(".cx-command")).to_have_text("sorted(numbers)")
    notebook.screenshot_of(card, f"workspace_approval_{ui}.png")
    card.get_by_role("button", name="Yes, run it once").click()
    expect(card).to_have_count(0)

    final = page.locator(".widget-label", has_text="model got:")
    expect(final).to_contain_text("edits are off in this test")  # the hook blocked edit_cell
    expect(final).to_contain_text("Process exited with code 0")
    expect(final).to_contain_text("Out: [1, 2, 3]")
    # the blocked edit wrote nothing: the agent's cell still holds its source
    expect(agent_cell.locator(".jp-InputArea")).to_contain_text("print('hello from the agent', sum(numbers))")
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(3)
    notebook.screenshot(f"workspace_{ui}.png")
    assert not notebook.unplaced_page_errors(), notebook.console


UNDO_SETUP = """\
import codex_nb as cx

config = cx.Config.from_toml('''
[codex_nb.notebook_tools]
enabled = true
frontend_timeout_seconds = 60
[codex_nb.notebook_tools.approve]
insert_cell = false
edit_cell = false
''')
session = cx.Session(config=config)
model = cx.ScriptedModel([
    [cx.function_call("insert_cell", {"source": "agent_value = 1", "index": 1}, call_id="ins", namespace="notebook")],
    [cx.function_call("read_cell", {"index": 1}, call_id="read", namespace="notebook")],
    lambda request: [cx.function_call("edit_cell", {"cell_id": request.outputs()["ins"].split()[3],
                                                    "source": "agent_value = 2"}, call_id="edit", namespace="notebook")],
    [cx.assistant_message("done")],
])
handle = session.start_turn("add and edit a cell", model=model)
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_person_can_undo_the_agents_insert_and_edit(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"workspace_undo_{ui}.ipynb", [UNDO_SETUP], ui=ui)
    notebook.run_all()

    cells = page.locator(".jp-Notebook .jp-Cell")
    expect(cells).to_have_count(2, timeout=90_000)
    expect(cells.nth(1).locator(".jp-InputArea")).to_contain_text("agent_value = 2", timeout=60_000)
    # the person undoes as in any cell: Ctrl+Z in the cell's editor takes the edit back
    cells.nth(1).locator(".cm-content").click()
    page.keyboard.press("Control+z")
    expect(cells.nth(1).locator(".jp-InputArea")).to_contain_text("agent_value = 1")
    # and z in command mode (Edit > Undo Cell Operation) takes the insertion back
    page.keyboard.press("Escape")
    page.keyboard.press("z")
    expect(cells).to_have_count(1)
    assert not notebook.unplaced_page_errors(), notebook.console
