"""PromptsWidget in a real JupyterLab: a background Plan-mode turn asks a question and then
for permissions; the test answers both in Chromium and checks what the model received.

The kernel reports through the DOM: the prompt cards come from the widget's synced
``requests`` trait, and a Label shows the model's final message, which quotes both tool
outputs. No sleeps: every wait is an auto-waiting ``expect``.
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

session = cx.Session(cx.Config(request_permissions_tool=True), cwd="/tmp/project")
session.frontend_requests.view_grace = 120  # a slow first render must not fail the request
prompts = cx.PromptsWidget(session)
"""
    + final_label("session", prefix="model got: ")
    + """\
display(prompts, received)
"""
)

TURN = """\
QUESTIONS = [
    {"id": "confirm_path", "header": "Confirm", "question": "Proceed with the plan?",
     "options": [{"label": "Yes (Recommended)", "description": "Continue the current plan."},
                 {"label": "No", "description": "Stop and revisit the approach."}]},
    {"id": "api_token", "header": "Token", "question": "Which API token should I use?", "isSecret": True,
     "options": [{"label": "Skip", "description": "Work without the API."},
                 {"label": "From env", "description": "Read it from $API_TOKEN."}]},
]
PERMISSIONS = {"permissions": {"file_system": {"write": ["reports"]}}, "reason": "Save the weekly report"}
model = cx.ScriptedModel([
    [cx.function_call("request_user_input", {"questions": QUESTIONS}, call_id="q1")],
    [cx.function_call("request_permissions", PERMISSIONS, call_id="p1")],
    lambda request: [cx.assistant_message(request.outputs()["q1"] + " | " + request.outputs()["p1"])],
])
handle = session.start_turn("Plan the report", model=model, mode="plan")
"""


def test_answer_question_and_grant_permission_in_chromium(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "prompts_lab.ipynb", [SETUP, TURN])
    notebook.run_all()

    question = page.locator("form.cx-question")
    expect(question).to_be_visible(timeout=60_000)
    expect(question.locator(".cx-prompt-title")).to_have_text("The model asks 2 questions")
    expect(question.locator("legend")).to_have_text(["Confirm", "Token"])
    expect(question.locator("legend")).to_have_text(["Confirm", "Token"])
    # two options each plus the client-added "None of the above"
    expect(question.locator('fieldset[data-question-id="confirm_path"] input[type=radio]')).to_have_count(3)
    expect(question.locator(".cx-option-label")).to_contain_text(["None of the above"])
    secret = question.locator('fieldset[data-question-id="api_token"] input.cx-note')
    expect(secret).to_have_attribute("type", "password")  # secret answers are masked
    plain = question.locator('fieldset[data-question-id="confirm_path"] input.cx-note')
    expect(plain).to_have_attribute("type", "text")

    # submitting with a question unanswered is caught in the view, nothing reaches the kernel
    question.locator('input[type=radio][value="No"]').check()
    question.get_by_role("button", name="Submit").click()
    expect(question.locator(".cx-form-error")).to_contain_text('"Token"')

    question.locator('fieldset[data-question-id="api_token"] input[value="None of the above"]').check()
    secret.fill("hunter2")
    notebook.screenshot_of(question, "prompts_question.png")
    question.get_by_role("button", name="Submit").click()
    expect(question).to_have_count(0)  # answered: the card disappears

    permission = page.locator(".cx-permission")
    expect(permission).to_be_visible()
    expect(permission.locator(".cx-reason")).to_have_text("Save the weekly report")
    expect(permission.locator(".cx-what li")).to_have_text(["write: /tmp/project/reports"])
    notebook.screenshot_of(permission, "prompts_permission.png")
    permission.get_by_role("button", name="Allow for this session").click()
    expect(permission).to_have_count(0)

    expect(page.locator(".widget-label", has_text="model got:")).to_have_text(
        'model got: {"answers":{"confirm_path":{"answers":["No"]},"api_token":{"answers":["None of the above",'
        '"user_note: hunter2"]}}} | {"permissions":{"network":null,"file_system":{"write":["/tmp/project/reports"]}},'
        '"scope":"session"}'
    )
    expect(page.locator(".cx-prompts-empty")).to_be_visible()
    expect(page.locator(".cx-prompts-error")).to_be_hidden()
    notebook.screenshot("prompts_jupyterlab.png")
    assert not [line for line in notebook.console if "codex_nb" in line or "prompts" in line], notebook.console


TWO_PENDING = """\
import asyncio
QUESTION = {"id": "pick", "header": "Pick", "question": "Which branch?",
            "options": [{"label": "main", "description": "The default branch."},
                        {"label": "dev", "description": "The work branch."}]}
results = {}

def report(name, task):
    results[name] = task.result().output
    received.value = "model got: " + " | ".join(f"{k}={results[k]}" for k in sorted(results))

first = asyncio.ensure_future(session.call_tool("request_user_input", {"questions": [QUESTION]}, mode="plan",
                                                call_id="a"))
first.add_done_callback(lambda task: report("a", task))
second = asyncio.ensure_future(session.call_tool("request_permissions", {"permissions": {"network": {"enabled": True}}},
                                                 call_id="b"))
second.add_done_callback(lambda task: report("b", task))
"""

BAD_MESSAGE = 'prompts.receive({"id": "req-42", "kind": "answer_permissions", "decision": "deny"})'


def test_two_pending_requests_and_a_visible_error(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "prompts_two.ipynb", [SETUP, TWO_PENDING, BAD_MESSAGE])
    notebook.run_all()

    cards = page.locator(".cx-prompt")
    expect(cards).to_have_count(2, timeout=60_000)
    error = page.locator(".cx-prompts-error")
    expect(error).to_contain_text("unknown request id 'req-42'")  # the bad answer is shown, nothing breaks
    question = page.locator("form.cx-question")
    question.locator('input[type=radio][value="dev"]').check()  # start answering the first ...

    permission = page.locator(".cx-permission")  # ... but settle the second one first
    expect(permission.locator(".cx-what li")).to_have_text(["network: enabled"])
    permission.get_by_role("button", name="Deny").click()
    expect(permission).to_have_count(0)
    expect(cards).to_have_count(1)
    label = page.locator(".widget-label", has_text="model got:")
    expect(label).to_have_text('model got: b={"permissions":{"network":null,"file_system":null},"scope":"turn"}')
    expect(error).to_be_hidden()  # an accepted answer clears the error

    expect(question.locator('input[type=radio][value="dev"]')).to_be_checked()  # the other card kept its state
    question.get_by_role("button", name="Submit").click()
    expect(cards).to_have_count(0)
    expect(label).to_have_text(
        'model got: a={"answers":{"pick":{"answers":["dev"]}}} | '
        'b={"permissions":{"network":null,"file_system":null},"scope":"turn"}'
    )


SUBSET = """\
WANTS = {"permissions": {"network": {"enabled": True}, "file_system": {"read": ["data"], "write": ["reports"]}},
         "reason": "Publish the report"}
grants = []

async def ask_twice():
    for call_id in ("s1", "s2"):
        grants.append((await session.call_tool("request_permissions", WANTS, call_id=call_id)).output)
        received.value = "model got: " + " | ".join(grants)

asking = asyncio.ensure_future(ask_twice())
"""


def test_a_ticked_subset_is_granted_with_the_scope_clicked(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    cells = [SETUP, "import asyncio\n" + SUBSET]
    notebook = open_notebook(page, jupyter_server, "prompts_subset.ipynb", cells, ui="notebook")
    notebook.run_all()

    permission = page.locator(".cx-permission")
    expect(permission).to_be_visible(timeout=60_000)
    boxes = permission.locator("input.cx-grant")
    expect(permission.locator(".cx-what li")).to_have_text(
        ["read: /tmp/project/data", "write: /tmp/project/reports", "network: enabled"]
    )
    expect(boxes).to_have_count(3)
    boxes.nth(0).uncheck()  # keep only the write root
    boxes.nth(2).uncheck()
    permission.get_by_role("button", name="Allow for this session").click()
    expect(page.locator(".widget-label", has_text="model got:")).to_have_text(
        'model got: {"permissions":{"network":null,"file_system":{"write":["/tmp/project/reports"]}},'
        '"scope":"session"}',
        timeout=60_000,
    )
    permission = page.locator(".cx-permission")  # the second request: everything, for the turn
    expect(permission).to_be_visible(timeout=60_000)
    permission.get_by_role("button", name="Allow for this turn").click()
    expect(page.locator(".widget-label", has_text="model got:")).to_contain_text(
        ' | {"permissions":{"network":{"enabled":true},"file_system":{"read":["/tmp/project/data"],'
        '"write":["/tmp/project/reports"]}},"scope":"turn"}',
        timeout=60_000,
    )
