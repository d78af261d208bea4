"""The person answers the REAL Codex's plan (``codex app-server``, the pinned version) in a real
JupyterLab and Notebook 7, through PlanAnswersWidget: a comment typed beside a step while the turn
runs goes in with ``turn/steer`` and the model's next request in that same turn carries it, and
so does a suggested change (its readable diff), marked adopted when Codex's next ``update_plan``
drops the step; a Plan-mode ``<proposed_plan>`` approved with the Approve button starts the next
turn with Codex's "Implement the plan."; one revised with a note plans again in Plan mode with the
note, and Reject sends nothing.

Codex samples from a local scripted Responses server (``ResponsesServer``) whose answers wait for
the notebook's button, so the turn is still running when the person comments; what the scripted
server received is shown in a label and asserted on. No sleeps: every wait is an auto-waiting expect.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook
from .real_codex import START, STEERED

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

STEER_CELL = (
    STEERED
    + """\
COMMENT = 'Comment on step 2 of your plan ("Plot it"):\\nUse bars, <i>not</i> lines'
first = plan(("Read the data", "in_progress"), ("Plot it", "pending"))
renamed = plan(("Read the data", "completed"), ("Plot it as bars", "in_progress"))
srv, thread = await codex_on(steered_answers(first, "Use bars", renamed))
answers = PlanAnswers(thread)
received = report_steered(srv, thread, lambda: answers.comments, lambda comment: COMMENT)
display(PlanAnswersWidget(answers), next_button, received)
handle = thread.start_turn("Plot the data")
"""
)

SUGGESTION = (
    "I suggest this change to your plan. Update the plan with update_plan if you agree.\n"
    "Changes:\n- remove step: Publish it\n\nThe plan as I propose it:\n1. Read the data\n2. Plot it"
)
SUGGEST_CELL = (
    STEERED
    + f"""\
SUGGESTION = {SUGGESTION!r}
first = plan(("Read the data", "in_progress"), ("Plot it", "pending"), ("Publish it", "pending"))
shorter = plan(("Read the data", "completed"), ("Plot it", "in_progress"))
srv, thread = await codex_on(steered_answers(first, "- remove step: Publish it", shorter))
answers = PlanAnswers(thread)
received = report_steered(srv, thread, lambda: answers.suggestions, lambda suggestion: SUGGESTION)
display(PlanAnswersWidget(answers), next_button, received)
handle = thread.start_turn("Plot the data")
"""
)

APPROVE_CELL = (
    START
    + """\
proposal = "<proposed_plan>\\n# Tidy\\n\\n1. Read the notes\\n2. Fix the typos\\n</proposed_plan>\\n"
got = []


def implement(body):
    got.append("Implement the plan." in json.dumps(body["input"]))
    return [cx.assistant_message("Implementing.")]


srv, thread = await codex_on([[cx.assistant_message(proposal)], implement])
answers = PlanAnswers(thread)
outcome = widgets.Label(value="planning")


def on_event(event):
    if event.msg.type == "turn_complete" and got:
        outcome.value = f"{event.msg.last_agent_message} | model received Implement the plan.: {got[-1]}"


thread.subscribe(on_event)
display(PlanAnswersWidget(answers), outcome)
handle = thread.start_turn("Plan the tidy-up", mode="plan")
"""
)


REVISE_CELL = (
    START
    + """\
first = "<proposed_plan>\\n1. Rewrite everything\\n</proposed_plan>\\n"
second = "<proposed_plan>\\n1. Fix the one bug\\n</proposed_plan>\\n"
got = []


def replan(body):
    got.append("Smaller: only the bug" in json.dumps(body["input"]))
    return [cx.assistant_message(second)]


srv, thread = await codex_on([[cx.assistant_message(first)], replan])
answers = PlanAnswers(thread)
outcome = widgets.Label(value="planning")
modes = []


def on_event(event):
    if event.msg.type == "turn_started":
        modes.append(event.msg.collaboration_mode_kind)
    if event.msg.type == "turn_complete" and got:
        outcome.value = f"{modes[-1]} mode | model received the note: {got[-1]}"


def on_change():
    if answers.decisions and answers.decisions[-1].decision == "rejected":
        running = thread.active_turn is not None
        outcome.value = f"rejected | {len(srv.requests)} requests | {len(modes)} turns | running {running}"


thread.subscribe(on_event)
answers.on_change(on_change)
display(PlanAnswersWidget(answers), outcome)
handle = thread.start_turn("Plan the fix", mode="plan")
"""
)


def steered_then_released(page: Any, answer: Any) -> None:
    """``answer`` (a comment or suggestion) went in with ``turn/steer`` while the model still held
    its answer; released, the turn ends with the model having received it in that turn."""
    from playwright.sync_api import expect

    expect(answer.locator(".cx-pa-label")).to_contain_text("steered into the running turn", timeout=60_000)
    received = page.locator(".jp-OutputArea .widget-label")
    expect(received).to_have_text("turn running")
    page.get_by_role("button", name="Let the model answer").click()
    expect(received).to_have_text("turn ended | steered in this turn: True | model received it: True", timeout=90_000)


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_comment_is_steered_into_the_running_codex_turn(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"plan_answers_codex_steer_{ui}.ipynb", [STEER_CELL], ui=ui)
    notebook.run_all()

    widget = page.locator(".cx-plan-answers")
    expect(widget.locator(".cx-pa-step-text", has_text="Plot it")).to_be_visible(timeout=90_000)
    widget.get_by_role("button", name="Comment on step 2: Plot it").click()
    widget.get_by_role("textbox").fill("Use bars, <i>not</i> lines")
    widget.get_by_role("button", name="Send").click()
    comment = widget.locator(".cx-pa-comment")
    steered_then_released(page, comment)
    expect(widget.locator(".cx-pa-step-text", has_text="Plot it as bars")).to_be_visible()
    expect(comment.locator(".cx-pa-label")).to_contain_text("the agent renamed this step to “Plot it as bars”")
    notebook.screenshot(f"plan_answers_codex_steer_{ui}.png")
    assert notebook.unplaced_page_errors() == []


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_suggested_change_is_steered_into_the_running_codex_turn_and_adopted(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"plan_answers_codex_suggest_{ui}.ipynb", [SUGGEST_CELL], ui=ui)
    notebook.run_all()

    widget = page.locator(".cx-plan-answers")
    expect(widget.locator(".cx-pa-step-text", has_text="Publish it")).to_be_visible(timeout=90_000)
    widget.get_by_role("button", name="Suggest a change").click()
    widget.get_by_role("textbox").fill("Read the data\nPlot it")
    widget.get_by_role("button", name="Send").click()
    suggestion = widget.locator(".cx-pa-suggestion")
    expect(suggestion.locator(".cx-pa-diff")).to_contain_text("- remove step: Publish it")
    steered_then_released(page, suggestion)
    expect(widget.locator(".cx-pa-step-text", has_text="Publish it")).to_have_count(0)
    expect(suggestion.locator(".cx-pa-label")).to_have_text("Suggested change: adopted · steered into the running turn")
    notebook.screenshot(f"plan_answers_codex_suggest_{ui}.png")
    assert notebook.unplaced_page_errors() == []


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_an_approved_codex_plan_starts_implement_the_plan(page: Any, jupyter_server: JupyterServer, ui: str) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"plan_answers_codex_approve_{ui}.ipynb", [APPROVE_CELL], ui=ui)
    notebook.run_all()

    widget = page.locator(".cx-plan-answers")
    proposal = widget.get_by_role("region", name="Proposed plan")
    expect(proposal).to_contain_text("Fix the typos", timeout=90_000)
    proposal.get_by_role("button", name="Approve").click()
    expect(widget.locator(".cx-pa-decision")).to_have_text("Proposed plan approved")
    outcome = page.locator(".jp-OutputArea .widget-label")
    expect(outcome).to_have_text("Implementing. | model received Implement the plan.: True", timeout=90_000)
    expect(proposal).to_have_count(0)
    notebook.screenshot(f"plan_answers_codex_approve_{ui}.png")
    assert notebook.unplaced_page_errors() == []


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_a_revised_codex_plan_plans_again_and_reject_sends_nothing(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"plan_answers_codex_revise_{ui}.ipynb", [REVISE_CELL], ui=ui)
    notebook.run_all()

    widget = page.locator(".cx-plan-answers")
    proposal = widget.get_by_role("region", name="Proposed plan")
    expect(proposal).to_contain_text("Rewrite everything", timeout=90_000)
    proposal.get_by_role("button", name="Revise").click()
    proposal.get_by_role("textbox", name="What should the plan change?").fill("Smaller: only the bug")
    proposal.get_by_role("button", name="Send").click()
    expect(widget.locator(".cx-pa-decision")).to_have_text("Proposed plan revised: Smaller: only the bug")
    outcome = page.locator(".jp-OutputArea .widget-label")
    expect(outcome).to_have_text("plan mode | model received the note: True", timeout=90_000)
    expect(proposal).to_contain_text("Fix the one bug")

    proposal.get_by_role("button", name="Reject").click()
    expect(proposal).to_have_count(0)
    expect(outcome).to_have_text("rejected | 2 requests | 2 turns | running False")
    notebook.screenshot(f"plan_answers_codex_revise_{ui}.png")
    assert notebook.unplaced_page_errors() == []
