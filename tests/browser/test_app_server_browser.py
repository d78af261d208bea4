"""The REAL Codex in a real JupyterLab: a scripted plan that grows and completes shows in
PlanChecklist, a Plan-mode question is answered in the prompts widget in Chromium, and a
command approval is approved there.

Codex (``codex app-server``, the pinned version) samples from a local scripted Responses server whose
entries wait for the notebook's "Next snapshot" button before answering, so every step is
a handshake; no sleeps.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, final_label, gate_cell, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

SETUP = (
    gate_cell("Next snapshot")
    + """\
import asyncio, os, tempfile, threading
os.environ.pop("CODEX_NB_ANSWER_POLICY", None)  # a person answers here
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer


def plan(*steps, explanation=None):
    args = {"plan": [{"step": s, "status": st} for s, st in steps]}
    if explanation:
        args["explanation"] = explanation
    return cx.function_call("update_plan", args)

def quote_answer(body):
    outputs = [i["output"] for i in body["input"] if i.get("type") == "function_call_output"]
    return [cx.assistant_message("model got: " + outputs[-1])]

QUESTION = {"questions": [{"id": "scope", "header": "Scope", "question": "Which scope?",
                           "options": [{"label": "Small (Recommended)", "description": "one file"},
                                       {"label": "Large", "description": "many files"}]}]}
script = [
    [plan(("Inspect workspace", "in_progress"))],
    gated([plan(("Inspect workspace", "completed"), ("Write code", "in_progress"), ("Test", "pending"),
                explanation="Growing")]),
    gated([plan(("Inspect workspace", "completed"), ("Write code", "completed"), ("Test", "completed"),
                explanation="All done")]),
    [cx.assistant_message("Finished.")],
    [cx.function_call("request_user_input", QUESTION)],
    quote_answer,
    [cx.function_call("exec_command", {"cmd": "echo approved-by-a-person", "sandbox_permissions": "require_escalated",
                                       "justification": "say hello"})],
    quote_answer,
]
srv = ResponsesServer(script).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), tools={"update_plan": {"enabled": True}},
                            approval_policy="on-request", sandbox_mode="workspace-write")
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=tempfile.gettempdir())
thread.frontend_requests.view_grace = 120  # a slow first render must not fail the request
checklist = cx.PlanChecklist(thread)
prompts = cx.PromptsWidget(thread)
"""
    + final_label("thread")
    + """\
display(checklist, next_button, prompts, received)
"""
)

TURNS = """\
async def both():
    await thread.start_turn("Drive the checklist")
    await thread.start_turn("Ask me", mode="plan")
    await thread.start_turn("Say hello", mode="default")

task = asyncio.ensure_future(both())
"""


def test_real_codex_plan_and_question_in_jupyterlab(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    from .test_checklist_browser import expect_steps

    notebook = open_notebook(page, jupyter_server, "real_codex.ipynb", [SETUP, TURNS])
    notebook.run_all()
    plan = page.locator(".codex-plan")
    expect(plan).to_be_visible(timeout=60_000)
    next_button = page.get_by_role("button", name="Next snapshot")

    expect_steps(plan, [("Inspect workspace", "in_progress")], "0/1 done", None)
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn running")
    next_button.click()
    expect_steps(
        plan,
        [("Inspect workspace", "completed"), ("Write code", "in_progress"), ("Test", "pending")],
        "1/3 done",
        "Growing",
    )
    next_button.click()
    expect_steps(
        plan,
        [("Inspect workspace", "completed"), ("Write code", "completed"), ("Test", "completed")],
        "3/3 done",
        "All done",
    )
    expect(page.locator(".widget-label", has_text="Finished.")).to_be_visible()
    notebook.screenshot_of(plan, "real_codex_plan.png")

    question = page.locator("form.cx-question")
    expect(question).to_be_visible(timeout=60_000)
    expect(question.locator(".cx-prompt-title")).to_have_text("The model asks")
    expect(question.locator("legend", has_text="Scope")).to_be_visible()  # the header is the legend
    question.locator('input[type=radio][value="Large"]').check()
    question.get_by_role("button", name="Submit").click()
    expect(question).to_have_count(0)
    expect(page.locator(".widget-label", has_text="model got:")).to_have_text(
        'model got: {"answers":{"scope":{"answers":["Large"]}}}', timeout=60_000
    )

    approval = page.locator(".cx-approval")
    expect(approval).to_be_visible(timeout=60_000)
    expect(approval.locator(".cx-prompt-title")).to_have_text("Run this command?")
    expect(approval.locator(".cx-command")).to_have_text("/bin/bash -lc 'echo approved-by-a-person'")
    expect(approval.locator(".cx-reason")).to_have_text("say hello")
    expect(approval.get_by_role("button")).to_have_text(  # the decisions Codex offers, as it orders them
        [
            "Yes, run it once",
            "Yes, and don't ask again for commands starting with `echo approved-by-a-person`",
            "No, and stop the turn",
        ]
    )
    notebook.screenshot_of(approval, "real_codex_approval.png")
    approval.get_by_role("button", name="Yes, run it once").click()
    expect(approval).to_have_count(0)
    expect(page.locator(".widget-label", has_text="model got:")).to_contain_text("approved-by-a-person", timeout=60_000)
    expect(plan.locator(".codex-plan-turn")).to_have_text("Turn completed")
    notebook.screenshot("real_codex_jupyterlab.png")
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
