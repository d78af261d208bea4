"""A real Codex thread's status and settings in the turn controls, in a real JupyterLab and
Notebook 7, fed by the REAL Codex.

Codex (``codex app-server``, the pinned version, ``on-request`` approvals in a read-only sandbox)
samples from the local Responses server and asks to run an escalated command: while the approval
is pending it reports ``thread/status/changed`` with ``waitingOnApproval``, and the controls say
"Waiting on your approval" beside the turn status; the person approves in the prompts widget and
the note goes. The settings line says the model, the approvals and the sandbox; a Plan-mode turn's
``thread/settings/updated`` adds "Plan mode". The saved fallback says the same. No sleeps: every
wait is an auto-waiting expect.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = """\
import asyncio, os, tempfile
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer

escalated = cx.function_call("exec_command", {"cmd": "touch made.txt", "sandbox_permissions": "require_escalated",
                                              "justification": "make a file"}, call_id="e1")
script = [[escalated], [cx.assistant_message("made")], [cx.assistant_message("planned")]]
srv = ResponsesServer(script).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), approval_policy="on-request",
                            sandbox_mode="read-only")
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=tempfile.mkdtemp(prefix="state-work-"))
thread.frontend_requests.view_grace = 120  # a slow first render must not fail the request
controls = cx.TurnControls(thread)
prompts = cx.PromptsWidget(thread)
status = widgets.Label(value="no turn yet")
display(controls, prompts, status)
"""

TURNS = """\
async def turns():
    first = await thread.start_turn("make the file")
    status.value = f"first: {first.status}"
    second = await thread.start_turn("plan it", mode="plan")
    status.value = f"second: {second.status}; {thread.settings.mode}; {controls.settings_text()}"

codex_turns = asyncio.ensure_future(turns())
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_turn_controls_say_waiting_on_your_approval_while_codex_waits_and_follow_its_settings(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"thread_state_{ui}.ipynb", [SETUP, TURNS], ui=ui)
    notebook.run_all()
    controls = page.locator(".cx-turn-controls").first
    waiting = controls.locator(".cx-turn-waiting")
    settings = controls.locator(".cx-turn-settings")
    expect(settings).to_have_text(
        "Settings: gpt-5.1-codex \u00b7 approvals: on-request \u00b7 sandbox: read-only", timeout=120_000
    )
    card = page.locator(".cx-approval", has_text="touch made.txt")
    expect(card).to_be_visible(timeout=120_000)
    expect(waiting).to_have_text("Waiting on your approval")
    expect(waiting).to_be_visible()
    expect(controls.locator(".cx-turn-status")).to_have_text("Turn: running")
    notebook.screenshot(f"thread_state_waiting_{ui}.png")
    card.locator('button[data-decision="approve"]').click()
    expect(card).to_have_count(0)
    expect(waiting).to_be_hidden(timeout=60_000)
    status = page.locator(".widget-label", has_text="second:")
    expect(status).to_have_text(
        "second: completed; plan; Settings: gpt-5.1-codex \u00b7 Plan mode \u00b7 approvals: on-request "
        "\u00b7 sandbox: read-only",
        timeout=120_000,
    )
    expect(settings).to_have_text(
        "Settings: gpt-5.1-codex \u00b7 Plan mode \u00b7 approvals: on-request \u00b7 sandbox: read-only"
    )
    expect(waiting).to_be_hidden()
    notebook.screenshot(f"thread_state_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []
