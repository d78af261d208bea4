"""The README's test command runs every step and fails at the end: a red first pytest run must
not skip the browser tests (``set -e`` did), and the summary names each step's result."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from helpers.paths import ROOT


def _run_steps(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = f"set -euo pipefail\nsource {ROOT / '.ci' / 'steps.sh'}\n{body}\nfinish_steps\n"
    return subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)


def test_a_failed_step_does_not_skip_the_next_and_fails_the_run(tmp_path):
    run = _run_steps('step "first" false\nstep "second" touch ran-second', tmp_path)
    assert (tmp_path / "ran-second").exists(), run.stdout + run.stderr
    assert run.returncode == 1
    summary = run.stdout[run.stdout.index("[test] summary") :]
    assert re.search(r"first\s+FAILED \(exit 1\)", summary)
    assert re.search(r"second\s+passed in \d+s", summary)
    assert "[test] FAILED: at least one step failed" in summary


def test_every_step_passing_exits_zero(tmp_path):
    run = _run_steps('step "one" true\nstep "two" true', tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.rstrip().endswith("[test] every step passed")


def test_ci_test_runs_each_test_command_as_a_step():
    """Every line of .ci/test after the steps are loaded that runs a test tool is a `step`."""
    lines = (ROOT / ".ci" / "test").read_text().splitlines()
    start = lines.index("source .ci/steps.sh")
    body = [line for line in lines[start + 1 :] if line.strip() and not line.lstrip().startswith("#")]
    commands = [
        line for line in body if not line.startswith(("export ", "  ", "trap ")) and not re.match(r"\w+=", line)
    ]
    assert commands[-1] == "finish_steps"
    assert all(line.startswith("step ") for line in commands[:-1]), commands
    assert sum("python -m pytest" in line for line in body) == 2
    assert any("pytest" in line and "tests/browser" in line for line in body)
    # every test runs in CI: the ones marked slow too (a run over a folder leaves them out)
    assert all("--slow" in line for line in body if "python -m pytest" in line)


def test_ci_test_gives_the_tests_a_home_of_their_own():
    """A developer's login profile (``bash -lc`` runs it for Codex's and the hooks' commands) and
    their ~/.codex stay out of the tests: HOME is a fresh directory exported before the first step."""
    text = (ROOT / ".ci" / "test").read_text()
    first_step = text.index("\nstep ")
    assert 'export CODEX_NB_DEVELOPER_HOME="$HOME" HOME="$test_home"' in text[:first_step]
    assert 'test_home="$(mktemp -d' in text[:first_step] and "trap 'rm -rf \"$test_home\"' EXIT" in text


def test_this_run_has_a_home_of_its_own_under_ci_test():
    developer_home = os.environ.get("CODEX_NB_DEVELOPER_HOME")
    if developer_home is None:
        pytest.skip("not started by .ci/test")
    home = Path(os.environ["HOME"])
    assert home != Path(developer_home) and "codex_nb-test-home" in home.name
    assert not (home / ".profile").exists() and not (home / ".bashrc").exists()


def test_ci_lint_is_a_step_of_ci_test_before_the_node_step():
    lint = ROOT / ".ci" / "lint"
    assert lint.is_file() and os.access(lint, os.X_OK)
    text = lint.read_text()
    assert "set -euo pipefail" in text and ".venv/bin/ruff check" in text and ".venv/bin/mypy" in text
    steps = [line for line in (ROOT / ".ci" / "test").read_text().splitlines() if line.startswith("step ")]
    lint_step = steps.index('step "lint: ruff + mypy" bash .ci/lint')
    assert lint_step < next(i for i, line in enumerate(steps) if "node --test" in line)


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    ruff = ROOT / ".venv" / "bin" / "ruff"  # comes with the `test` extra
    if not ruff.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{ruff} is missing: .ci/setup installs it with the `test` extra")
        pytest.skip(f"{ruff} is not installed (pip install -e '.[test]' brings it)")
    return subprocess.run([str(ruff), *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_check_passes():
    """The tree stays clean under pyproject.toml's ruff rules."""
    run = _ruff("check", "--output-format", "concise")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_format_is_clean():
    """The tree is as `ruff format` writes it, so a diff shows only what a change meant."""
    run = _ruff("format", "--check", ".")
    assert run.returncode == 0, run.stdout + run.stderr
