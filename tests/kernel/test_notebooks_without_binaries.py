"""Run All of every teaching notebook with no Codex, codex-acp or agent binary to be found: a cell
that needs an optional binary says in a sentence that it skipped, and the cells after it run (Run
All of notebook 06 once stopped at its real-Codex cell, so its later sections, which need no
binary, never ran). What ``bash .ci/lab`` gives a newcomer: the notebooks' extra and nothing else.

The binaries are hidden for real (``helpers.hidden_binaries``). The notebooks that replay a cassette
are run that way by ``test_notebook_cassettes``, whose nbval run also compares their outputs; they
are left out here.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.binary_requirements import NOTEBOOK_CASSETTES
from helpers.hidden_binaries import copy_outside_checkout, hidden_environ
from helpers.paths import NOTEBOOKS as NOTEBOOK_DIR

NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.glob("*.ipynb") if p.name not in NOTEBOOK_CASSETTES)


@pytest.fixture(scope="module")
def no_binaries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a copy of codex_nb (and the MCP servers notebooks start) outside the checkout."""
    return copy_outside_checkout(tmp_path_factory.mktemp("site"))


def _hidden_env(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    hidden = hidden_environ(site)
    for name in set(os.environ) - set(hidden):
        monkeypatch.delenv(name)
    for name, value in hidden.items():
        monkeypatch.setenv(name, value)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_run_all_ends_with_no_error_when_the_binaries_are_missing(
    path: Path, no_binaries: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hidden_env(monkeypatch, no_binaries)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=True,
        store_widget_state=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = [
        (i, o.get("ename"), o.get("evalue"))
        for i, c in enumerate(notebook.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: Run All stopped with the binaries hidden: {errors}"
    unrun = [i for i, c in enumerate(notebook.cells) if c.cell_type == "code" and c.get("execution_count") is None]
    assert not unrun, f"{path.name}: cells that never ran: {unrun}"
    if path.name.startswith("06_"):
        text = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", []))
        assert "Skipped: this section needs the Codex binary" in text
