"""Notebooks 07 (the real Codex), 10 (codex-acp), 11 (documentation tests), 13 (the real Codex
calling the kernel's notebook MCP server), 14 (three ACP agents) and 16 (the real Codex's rewind and
thread verbs) replay their committed cassettes under nbval with no
binary anywhere (``helpers.hidden_binaries``: codex_nb copied outside the checkout, no executable on
``PATH``; the Run All test of the other notebooks hides them the same way), and recording them again against the real binaries gives the outputs they store
(after the shipped sanitizer rules): the replay shows what the binaries show."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codex_nb.testing import NBVAL_SANITIZE
from helpers.binary_requirements import NOTEBOOK_CASSETTES, NOTEBOOK_NEEDS
from helpers.hidden_binaries import copy_outside_checkout, hidden_environ
from helpers.paths import NOTEBOOKS, ROOT, TESTS

pytestmark = pytest.mark.kernel


def _nbval(notebook: Path, tmp_path: Path, *, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    """nbval over ``notebook`` in a fresh HOME; with ``site``, codex_nb from there and no binary to find."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    child = {k: v for k, v in os.environ.items() if k not in ("CI", "CODEX_NB_RECORD_MODE")}
    child.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(TESTS)]), HOME=str(home))
    if site is not None:
        child = hidden_environ(site, child)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml")]
    command += ["--rootdir", str(notebook.parent), "-q", "-rs", "--nbval", "--nbval-current-env"]
    command += ["--nbval-sanitize-with", str(NBVAL_SANITIZE), str(notebook)]
    return subprocess.run(
        command, cwd=notebook.parent, env=child, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL
    )


def _cells(notebook: Path) -> int:
    import json

    return sum(c["cell_type"] == "code" for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"])


@pytest.fixture(scope="module")
def no_binaries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_outside_checkout(tmp_path_factory.mktemp("site"))


@pytest.mark.parametrize("name", sorted(NOTEBOOK_CASSETTES))
def test_the_committed_notebook_replays_its_cassette_without_the_binaries(
    name: str, no_binaries: Path, tmp_path: Path
) -> None:
    done = _nbval(NOTEBOOKS / name, tmp_path, site=no_binaries)
    assert done.returncode == 0 and f"{_cells(NOTEBOOKS / name)} passed" in done.stdout, done.stdout + done.stderr
    assert "skipped" not in done.stdout


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        pytest.param("07_real_codex.ipynb", "codex", marks=pytest.mark.requires_codex),
        pytest.param("10_any_agent.ipynb", "acp", marks=NOTEBOOK_NEEDS["10_any_agent.ipynb"]),
        pytest.param("11_docs_tests.ipynb", "codex", marks=pytest.mark.requires_codex),
        pytest.param("13_notebook_workspace.ipynb", "codex", marks=pytest.mark.requires_codex),
        pytest.param("14_many_agents.ipynb", "acp", marks=NOTEBOOK_NEEDS["14_many_agents.ipynb"]),
        pytest.param("16_rewind_and_threads.ipynb", "codex", marks=pytest.mark.requires_codex),
    ],
)
def test_recording_again_with_the_real_binary_gives_the_stored_outputs(name: str, marker: str, tmp_path: Path) -> None:
    work = tmp_path / "nb"
    (work / "cassettes").mkdir(parents=True)
    shutil.copyfile(NOTEBOOKS / name, work / name)
    cassette = work / NOTEBOOK_CASSETTES[name]
    recorded = _nbval(work / name, tmp_path)  # no cassette: the notebook records against the binary
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert cassette.is_file()
    replayed = _nbval(work / name, tmp_path)  # the new cassette replays to the same outputs
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
