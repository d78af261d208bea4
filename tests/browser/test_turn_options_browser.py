"""The agent's options picked in the turn controls, in a real JupyterLab and Notebook 7: the pinned
codex-acp (``acp_agent("codex-acp")``) offers its options (mode, collaboration mode, model, effort);
choosing Plan in the Collaboration mode picker sets it with ``session/set_config_option``, the
picker shows the agent's answer, and the next prompt reaches the model in Plan mode (Codex tells
its model in a developer message)."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_acp_agent("codex-acp")]

SETUP = """\
import asyncio, json, tempfile
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing.acp_agents import acp_agent

def say_the_mode(body):
    plan = "<collaboration_mode># Plan Mode" in json.dumps(body)
    return [cx.assistant_message("plan mode: " + ("yes" if plan else "no"))]

spec = acp_agent("codex-acp")
server = spec.server([say_the_mode]).start()
argv = spec.command()
agent = cx.AcpAgent(argv[0], argv[1:], env=spec.env(server, tempfile.mkdtemp()), startup_timeout=60)
session = await agent.new_session(tempfile.mkdtemp())
report = widgets.Label(value="no prompt yet")
display(cx.TurnControls(session), report)
"""

AFTER_THE_PICK = """\
picked = asyncio.Event()

def follow(event):
    if event.msg.type == "options_updated" and session.options["collaboration_mode"].current == "plan":
        picked.set()
    if event.msg.type == "turn_complete":
        report.value = event.msg.last_agent_message

session.subscribe(follow)

async def prompt_after_the_pick():
    await picked.wait()
    await session.prompt("Plan a change to the notes")

task = asyncio.ensure_future(prompt_after_the_pick())
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_plan_mode_picked_in_the_turn_controls_reaches_the_model(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "turn_options.ipynb", [SETUP, AFTER_THE_PICK], ui=ui)
    notebook.run_all()
    picker = page.locator('.cx-turn-option[data-option="collaboration_mode"] select')
    expect(picker).to_be_visible(timeout=90_000)
    expect(picker).to_have_value("default")
    expect(page.locator(".cx-turn-option")).to_contain_text(["Mode", "Collaboration mode", "Model", "Reasoning effort"])
    picker.select_option("plan")
    expect(page.locator(".widget-label", has_text="plan mode:")).to_have_text("plan mode: yes", timeout=60_000)
    expect(picker).to_have_value("plan")
    expect(picker).to_be_enabled()
    expect(page.locator(".cx-turn-option-note")).to_have_text("")
    notebook.screenshot(f"turn_options_{ui}.png")
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
