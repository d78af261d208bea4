"""``requires_codex`` / ``requires_acp_agent``: skipped with the reason on a laptop without the
binaries, a failure in CI. Proven on a real pytest run in a subprocess, with the project's own
pytest settings (markers, ``--strict-markers``, warnings as errors) and the binaries pointed at
a path that does not exist, the way a machine without them looks to the resolvers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import binary_requirements
from helpers.paths import ROOT as REPO
from helpers.paths import TESTS

TINY = """
import pytest


@pytest.mark.requires_codex
def test_needs_codex():
    pass


@pytest.mark.requires_acp_agent
def test_needs_acp_agent():
    pass


def test_needs_nothing():
    pass
"""


def run_tiny(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_tiny.py").write_text(TINY)
    child_env = {k: v for k, v in os.environ.items() if k not in ("CI", "CODEX_BIN", "CODEX_ACP_BIN")}
    child_env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]), **env)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "helpers.binary_requirements"]
    command += ["-c", str(REPO / "pyproject.toml"), "--rootdir", str(tmp_path), "-q", str(tmp_path / "test_tiny.py")]
    return subprocess.run(
        command, cwd=tmp_path, env=child_env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


def missing(tmp_path: Path) -> dict[str, str]:
    return {"CODEX_BIN": str(tmp_path / "absent" / "codex"), "CODEX_ACP_BIN": str(tmp_path / "absent" / "codex-acp")}


def test_a_missing_binary_skips_with_what_is_missing_and_how_to_install_it(tmp_path: Path) -> None:
    done = run_tiny(tmp_path, **missing(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 2 skipped" in done.stdout, done.stdout
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    codex = next(line for line in skips if "requires_codex:" in line)
    acp = next(line for line in skips if "requires_acp_agent:" in line)
    assert f"CODEX_BIN={tmp_path / 'absent' / 'codex'} does not exist" in codex
    assert "`npm install @openai/codex@" in codex and "bash .ci/setup" in codex
    assert f"CODEX_ACP_BIN={tmp_path / 'absent' / 'codex-acp'} does not exist" in acp
    assert "`npm install @zed-industries/codex-acp@" in acp and "bash .ci/setup" in acp


@pytest.mark.parametrize("ci", ["true"])
def test_in_ci_a_missing_binary_fails_the_run(tmp_path: Path, ci: str) -> None:
    done = run_tiny(tmp_path, CI=ci, **missing(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped" not in done.stdout, done.stdout
    assert "1 passed, 2 errors" in done.stdout, done.stdout
    assert "requires_codex: CODEX_BIN=" in done.stdout and "requires_acp_agent: CODEX_ACP_BIN=" in done.stdout
    assert "CI is set: a missing binary fails the run instead of skipping" in done.stdout


@pytest.mark.requires_codex
@pytest.mark.requires_acp_agent
def test_with_the_binaries_present_the_marked_tests_run(tmp_path: Path) -> None:
    done = run_tiny(tmp_path, CI="true")
    assert done.returncode == 0 and "3 passed" in done.stdout, done.stdout + done.stderr


NOTEBOOK_CONFTEST = """
from helpers.binary_requirements import mark_notebooks


def pytest_collection_modifyitems(items):
    mark_notebooks(items)
"""


def run_notebook(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """nbval on a one-cell notebook named like the committed one that needs Codex."""
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "id": "c1",
        "metadata": {},
        "outputs": [],
        "source": ["x = 1"],
    }
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "07_real_codex.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "conftest.py").write_text(NOTEBOOK_CONFTEST)
    child_env = {k: v for k, v in os.environ.items() if k not in ("CI", "CODEX_BIN", "CODEX_ACP_BIN")}
    child_env.update(PYTHONPATH=os.pathsep.join([str(REPO), str(TESTS)]), **missing(tmp_path), **env)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(REPO / "pyproject.toml")]
    command += ["--rootdir", str(tmp_path), "-q", "--nbval", str(tmp_path / "07_real_codex.ipynb")]
    return subprocess.run(
        command, cwd=tmp_path, env=child_env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )


def test_nbval_skips_a_notebook_that_needs_a_missing_binary_but_not_in_ci(tmp_path: Path) -> None:
    done = run_notebook(tmp_path)
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout + done.stderr
    assert "requires_codex: CODEX_BIN=" in done.stdout and "bash .ci/setup" in done.stdout
    # in CI the cells run (the real notebook then fails on the missing binary, as it should)
    done = run_notebook(tmp_path, CI="true")
    assert "skipped" not in done.stdout and "1 passed" in done.stdout, done.stdout + done.stderr


def test_the_suite_uses_these_hooks(request: pytest.FixtureRequest) -> None:
    conftests = [
        plugin
        for plugin in request.config.pluginmanager.get_plugins()
        if Path(getattr(plugin, "__file__", "") or "") == TESTS / "conftest.py"
    ]
    assert [c.pytest_runtest_setup for c in conftests] == [binary_requirements.pytest_runtest_setup]
    assert [c.mark_notebooks for c in conftests] == [binary_requirements.mark_notebooks]
