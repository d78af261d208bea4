"""Plans that survive export: a checklist and a timeline displayed before their turn runs are
stored, by a real kernel executed with nbclient, at the state they ended in (their displays are
updated in place at each cell's end), and ``nbconvert --to html`` shows that state as text."""

from __future__ import annotations

import html

import pytest

from helpers.plan_export import FINAL_STEPS, executed_notebook, export_html

pytestmark = pytest.mark.kernel


def _bundles(nb) -> list[dict]:
    return [o.data for o in nb.cells[0].outputs if o.output_type == "display_data"]


def test_the_stored_outputs_are_the_final_state_not_the_first_render() -> None:
    nb = executed_notebook(store_widget_state=False)
    assert nb.cells[1].outputs[-1].text.strip() == "completed"
    checklist, timeline = _bundles(nb)
    assert "(no plan yet)" not in checklist["text/plain"] and "(3/3 done)" in checklist["text/html"]
    for step in FINAL_STEPS:
        assert step in checklist["text/plain"]
        assert html.escape(step) in checklist["text/html"] and html.escape(step) in timeline["text/html"]
    assert "PlanTimeline: 3 revisions" in timeline["text/plain"]
    assert "Plan history</strong> <span>(3 revisions)" in timeline["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in checklist  # the live view is still there


def test_nbconvert_html_shows_the_final_steps_without_a_kernel() -> None:
    page = export_html(executed_notebook(store_widget_state=False), exclude_input=True)
    for step in FINAL_STEPS:
        assert html.escape(step) in page
    assert "<b>parser</b>" not in page  # a step's HTML is text
    assert "(3/3 done)" in page and "(no plan yet)" not in page and "codex-timeline-static" in page


def test_saved_widget_state_hands_the_page_to_the_html_manager_unless_cleared() -> None:
    """nbclient saves widget state by default; nbconvert then emits the widget view for the HTML
    widget manager (loaded from a CDN) instead of the text/html. Clearing the metadata at export
    brings the text back."""
    nb = executed_notebook(store_widget_state=True)
    assert "widgets" in nb.metadata
    assert "codex-plan-static" not in export_html(nb, exclude_input=True)
    page = export_html(nb, clear_metadata=True, exclude_input=True)
    assert "codex-plan-static" in page and "codex-timeline-static" in page
    for step in FINAL_STEPS:
        assert html.escape(step) in page
