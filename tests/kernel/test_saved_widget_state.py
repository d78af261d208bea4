"""``codex_nb.widgets.saved_state``: the widget state nbclient saves agrees with the outputs.

nbclient saves ``metadata.widgets`` from the comm messages each cell sent while it ran; a
``%%codex`` turn runs in a task of the cell that started it, so what it changes while a later
cell runs (the outcome line, the Stop control) used to be missing from the saved file, which
then showed the turn running beside outputs saying it completed. Both cases run
``jupyter nbconvert --execute`` (nbclient, a real kernel) and read the file it wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.saved_notebooks import WIDGET_STATE, contradictions, widget_state_contradictions

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """\
%load_ext codex_nb
import codex_nb as cx
script = [[cx.function_call("update_plan", {"plan": [{"step": "Only step", "status": "completed"}]})],
          [cx.assistant_message("done")]]
"""


def _execute(path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--inplace", path.name]
    run = subprocess.run(command, cwd=path.parent, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(path.read_text(encoding="utf-8"))


def _outcome_labels(notebook: dict) -> list[str]:
    states = notebook["metadata"]["widgets"][WIDGET_STATE]["state"]
    return [m["state"]["value"] for m in states.values() if "cx-turn-outcome" in m["state"].get("_dom_classes", [])]


def test_a_turn_awaited_in_a_later_cell_is_saved_as_it_ended(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell(SCRIPT),
        nbformat.v4.new_code_cell("%%codex --model script --out turn\nDo the one step."),
        nbformat.v4.new_code_cell("result = await turn\nprint(result.status)"),
    ]
    path = tmp_path / "turn.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    saved = _execute(path)
    assert "".join(saved["cells"][2]["outputs"][0]["text"]) == "completed\n"
    assert _outcome_labels(saved) == ["Turn completed: done"]
    assert widget_state_contradictions(saved) == []
    assert contradictions(saved) == []


def test_the_quickstart_executed_by_nbconvert_saves_no_running_turn(tmp_path: Path) -> None:
    path = tmp_path / "00_quickstart.ipynb"
    shutil.copy(ROOT / "notebooks" / "00_quickstart.ipynb", path)
    saved = _execute(path)
    assert widget_state_contradictions(saved) == []
    assert contradictions(saved) == []
    assert [label.split(":")[0] for label in _outcome_labels(saved)] == ["Turn completed"]
