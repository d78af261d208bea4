"""A question from an ACP agent answered by clicking, in a real JupyterLab and Notebook 7: the
pinned codex-acp (``acp_agent("codex-acp")``) in Plan mode, its model (the local Responses server)
calls ``request_user_input``; codex-acp asks through a form elicitation, the prompts widget shows
it as Codex's question card, and the model's next request carries the option clicked."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_acp_agent("codex-acp")]

SETUP = """\
import os, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing.acp_agents import acp_agent

scope = {"id": "scope", "header": "Scope", "question": "Which files may the change touch?",
         "options": [{"label": "Only notes.txt", "description": "one file"},
                     {"label": "Any file", "description": "the whole folder"}]}

def quote_the_answer(body):
    outputs = [i["output"] for i in body["input"] if i.get("type") == "function_call_output"]
    return [cx.assistant_message("read: " + outputs[-1])]

spec = acp_agent("codex-acp")
server = spec.server([
    [cx.function_call("request_user_input", {"questions": [scope]}, call_id="ask-1")],
    quote_the_answer,
]).start()
argv = spec.command()
agent = cx.AcpAgent(argv[0], argv[1:], env=spec.env(server, tempfile.mkdtemp()), startup_timeout=60)
session = await agent.new_session(tempfile.mkdtemp())
await session.set_option("collaboration_mode", "plan")  # Codex offers request_user_input in Plan mode
session.frontend_requests.view_grace = 120  # a slow first render must not fail the request
report = widgets.Label(value="no answer yet")
session.subscribe(lambda e: e.msg.type == "turn_complete" and setattr(report, "value", e.msg.last_agent_message))
display(cx.PromptsWidget(session), report)
"""

START = 'handle = session.prompt("Plan a change to the notes")'


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_codex_acp_question_answered_in_the_widget_reaches_the_model(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "acp_question.ipynb", [SETUP, START], ui=ui)
    notebook.run_all()
    question = page.locator("form.cx-question")
    expect(question).to_be_visible(timeout=90_000)
    expect(question).to_contain_text("Which files may the change touch?")
    expect(question.locator(".cx-option-label")).to_contain_text(["Only notes.txt", "Any file"])
    question.locator('input[type=radio][value="Any file"]').check()
    question.get_by_role("button", name="Submit").click()
    expect(page.locator(".widget-label", has_text="read:")).to_have_text(
        'read: {"answers":{"scope":{"answers":["Any file"]}}}', timeout=60_000
    )
    expect(page.locator(".cx-prompts-empty")).to_be_visible()
    notebook.screenshot(f"acp_question_{ui}.png")
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
