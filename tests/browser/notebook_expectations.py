"""What a reader should see in each live widget of a teaching notebook after Run All.

A code cell that displays widgets stores it in ``metadata.codex_nb.expect``: a list of checks,
each ``{"widget": KIND, "index": N, "text_contains": [...], "text_absent": [...]}`` (the N-th
widget of that kind in the cell's output shows every ``text_contains`` string and none of the
``text_absent`` ones) or ``{"widget": KIND, "count": N}`` (exactly N of them); ``"ui": "lab"`` or
``"notebook"`` limits a check to one front end (the plan panel is in JupyterLab's side area, and
in the cell in Notebook 7). Page-wide kinds (the side panel) are looked up in the whole page
instead of the cell. The browser test checks
them in JupyterLab; a plain test checks that every notebook showing widgets has some.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

CELL_WIDGETS = {
    "checklist": ".codex-plan:not(.codex-timeline-detail)",  # a timeline's detail is drawn as a plan too
    "controls": ".cx-turn-controls",
    "prompts": ".cx-prompts",
    "transcript": ".cx-transcript",
    "turn_view": ".cx-turn-view",
    "panel_note": ".cx-plan-panel-note",
    "timeline": ".codex-timeline",
    "panel_inline": ".cx-plan-panel",
    "plan_answers": ".cx-plan-answers",
    "compare": ".cx-compare",
}
PAGE_WIDGETS = {
    "panel": "#jp-right-stack .jupyterlab-sidecar",
}
CHECK_KEYS = {"widget", "index", "count", "text_contains", "text_absent", "ui"}


def expectations(notebook: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(cell index, check) for every check stored in the notebook, in cell order."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        for check in cell.get("metadata", {}).get("codex_nb", {}).get("expect", []):
            found.append((index, check))
    return found


def shows_widgets(notebook: dict[str, Any]) -> bool:
    return any(
        WIDGET_VIEW in output.get("data", {}) for cell in notebook["cells"] for output in cell.get("outputs", [])
    )


def committed() -> dict[str, dict[str, Any]]:
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(NOTEBOOKS.glob("*.ipynb"))}


def live_notebooks() -> list[str]:
    """The committed notebooks that display live widgets."""
    return [name for name, notebook in committed().items() if shows_widgets(notebook)]
