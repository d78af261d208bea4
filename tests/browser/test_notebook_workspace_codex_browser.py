"""The REAL Codex edits the notebook it is shown in: ``codex app-server`` 0.169.0 (sampling from a
local scripted Responses server) calls the notebook tools over the kernel's MCP server; the cell it
inserts appears in the page (JupyterLab and Notebook 7), and its ``run_code`` waits for a click in
the prompts widget of the Codex thread, which shows the code.

Every wait is an auto-waiting ``expect``; the scripted server holds Codex until its MCP server is
announced (Codex starts MCP servers in the background), then calls the tools.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, final_label, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = (
    """\
import json, os, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer

session = cx.Session(config=cx.Config.from_toml('''
[codex_nb.notebook_tools]
enabled = true
frontend_timeout_seconds = 60
[codex_nb.notebook_tools.approve]
insert_cell = false
'''))
numbers = [4, 5, 6]
mcp = await session.serve_notebook_tools()
state = {"phase": "wait"}

def step(body):  # runs on the scripted server's thread
    developer = json.dumps([i for i in body["input"] if i.get("role") == "developer"])
    if state["phase"] == "wait" and "mcp__notebook" not in developer:
        return [cx.function_call("get_context_remaining", {})]
    if state["phase"] == "wait":
        state["phase"] = "tools"
        return [
            cx.tool_search_call("notebook insert cell run code", limit=20, call_id="search"),
            cx.function_call("insert_cell", {"source": "print('inserted by codex', sum(numbers))"},
                             namespace="mcp__notebook", call_id="ins"),
            cx.function_call("run_code", {"code": "sum(numbers) * 2"}, namespace="mcp__notebook", call_id="run"),
        ]
    state["phase"] = "done"
    outputs = {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}
    return [cx.assistant_message("model got: " + json.dumps(outputs.get("run")))]

srv = ResponsesServer([step] * 40, allow_leftover=True).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), model="gpt-5.5", features={"token_budget": True})
codex = cx.CodexAppServer(codex_home=home, env=mcp.env({**os.environ, "OPENAI_API_KEY": "sk-local"}),
                          config=mcp.codex_config())
await codex.start()
thread = await codex.start_thread(cwd=tempfile.gettempdir())
thread.frontend_requests.view_grace = 120  # a slow first render must not fail the request
session.share_prompts_with(thread)
prompts = cx.PromptsWidget(thread)
"""
    + final_label("thread")
    + """\
display(prompts, received)
"""
)

TURN = 'handle = thread.start_turn("Add a cell that prints the sum, then double it")'


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_real_codex_inserts_a_cell_and_asks_to_run_code(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"workspace_codex_{ui}.ipynb", [SETUP, TURN], ui=ui)
    notebook.run_all()

    cells = page.locator(".jp-Notebook .jp-Cell")
    expect(cells).to_have_count(3, timeout=180_000)  # Codex's cell, appended after SETUP and TURN
    expect(cells.nth(2).locator(".jp-InputArea")).to_contain_text("print('inserted by codex', sum(numbers))")

    card = page.locator(".cx-prompt")
    expect(card).to_be_visible(timeout=120_000)
    expect(card.locator(".cx-command")).to_have_text("sum(numbers) * 2")
    notebook.screenshot_of(card, f"workspace_codex_approval_{ui}.png")
    card.get_by_role("button", name="Yes, run it once").click()
    expect(card).to_have_count(0)

    final = page.locator(".widget-label", has_text="model got:")
    expect(final).to_contain_text("Out: 30", timeout=120_000)
    notebook.screenshot(f"workspace_codex_{ui}.png")
    assert not notebook.unplaced_page_errors(), notebook.console
