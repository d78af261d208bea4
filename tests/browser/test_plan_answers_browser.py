"""The person answers the plan in a real JupyterLab and Notebook 7: a comment typed beside a step
reaches the running turn and is marked when the agent renames the step, a suggested change is
adopted, and a Plan-mode proposal is approved with the Approve button (the next turn gets
Codex's "Implement the plan." in Default mode). No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, NotebookPage, notebook_json

pytestmark = pytest.mark.browser

CELL = """\
import asyncio
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.timeline import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget


def plan(*steps):
    return [cx.function_call("update_plan", {"plan": [{"step": s, "status": t} for s, t in steps]})]


person_spoke = asyncio.Event()


async def after_the_person(request):
    await person_spoke.wait()
    return [cx.assistant_message("Reading the data.")]


proposal = "<proposed_plan>\\n1. Gather the numbers\\n2. Write the summary\\n</proposed_plan>"
model = cx.ScriptedModel(
    [
        plan(("Read the data", "in_progress"), ("Plot it", "pending"), ("Publish it", "pending")),
        after_the_person,
        plan(("Read the data", "completed"), ("Plot it as bars", "in_progress"), ("Publish it", "pending")),
        [cx.assistant_message("Plotted.")],
        plan(("Read the data", "completed"), ("Plot it as bars", "completed")),
        [cx.assistant_message("Dropped publishing.")],
        [cx.assistant_message(proposal)],
        [cx.assistant_message("Implementing.")],
    ],
    record_requests=True,
    allow_leftover=True,
)
session = cx.Session()
answers = PlanAnswers(session, model=model)
outcome = widgets.Label(value="waiting")
started = []


def on_change():
    if answers.comments:
        person_spoke.set()
    if answers.suggestions and answers.turns and not started:
        started.append(1)  # the suggestion started a turn: when it ends, a Plan-mode turn follows
        answers.turns[-1].task.add_done_callback(
            lambda _: session.start_turn("Plan the report", model=model, mode="plan")
        )
    if answers.decisions and answers.decisions[-1].delivery == "new_turn" and len(started) == 1:
        started.append(2)

        def report(task):
            request = model.requests[-1]
            outcome.value = f"{request.mode} | {request.items[-1]['content'][0]['text']} | {task.result().status}"

        answers.turns[-1].task.add_done_callback(report)


answers.on_change(on_change)
display(PlanAnswersWidget(answers), outcome)
handle = session.start_turn("Plot the data", model=model)
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_comment_suggest_and_approve_through_the_widget(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    name = f"plan_answers_{ui}.ipynb"
    jupyter_server.write_notebook(name, notebook_json([CELL]))
    notebook = NotebookPage(page, jupyter_server, name, ui=ui).open()
    notebook.run_all()

    widget = page.locator(".cx-plan-answers")
    expect(widget.locator(".cx-pa-step-text", has_text="Plot it")).to_be_visible(timeout=60_000)
    widget.get_by_role("button", name="Comment on step 2: Plot it").click()
    widget.get_by_role("textbox").fill("Use bars, <b>not</b> lines")
    widget.get_by_role("button", name="Send").click()
    comment = widget.locator(".cx-pa-comment")
    expect(comment.locator(".cx-pa-comment-text")).to_have_text("Use bars, <b>not</b> lines")  # text, not HTML
    expect(comment.locator(".cx-pa-label")).to_contain_text("the agent renamed this step to “Plot it as bars”")
    expect(widget.locator(".cx-pa-step-text", has_text="Plot it as bars")).to_be_visible()
    expect(comment).to_have_count(1)  # drawn once, beside the renamed step

    widget.get_by_role("button", name="Suggest a change").click()
    widget.get_by_role("textbox").fill("Read the data\nPlot it as bars")
    widget.get_by_role("button", name="Send").click()
    expect(widget.locator(".cx-pa-suggestion .cx-pa-label")).to_contain_text("adopted", timeout=30_000)
    expect(widget.locator(".cx-pa-diff")).to_contain_text("- remove step: Publish it")

    proposal = widget.get_by_role("region", name="Proposed plan")
    expect(proposal).to_contain_text("Gather the numbers", timeout=30_000)
    proposal.get_by_role("button", name="Approve").click()
    expect(widget.locator(".cx-pa-decision")).to_have_text("Proposed plan approved")
    expect(page.get_by_text("default | Implement the plan. | completed")).to_be_visible(timeout=30_000)
    expect(proposal).to_have_count(0)
    notebook.screenshot(f"plan_answers_{ui}.png")
    assert notebook.unplaced_page_errors() == []
