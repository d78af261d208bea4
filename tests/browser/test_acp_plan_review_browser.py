"""An ACP agent's proposed plan approved by clicking, in a real JupyterLab and Notebook 7: the pinned
codex-acp (``acp_agent("codex-acp")``) in Plan mode, its model (the local Responses server) proposes
a plan; codex-acp asks whether to implement it (a ``switch_mode`` permission with ``rawInput.plan``),
the plan-answers widget shows it as the proposed-plan card, Approve answers with the option that
implements, and the model's next request is codex-acp's ``Implement the approved plan.``."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_acp_agent("codex-acp")]

SETUP = """\
import json, os, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person decides here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing.acp_agents import acp_agent
from codex_nb.timeline import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget

def implement(body):
    said = "Implement the approved plan." in json.dumps(body["input"])
    return [cx.assistant_message("implementing: " + str(said))]

spec = acp_agent("codex-acp")
server = spec.server([
    [cx.assistant_message("<proposed_plan>\\n1. Write greeting.txt\\n2. Read it back\\n</proposed_plan>")],
    implement,
]).start()
argv = spec.command()
agent = cx.AcpAgent(argv[0], argv[1:], env=spec.env(server, tempfile.mkdtemp()), startup_timeout=60)
session = await agent.new_session(tempfile.mkdtemp())
await session.set_option("collaboration_mode", "plan")
report = widgets.Label(value="no answer yet")
session.subscribe(lambda e: e.msg.type == "turn_complete" and setattr(report, "value", e.msg.last_agent_message))
display(PlanAnswersWidget(PlanAnswers(session)), report)
"""

START = 'handle = session.prompt("Plan a greeting file")'


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_codex_acp_proposed_plan_approved_in_the_widget_is_implemented(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "acp_plan_review.ipynb", [SETUP, START], ui=ui)
    notebook.run_all()
    widget = page.locator(".cx-plan-answers")
    proposal = widget.get_by_role("region", name="Proposed plan")
    expect(proposal).to_contain_text("Write greeting.txt", timeout=90_000)
    proposal.get_by_role("button", name="Approve").click()
    expect(widget.locator(".cx-pa-decision")).to_have_text("Proposed plan approved")
    expect(page.locator(".widget-label", has_text="implementing:")).to_have_text("implementing: True", timeout=60_000)
    expect(proposal).to_have_count(0)
    notebook.screenshot(f"acp_plan_review_{ui}.png")
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
