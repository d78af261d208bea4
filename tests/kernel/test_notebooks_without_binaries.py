"""Run All of every teaching notebook with no Codex, codex-acp or agent binary to be found: a cell
that needs an optional binary says in a sentence that it skipped, and the cells after it run (Run
All of notebook 06 once stopped at its real-Codex cell, so its later sections, which need no
binary, never ran). What ``bash .ci/lab`` gives a newcomer: the notebooks' extra and nothing else.

The binaries are hidden for real: codex_nb runs from a copy outside the checkout (so it finds no
pinned ``.codex-ref``/``.acp-agents`` folder beside it), the override variables are unset, and
every ``PATH`` folder holding one of the executables is left out.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXECUTABLES = ("codex", "codex-acp", "claude-agent-acp", "claude", "gemini")
OVERRIDES = ("CODEX_BIN", "CODEX_ACP_BIN", "CODEX_NB_CODEX_REF")


@pytest.fixture(scope="module")
def no_binaries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a copy of codex_nb (and the MCP servers notebooks start) outside the checkout."""
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(ROOT / "codex_nb", site / "codex_nb", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests" / "mcp_servers", site / "tests" / "mcp_servers")
    return site


def _hidden_env(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    for name in OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    folders = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    kept = [d for d in folders if not any((Path(d) / exe).exists() for exe in EXECUTABLES)]
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    monkeypatch.setenv("PYTHONPATH", str(site))
    for exe in EXECUTABLES:
        assert shutil.which(exe, path=os.pathsep.join(kept)) is None


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
