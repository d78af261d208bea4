"""The person answers the plan in a real JupyterLab and Notebook 7: a comment typed beside a step
reaches the running turn and is marked when the agent renames the step, a suggested change is
adopted, and a Plan-mode proposal is approved with the Approve button (the next turn gets
Codex's "Implement the plan." in Default mode). No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

from typing import Any

import pytest

from helpers.emoji import emoji_in

from .harness import JupyterServer, open_notebook

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

    notebook = open_notebook(page, jupyter_server, f"plan_answers_{ui}.ipynb", [CELL], ui=ui)
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
    # the comment's icon is the SVG the bundle ships, not an emoji (an empty box without an emoji font)
    expect(comment.locator("svg.cx-icon-comment")).to_be_visible()
    assert not emoji_in(widget.inner_text())

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


REVISE_CELL = """\
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.timeline import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget

first = "<proposed_plan>\\n1. Rewrite everything\\n</proposed_plan>"
second = "<proposed_plan>\\n1. Fix the one bug\\n</proposed_plan>"
model = cx.ScriptedModel(
    [[cx.assistant_message(first)], [cx.assistant_message(second)]], record_requests=True, allow_leftover=True
)
session = cx.Session()
answers = PlanAnswers(session, model=model)
outcome = widgets.Label(value="waiting")
reported = []


def last_user_text(request):
    said = [i for i in request.items if i.get("type", "message") == "message" and i.get("role") == "user"]
    return " ".join(p.get("text", "") for p in said[-1]["content"])


def on_change():
    decision = answers.decisions[-1] if answers.decisions else None
    if decision and decision.decision == "revised" and decision.delivery == "new_turn" and not reported:
        reported.append(1)

        def report(task):
            request = model.requests[-1]
            outcome.value = f"{request.mode} | {last_user_text(request)} | {task.result().status}"

        answers.turns[-1].task.add_done_callback(report)
    if decision and decision.decision == "rejected":
        running = session.active_turn is not None
        outcome.value = f"rejected | {len(model.requests)} requests | {len(answers.turns)} turns | running {running}"


answers.on_change(on_change)
display(PlanAnswersWidget(answers), outcome)
handle = session.start_turn("Plan the fix", model=model, mode="plan")
"""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_revise_plans_again_with_the_note_and_reject_sends_nothing(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"plan_answers_revise_{ui}.ipynb", [REVISE_CELL], ui=ui)
    notebook.run_all()

    widget = page.locator(".cx-plan-answers")
    proposal = widget.get_by_role("region", name="Proposed plan")
    expect(proposal).to_contain_text("Rewrite everything", timeout=60_000)
    proposal.get_by_role("button", name="Revise").click()
    proposal.get_by_role("textbox", name="What should the plan change?").fill("Smaller: only the bug")
    proposal.get_by_role("button", name="Send").click()
    expect(widget.locator(".cx-pa-decision")).to_have_text("Proposed plan revised: Smaller: only the bug")
    # the note went to the model in a new Plan-mode turn, which proposed again
    expect(page.get_by_text("plan | Smaller: only the bug | completed")).to_be_visible(timeout=30_000)
    expect(proposal).to_contain_text("Fix the one bug")
    expect(proposal).not_to_contain_text("Rewrite everything")

    proposal.get_by_role("button", name="Reject").click()
    expect(widget.locator(".cx-pa-decision")).to_have_text(
        ["Proposed plan revised: Smaller: only the bug", "Proposed plan rejected"]
    )
    expect(proposal).to_have_count(0)
    # Reject sends nothing: still the two model requests and the one turn Revise started, none running
    expect(page.get_by_text("rejected | 2 requests | 1 turns | running False")).to_be_visible()
    notebook.screenshot(f"plan_answers_revise_{ui}.png")
    assert notebook.unplaced_page_errors() == []
