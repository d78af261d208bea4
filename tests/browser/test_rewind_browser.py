"""Rewind from the transcript in a real JupyterLab and Notebook 7, fed by the REAL Codex.

Codex (``codex app-server``, the pinned version) samples from the local Responses server. After
two turns the person clicks "Rewind to here" on the shown (second) turn's words: the view asks
first (what goes, and that files are not restored), then the kernel runs ``thread/revert``; the
turn's rows are struck through, the note says what was undone, and the next turn's request to the
stand-in (started with a button once the marks were checked) no longer holds the undone turn.

The plan timeline offers the same on the shown revision's turn: the same confirmation, the same
rewind path; the undone turn's revision is marked and offers it no more. No sleeps: every wait is
an auto-waiting expect.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.requires_codex]

IMPORTS = """\
import os, tempfile
import ipywidgets as widgets
import codex_nb as cx
from codex_nb.testing import ResponsesServer
from codex_nb.widgets.timeline import PlanTimelineWidget
"""

SETUP = """\

srv = ResponsesServer(SCRIPT).start()
home = srv.write_codex_home(tempfile.mkdtemp(prefix="codex-home-"), tools={"update_plan": {"enabled": True}})
server = cx.CodexAppServer(codex_home=home, env={**os.environ, "OPENAI_API_KEY": "sk-local"})
await server.start()
thread = await server.start_thread(cwd=tempfile.mkdtemp(prefix="rewind-work-"))
transcript = cx.Transcript(thread)
timeline = PlanTimelineWidget(thread)
outcome = widgets.Label(value="waiting for the rewind")

def said(body):
    return [p.get("text") for i in body["input"] if i.get("role") in ("user", "assistant") for p in i.get("content") or []]

def next_turn():
    handle = thread.start_turn("question after")
    handle.task.add_done_callback(lambda _t: setattr(outcome, "value", "next request: " + " | ".join(said(srv.requests[-1])[-3:])))

go = widgets.Button(description="Next turn")
go.on_click(lambda _b: server.loop.call_soon_threadsafe(next_turn))  # a comm may arrive on another thread
display(transcript if VIEW == "transcript" else timeline, go, outcome)
"""

# The timeline's run: each of the first two turns makes a plan, then answers.
PLANS = """def plan(step, status, call):
    return cx.function_call("update_plan", {"plan": [{"step": step, "status": status}]}, call_id=call)

SCRIPT = [[plan("Read", "in_progress", "p0")], [cx.assistant_message("answer 0")],
          [plan("Read", "completed", "p1")], [cx.assistant_message("answer 1")], [cx.assistant_message("answer 2")]]
"""

TURNS = """\
for i in range(2):
    await thread.run_turn(f"question {i}")
print("turns:", len(thread.turn_ids))
"""


def _cancel_then_rewind(rewind: Any, confirm: Any) -> None:
    """Rewind to here asks what it undoes (the transcript's and the timeline's words are one); Cancel closes it."""
    from playwright.sync_api import expect

    rewind.click()
    expect(confirm).to_be_visible()
    expect(confirm.locator("p")).to_have_text(
        "Rewind to before this turn? This undoes 1 turn (this turn) from the thread's history: the next turn "
        "no longer sees them. Files they changed are not restored."
    )
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()


def _confirm(rewind: Any, confirm: Any, note: Any) -> None:
    """Asked again and confirmed, the rewind runs and its note says what it undid."""
    from playwright.sync_api import expect

    rewind.click()
    confirm.get_by_role("button", name="Rewind").click()
    expect(note).to_have_text("Rewound: 1 turn undone (files they changed were not restored)", timeout=60_000)


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_rewind_to_here_asks_first_then_undoes_the_turn_for_the_next_request(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    answers = 'VIEW = "transcript"\nSCRIPT = [[cx.assistant_message(f"answer {i}")] for i in range(3)]\n'
    notebook = open_notebook(page, jupyter_server, f"rewind_{ui}.ipynb", [IMPORTS + answers + SETUP, TURNS], ui=ui)
    notebook.run_all()
    view = page.locator(".cx-transcript")
    expect(view.locator(".cx-transcript-header")).to_have_text("Transcript: completed", timeout=120_000)
    you = view.locator(".cx-transcript-row.cx-kind-user")
    expect(you).to_have_count(1)
    expect(you.locator(".cx-transcript-text")).to_have_text("question 1")
    rewind = you.locator("button.cx-transcript-rewind")
    expect(rewind).to_be_visible()
    _cancel_then_rewind(rewind, view.locator(".cx-transcript-confirm"))
    expect(you).not_to_have_class(re.compile("cx-rewound"))  # Cancel undid nothing
    _confirm(rewind, view.locator(".cx-transcript-confirm"), view.locator(".cx-transcript-rewind-note"))
    expect(you).to_have_class(re.compile("cx-rewound"))
    expect(you.locator(".cx-transcript-label")).to_have_text("You \u00b7 rewound")
    expect(rewind).to_be_hidden()  # an undone turn offers no rewind
    page.get_by_role("button", name="Next turn").click()
    expect(page.get_by_text("next request: question 0 | answer 0 | question after")).to_be_visible(timeout=120_000)
    notebook.screenshot(f"rewind_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []


@pytest.mark.parametrize("ui", ["lab", "notebook"])
def test_the_plan_timelines_rewind_to_here_asks_the_same_and_marks_the_undone_revision(
    ui: str, page: Any, jupyter_server: JupyterServer
) -> None:
    from playwright.sync_api import expect

    cells = [IMPORTS + 'VIEW = "timeline"\n' + PLANS + SETUP, TURNS]
    notebook = open_notebook(page, jupyter_server, f"rewind_timeline_{ui}.ipynb", cells, ui=ui)
    notebook.run_all()
    expect(page.get_by_text("turns: 2")).to_be_visible(timeout=120_000)
    view = page.locator(".codex-timeline")
    items = view.locator(".codex-timeline-item")
    expect(items).to_have_count(2)
    expect(view.locator(".codex-timeline-detail .codex-plan-text")).to_have_text("Read")
    rewind = view.locator("button.codex-timeline-rewind")
    expect(rewind).to_be_visible()  # the shown (second) revision's turn
    _cancel_then_rewind(rewind, view.locator(".codex-timeline-confirm"))
    expect(view.locator('.codex-timeline-item[data-rewound="true"]')).to_have_count(0)  # Cancel undid nothing
    _confirm(rewind, view.locator(".codex-timeline-confirm"), view.locator(".codex-timeline-rewind-note"))
    undone = view.locator('.codex-timeline-item[data-rewound="true"]')
    expect(undone).to_have_count(1)
    expect(undone.locator(".codex-timeline-label")).to_contain_text("#1")
    expect(undone.locator(".codex-timeline-label")).to_contain_text("rewound")
    undone.click()
    expect(view.locator(".codex-timeline-heading")).to_contain_text("#1")
    expect(rewind).to_be_hidden()  # an undone turn offers no rewind
    page.get_by_role("button", name="Next turn").click()
    expect(page.get_by_text("next request: question 0 | answer 0 | question after")).to_be_visible(timeout=120_000)
    notebook.screenshot(f"rewind_timeline_{ui}.png")
    assert notebook.unplaced_page_errors() == [] and notebook.widget_errors == []
