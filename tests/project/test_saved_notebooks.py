"""Committed notebooks read true without a kernel (GitHub, nbviewer, nbconvert, the docs site).

A widget output stores a ``text/plain`` and ``text/html`` beside the widget view; where no
kernel runs, that is all a reader sees. A widget shows a turn as it ends (its display is
updated in place, ``.ci/execute_notebooks.py`` stores that, nbval compares it), so a stored
widget output that still shows a running turn, or an empty plan while a later output of the
notebook reports a finished one, contradicts the notebook. Committed notebooks also stay small:
no saved widget state, and a size bound per notebook.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import NOTEBOOKS
from helpers.saved_notebooks import WIDGET_VIEW, contradictions

MAX_BYTES = 64_000
"""The largest teaching notebook, 07 (the real Codex: a goal's turns, two automatic reviews and a
24-turn history read by pages included), is about 61 KB with its final-state outputs; saved widget
state would make one several times that."""


NAMES = sorted(path.name for path in NOTEBOOKS.glob("*.ipynb"))


@pytest.mark.parametrize("name", NAMES)
def test_a_committed_notebook_does_not_contradict_itself(name: str) -> None:
    notebook = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    assert contradictions(notebook) == [], f"re-execute it: .venv/bin/python .ci/execute_notebooks.py notebooks/{name}"


@pytest.mark.parametrize("name", NAMES)
def test_a_committed_notebook_stays_small(name: str) -> None:
    path: Path = NOTEBOOKS / name
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in notebook["metadata"], "saved widget state: store none (.ci/execute_notebooks.py)"
    assert path.stat().st_size <= MAX_BYTES


def _widget(text: str) -> dict[str, Any]:
    return {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": "m"}, "text/plain": text}}


def _cells(*outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cells": [{"cell_type": "code", "outputs": list(o)} for o in outputs]}


def test_the_check_finds_the_reported_contradictions() -> None:
    """The two the issue reported: the quickstart's running turn above its completed result, and
    02's empty checklist above "completed at revision 4"."""
    quickstart = _cells(
        [_widget("Turn: running [Stop]\n• Updated Plan\n  └ (no plan yet)\nTurn running…")],
        [{"output_type": "stream", "name": "stdout", "text": "completed - The README is tidy"}],
    )
    assert len(contradictions(quickstart)) == 2
    checklist = _cells(
        [_widget("• Updated Plan\n  └ (no plan yet)")],
        [{"output_type": "stream", "name": "stdout", "text": "completed at revision 4\n"}],
    )
    assert contradictions(checklist) == ["cell 0: a widget stored with '(no plan yet)' beside cell 1's finished result"]
    assert contradictions(_cells([_widget("• Updated Plan\n  └ All done\n    ✔ Write tests")])) == []


def test_a_finished_turn_without_a_plan_that_says_why_is_no_contradiction() -> None:
    """An agent that sent no plan (Gemini CLI in notebook 14): the widget keeps "(no plan yet)"
    with the reason beside it, which is true of the finished turn."""
    explained = _cells(
        [_widget("• Updated Plan\n  └ (no plan yet)\n    No plan: the ACP agent sent no plan update in turn t1")],
        [{"output_type": "stream", "name": "stdout", "text": "gemini-cli completed\n"}],
    )
    assert contradictions(explained) == []


def test_the_check_finds_a_stopped_turns_step_drawn_in_progress() -> None:
    """Notebook 04 saved its interrupted build turn with "Wait for it" drawn as live work."""
    html = (
        '<div class="codex-plan-turn" data-turn-status="interrupted">Turn interrupted</div>'
        '<ol><li data-status="in_progress" title="In progress">Wait for it</li></ol>'
    )
    output = {"output_type": "display_data", "data": {WIDGET_VIEW: {}, "text/plain": "", "text/html": html}}
    notebook = {"cells": [{"cell_type": "code", "outputs": [output]}]}
    assert contradictions(notebook) == ["cell 0: a checklist of a stopped turn stored with a step drawn in progress"]
    fixed = html.replace('title="In progress"', 'title="In progress when the turn was interrupted"')
    output["data"]["text/html"] = fixed
    assert contradictions(notebook) == []
