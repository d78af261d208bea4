"""The person's own words on screen, in a real JupyterLab and Notebook 7:
the transcript shows the prompt and a comment sent from the plan widget as "You" rows, in order
with the agent's answers; a comment that starts a turn shows that turn and the agent's answer in
the widget it was typed in; and notebook 15 leaves a proposal for the reader whose Approve shows
the turn it started. Every wait is an auto-waiting expect."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from .harness import JupyterServer, NotebookPage, open_notebook
from .notebook_expectations import NOTEBOOKS

pytestmark = pytest.mark.browser

CELL = """\
import asyncio
import codex_nb as cx
from codex_nb.timeline import PlanAnswers
from codex_nb.widgets.plan_answers import PlanAnswersWidget


def plan(*steps):
    return [cx.function_call("update_plan", {"plan": [{"step": s, "status": t} for s, t in steps]})]


person_spoke = asyncio.Event()


async def after_the_person(request):
    await person_spoke.wait()
    return [cx.assistant_message("Reading with bars in mind.")]


model = cx.ScriptedModel(
    [
        plan(("Read the data", "completed"), ("Plot it", "pending")),
        after_the_person,
        [cx.assistant_message("Plotted as bars.")],
        [cx.assistant_message("Yes, the plot is done.")],
    ],
    allow_leftover=True,
)
session = cx.Session()
answers = PlanAnswers(session, model=model)
answers.on_change(lambda: answers.comments and person_spoke.set())
display(cx.Transcript(session), PlanAnswersWidget(answers))
handle = session.start_turn("Plot the data", model=model)
"""


def comment(widget: Any, step: str, text: str) -> None:
    widget.get_by_role("button", name=step).click()
    widget.get_by_role("textbox").fill(text)
    widget.get_by_role("button", name="Send").click()


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_persons_words_are_in_the_transcript_and_the_turn_an_answer_started_in_the_widget(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"user_messages_{ui}.ipynb", [CELL], ui=ui)
    notebook.run_all()
    transcript = page.locator(".cx-transcript")
    you = transcript.locator(".cx-kind-user")
    expect(you.first.locator(".cx-transcript-label")).to_have_text("You", timeout=60_000)
    expect(you.first.locator(".cx-transcript-text")).to_have_text("Plot the data")

    widget = page.locator(".cx-plan-answers")
    comment(widget, "Comment on step 2: Plot it", "Use bars, not lines")  # steered into the running turn
    expect(transcript.locator(".cx-transcript-header")).to_have_text("Transcript: completed", timeout=30_000)
    expect(you).to_have_count(2)
    expect(you.nth(1).locator(".cx-transcript-text")).to_contain_text("Use bars, not lines")
    rows = transcript.locator(".cx-transcript-row .cx-transcript-label")
    labels = rows.all_text_contents()
    assert labels.index("You", 1) < len(labels) - 1 and labels[-1] == "Assistant", labels  # in order

    comment(widget, "Comment on step 2: Plot it", "Is the plot done?")  # no turn runs: starts one
    turn = widget.get_by_role("log", name="Turn your answer started")
    expect(turn.locator(".cx-pa-you .cx-pa-said")).to_contain_text("Is the plot done?", timeout=30_000)
    expect(turn.locator(".cx-pa-agent .cx-pa-said")).to_have_text("Yes, the plot is done.")
    expect(widget.locator(".cx-pa-comment").last.locator(".cx-pa-label")).to_contain_text("started a turn")
    # the transcript shows the new turn too, opened by the person's words
    expect(you.first.locator(".cx-transcript-text")).to_contain_text("Is the plot done?")
    notebook.screenshot(f"user_messages_{ui}.png")
    assert notebook.unplaced_page_errors() == []


NB15 = "15_answering_the_plan.ipynb"


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_notebook_15_leaves_a_proposal_for_the_reader_and_shows_the_turn_it_starts(
    page: Any, jupyter_server: JupyterServer, ui: str
) -> None:
    from playwright.sync_api import expect

    shutil.copy(NOTEBOOKS / NB15, jupyter_server.root / NB15)
    notebook = NotebookPage(page, jupyter_server, NB15, ui=ui).open()
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    notebook.run_all()
    transcript = page.locator(".cx-transcript").last
    expect(transcript.locator(".cx-kind-user .cx-transcript-text").first).to_contain_text(
        "Which region sold least?", timeout=240_000
    )
    widget = page.locator(".cx-plan-answers").last
    proposal = widget.get_by_role("region", name="Proposed plan")
    expect(proposal).to_contain_text("Gather the numbers")
    first = widget.get_by_role("log", name="Turn your answer started")
    expect(first).to_have_count(1)
    expect(first.locator(".cx-pa-agent")).to_contain_text("Implementing: numbers first.")
    proposal.get_by_role("button", name="Approve").click()
    turns = widget.get_by_role("log", name="Turn your answer started")
    expect(turns).to_have_count(2, timeout=30_000)
    expect(turns.nth(1).locator(".cx-pa-you")).to_contain_text("Implement the plan.")
    expect(turns.nth(1).locator(".cx-pa-agent")).to_contain_text("Understood: Implement the plan.")
    expect(proposal).to_have_count(0)
    notebook.screenshot(f"user_messages_nb15_{ui}.png")
    assert notebook.unplaced_page_errors() == []
