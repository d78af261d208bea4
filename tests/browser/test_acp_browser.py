"""An ACP agent in a real JupyterLab and Notebook 7: the pinned current codex-acp
(``@agentclientprotocol/codex-acp``, ``acp_agent("codex-acp")``) on the local Responses server.

The checklist grows as codex-acp relays the scripted plan, the agent's permission
requests are answered in the prompts widget by clicking (a patch outside the session folder, its
card marking the path outside and showing the diff; then a command, its card showing it), and a
second prompt is stopped with the Stop control. Pacing is a handshake: the scripted server holds a response
until the test clicks the notebook's "Next step" button, which sets a threading.Event.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers.paths import outside_codex_sandbox

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_acp_agent("codex-acp")]

SETUP = """\
import asyncio, os, tempfile, threading
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import Stall
from codex_nb.testing.acp_agents import acp_agent

loop = asyncio.get_running_loop()
gate = threading.Event()
next_button = widgets.Button(description="Next step")
next_button.on_click(lambda _b: gate.set())

def paced(items):
    def answer(_body):
        gate.wait(120)
        gate.clear()
        return items
    return answer

def plan(*steps):
    return cx.function_call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]})

# codex-acp drops a command's end that Codex reports after the turn: the next answer waits for it
command_done = threading.Event()

def after_command(items):
    def answer(_body):
        command_done.wait(120)
        return items
    return answer

spec = acp_agent("codex-acp")
work = tempfile.mkdtemp()
command = {"cmd": "echo hi > f.txt", "sandbox_permissions": "require_escalated", "justification": "write f.txt"}
# a file outside the session folder whose name is markup: the card shows it as text, marked outside
escaped = os.path.join(OUTSIDE, "<img src=x onerror=alert(1)>.txt")
patch = f"*** Begin Patch\\n*** Add File: {escaped}\\n+escaped\\n+second line\\n*** End Patch\\n"
server = spec.server([
    [plan(("Read the code", "in_progress"))],
    paced([plan(("Read the code", "completed"), ("Write f.txt", "in_progress"), ("Report", "pending"))]),
    paced([cx.custom_tool_call("apply_patch", patch)]),
    [cx.function_call("exec_command", command, call_id="x1")],
    after_command([plan(("Read the code", "completed"), ("Write f.txt", "completed"), ("Report", "completed"))]),
    [cx.assistant_message("Wrote f.txt.")],
    Stall(120),
]).start()
argv = spec.command()
agent = cx.AcpAgent(argv[0], argv[1:], env=spec.env(server, tempfile.mkdtemp()), startup_timeout=60)
session = await agent.new_session(work)
await session.set_mode("workspace-write")  # the person approves, not Codex's automatic reviewer
session.frontend_requests.view_grace = 120  # a slow first render must not fail the request
report = widgets.Label(value="no result yet")

def on_event(event):
    if event.msg.type == "acp_tool_call" and event.msg.status == "completed":
        command_done.set()
    if event.msg.type == "turn_complete":
        path = os.path.join(work, "f.txt")
        report.value = "f.txt: " + (open(path).read().strip() if os.path.exists(path) else "missing")

session.subscribe(on_event)
second = widgets.Button(description="Second prompt")
second.on_click(lambda _b: loop.call_soon_threadsafe(session.prompt, "Wait for Stop"))
display(cx.PlanChecklist(session), cx.PromptsWidget(session), cx.TurnControls(session), next_button, second, report)
"""

START = 'handle = session.prompt("Write f.txt")'


@pytest.fixture
def outside() -> Any:
    """A folder codex-acp's sandbox may not write without asking: under /tmp (a clone there) the
    patch would be written unasked."""
    with outside_codex_sandbox() as folder:
        yield folder


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_codex_acp_plan_permission_and_stop(ui: str, page: Any, jupyter_server: JupyterServer, outside: Path) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "acp.ipynb", [f"OUTSIDE = {str(outside)!r}", SETUP, START], ui=ui)
    notebook.run_all()
    plan = page.locator(".codex-plan")
    expect(plan).to_be_visible(timeout=90_000)
    items = plan.get_by_role("listitem")
    next_button = page.get_by_role("button", name="Next step")

    # 1: one step, with codex-acp's priority badge, while the turn runs
    expect(items).to_have_count(1, timeout=60_000)
    expect(items.first.locator(".codex-plan-text")).to_have_text("Read the code")
    expect(items.first).to_have_attribute("data-status", "in_progress")
    expect(items.first.locator(".codex-plan-priority")).to_have_text("medium priority")
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn running")
    next_button.click()

    # 2: the plan grows to three steps
    expect(items).to_have_count(3)
    expect(plan.locator(".codex-plan-counter")).to_have_text("1/3 done")
    expect(items.nth(1)).to_have_attribute("data-status", "in_progress")
    next_button.click()

    # 3: codex-acp asks permission for a patch outside the session folder: the card marks the path
    # (a warning, a badge) and shows the diff as a Codex approval's; the file's name stays text
    name = str(outside / "<img src=x onerror=alert(1)>.txt")
    question = page.locator("form.cx-question")
    expect(question).to_be_visible(timeout=60_000)
    card = question.locator(".cx-permission-details")
    expect(question.locator(".cx-prompt-title")).to_have_text("Allow this tool call?")
    expect(question.locator(".cx-q-text")).to_have_text("The agent asks for permission: Edit files")
    expect(card.locator(".cx-outside-warning")).to_have_text("\u26a0 1 path lies outside the session folder")
    path = card.locator("li.cx-path-outside")
    expect(path.locator(".cx-path-name")).to_have_text(name)
    expect(path.locator(".cx-outside-badge")).to_be_visible()
    expect(card.locator(".cx-file-diff .cx-diff-line.cx-diff-add")).to_have_text(["+escaped", "+second line"])
    expect(card.locator(".cx-file-diff summary")).to_contain_text(f"add: {name} +2 -0")
    assert card.locator("img").count() == 0
    notebook.screenshot_of(question, f"acp_permission_outside_{ui}.png")
    expect(question.locator(".cx-option-label")).to_contain_text(
        ["Yes, proceed", "Yes, and don't ask again", "No, and tell Codex what to do differently"]
    )
    question.locator('input[type=radio][value="Yes, proceed"]').check()
    question.get_by_role("button", name="Submit").click()

    # codex-acp asks permission for the command: the card shows it, and its folder (not outside)
    question = page.locator("form.cx-question", has=page.locator(".cx-command"))
    expect(question.locator(".cx-command")).to_have_text("echo hi > f.txt", timeout=60_000)
    expect(question.locator("li.cx-path")).to_have_attribute("data-outside", "false")
    expect(question.locator(".cx-outside-warning")).to_have_count(0)
    notebook.screenshot_of(question, f"acp_permission_command_{ui}.png")
    question.locator('input[type=radio][value="Yes, proceed"]').check()
    question.get_by_role("button", name="Submit").click()

    # 4: the command ran, the plan is complete, the turn ended
    expect(page.locator(".widget-label", has_text="f.txt:")).to_have_text("f.txt: hi", timeout=60_000)
    expect(plan.locator(".codex-plan-counter")).to_have_text("3/3 done")
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn completed")
    expect(page.locator(".cx-prompts-empty")).to_be_visible()
    assert (outside / "<img src=x onerror=alert(1)>.txt").read_text() == "escaped\nsecond line\n"
    notebook.screenshot(f"acp_{ui}.png")

    # 5: a second prompt waits on the model; Stop sends session/cancel
    page.get_by_role("button", name="Second prompt").click()
    status = page.locator(".cx-turn-status")
    expect(status).to_have_text("Turn: running", timeout=60_000)
    page.locator("button.cx-stop").click()
    expect(status).to_have_text("Turn: interrupted", timeout=60_000)
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn interrupted")
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
