"""``codex_nb.testing.nbval_displays``: nbval compares a display updated in place at its final state.

Each case runs nbval (in a pytest subprocess, with a real kernel) on a two-cell notebook: the
first cell displays "first" with a display id, the second updates that display to "last" (as a
codex_nb widget does when a cell ends after its turn). nbclient stores "last"; so must the
committed notebook, and nbval must agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.kernel

SHOW = """\
from IPython.display import display, update_display
handle = display({"text/plain": "first"}, raw=True, display_id="d1")
"""
UPDATE = 'update_display({"text/plain": "last"}, raw=True, display_id="d1")'


def _notebook(tmp_path: Path, stored: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    shown = nbformat.v4.new_output("display_data", data={"text/plain": stored})
    nb.cells = [
        nbformat.v4.new_code_cell(SHOW, execution_count=1, outputs=[shown]),
        nbformat.v4.new_code_cell(UPDATE, execution_count=2, outputs=[]),
    ]
    path = tmp_path / "displays.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _nbval(path: Path, *plugin: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin, "--nbval", path.name]
    return subprocess.run(command, cwd=path.parent, capture_output=True, text=True, timeout=240, check=False)


def test_a_display_stored_at_its_final_state_passes(tmp_path: Path) -> None:
    run = _nbval(_notebook(tmp_path, "last"), "-p", "codex_nb.testing.nbval_displays")
    assert run.returncode == 0, run.stdout


def test_a_display_stored_at_its_first_render_fails_naming_the_cell(tmp_path: Path) -> None:
    run = _nbval(_notebook(tmp_path, "first"), "-p", "codex_nb.testing.nbval_displays")
    assert run.returncode == 1
    assert "A display updated in place does not end as stored" in run.stdout
    assert "Cell 0, text/plain: stored\nfirst\nbut its final state is\nlast" in run.stdout


def test_without_the_plugin_nbval_compares_the_first_render(tmp_path: Path) -> None:
    """Why the plugin exists: plain nbval fails the truthful notebook (and would pass a stale one)."""
    run = _nbval(_notebook(tmp_path, "last"))
    assert run.returncode == 1 and "displays.ipynb::Cell 0" in run.stdout
