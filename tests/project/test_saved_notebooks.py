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
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import NOTEBOOKS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
RUNNING = re.compile(r"Turn: running|Turn running…")
NO_PLAN = "(no plan yet)"
FINISHED = re.compile(r"\bcompleted\b|✔")
MAX_BYTES = 40_000
"""The largest teaching notebook is about 31 KB with its final-state outputs."""


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _outputs(notebook: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(index, output) for index, cell in enumerate(notebook["cells"]) for output in cell.get("outputs", [])]


def _shown(output: dict[str, Any]) -> str:
    if output.get("output_type") == "stream":
        return _text(output.get("text"))
    data = output.get("data", {})
    return _text(data.get("text/plain")) + "\n" + _text(data.get("text/html"))


def contradictions(notebook: dict[str, Any]) -> list[str]:
    """Each stored widget output that says a turn runs, or that no plan exists while a later
    output (or the same one) says a turn finished."""
    found = []
    outputs = _outputs(notebook)
    for position, (cell, output) in enumerate(outputs):
        if WIDGET_VIEW not in output.get("data", {}):
            continue
        shown = _shown(output)
        if RUNNING.search(shown):
            found.append(f"cell {cell}: a widget stored while its turn was running: {RUNNING.search(shown).group(0)!r}")
        if NO_PLAN in shown:
            later = [(c, _shown(o)) for c, o in outputs[position:]]
            done = next(((c, FINISHED.search(t)) for c, t in later if FINISHED.search(t)), None)
            if done is not None:
                found.append(f"cell {cell}: a widget stored with {NO_PLAN!r} beside cell {done[0]}'s finished result")
    return found


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
