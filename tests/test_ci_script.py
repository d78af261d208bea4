"""The README's test command runs every step and fails at the end: a red first pytest run must
not skip the browser tests (``set -e`` did), and the summary names each step's result."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run_steps(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = f"set -euo pipefail\nsource {ROOT / '.ci' / 'steps.sh'}\n{body}\nfinish_steps\n"
    return subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)


def test_a_failed_step_does_not_skip_the_next_and_fails_the_run(tmp_path):
    run = _run_steps('step "first" false\nstep "second" touch ran-second', tmp_path)
    assert (tmp_path / "ran-second").exists(), run.stdout + run.stderr
    assert run.returncode == 1
    summary = run.stdout[run.stdout.index("[test] summary"):]
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
    body = [line for line in lines[start + 1:] if line.strip() and not line.lstrip().startswith("#")]
    commands = [line for line in body if not line.startswith(("export ", "  "))]
    assert commands[-1] == "finish_steps"
    assert all(line.startswith("step ") for line in commands[:-1]), commands
    assert sum("python -m pytest" in line for line in body) == 2
    assert any("pytest" in line and "tests/browser" in line for line in body)
