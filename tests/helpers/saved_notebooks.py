"""What a saved notebook says about its turns: the contradictions a reader without a kernel would see.

Shared by ``tests/project/test_saved_notebooks.py`` (the committed notebooks) and the Run All
browser test (the notebook as JupyterLab and Notebook 7 hold it after Run All, i.e. what they save).
"""

from __future__ import annotations

import re
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
RUNNING = re.compile(r"Turn: running|Turn running…|\bturn runs\b")
NO_PLAN = "(no plan yet)"
FINISHED = re.compile(r"\bcompleted\b|✔")
ENDED = re.compile(r"\b(?:completed|interrupted|failed)\b")
# "(no plan yet)" with the reason beside it ("No plan: the ACP agent sent no plan update in turn
# t1") is the truth about a finished turn that had no plan, not a stale first render.
EXPLAINED = "No plan:"
STOPPED_WITH_LIVE_STEP = re.compile(r'data-turn-status="(?:interrupted|failed)".*title="In progress"', re.S)
"""A saved checklist of a turn that stopped short drawing a step as live work."""


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
    """Each stored widget output that says a turn runs, that draws a step in progress under a turn
    that stopped short, or that no plan exists while a later output (or the same one) says a turn
    finished; and printed text that shows a turn running
    beside (or before) text saying it ended, which reads as a contradiction without a kernel."""
    found = []
    outputs = _outputs(notebook)
    for position, (cell, output) in enumerate(outputs):
        if WIDGET_VIEW not in output.get("data", {}):
            running = RUNNING.search(_shown(output))
            ended = next((c for c, o in outputs[position:] if ENDED.search(_shown(o))), None)
            if running and ended is not None:
                found.append(f"cell {cell}: printed {running.group(0)!r} before cell {ended}'s ended turn")
            continue
        shown = _shown(output)
        if RUNNING.search(shown):
            found.append(f"cell {cell}: a widget stored while its turn was running: {RUNNING.search(shown).group(0)!r}")
        if STOPPED_WITH_LIVE_STEP.search(_text(output.get("data", {}).get("text/html"))):
            found.append(f"cell {cell}: a checklist of a stopped turn stored with a step drawn in progress")
        if NO_PLAN in shown and EXPLAINED not in shown:
            later = [(c, _shown(o)) for c, o in outputs[position:]]
            done = next(((c, FINISHED.search(t)) for c, t in later if FINISHED.search(t)), None)
            if done is not None:
                found.append(f"cell {cell}: a widget stored with {NO_PLAN!r} beside cell {done[0]}'s finished result")
    return found


WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def widget_state_contradictions(notebook: dict[str, Any]) -> list[str]:
    """Each saved widget model (``metadata.widgets``, what a widget manager redraws from) that says
    a turn runs while an output says a turn ended: the saved view and the outputs disagree."""
    states = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    ended = next((cell for cell, output in _outputs(notebook) if ENDED.search(_shown(output))), None)
    if ended is None:
        return []
    found = []
    for model_id, model in states.items():
        state = model.get("state", {})
        value = state.get("value")
        if state.get("status") == "running" or state.get("stoppable") is True:
            found.append(
                f"widget {model_id}: saved with status {state.get('status')!r} beside cell {ended}'s ended turn"
            )
        elif isinstance(value, str) and RUNNING.search(value):
            found.append(f"widget {model_id}: saved as {value!r} beside cell {ended}'s ended turn")
    return found
