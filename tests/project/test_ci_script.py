"""The README's test command runs every step and fails at the end: a red first pytest run must
not skip the browser tests (``set -e`` did), and the summary names each step's result. Its two
lanes run side by side, keep each step's output, and stop together."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
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


def _lanes() -> dict[str, list[str]]:
    """Each lane function of .ci/test and its lines (continuations joined)."""
    text = (ROOT / ".ci" / "test").read_text().replace("\\\n", " ")
    return {
        m[1]: [line.strip() for line in m[2].splitlines() if line.strip()]
        for m in re.finditer(r"^(\w+)\(\) \{\n(.*?)^\}", text, re.M | re.S)
    }


def test_ci_test_runs_each_test_command_as_a_step():
    """Every line of .ci/test after the steps are loaded is a lane function, a `lane` call or
    `finish_steps`, and every line of a lane function is a `step`."""
    lines = (ROOT / ".ci" / "test").read_text().replace("\\\n", " ").splitlines()
    start = lines.index("source .ci/steps.sh")
    body = [line for line in lines[start + 1 :] if line.strip() and not line.lstrip().startswith("#")]
    commands = [
        line
        for line in body
        if not line.startswith(("export ", "  ", "trap ", "}")) and not re.match(r"\w+=|\w+\(\) \{$", line)
    ]
    lanes = _lanes()
    assert commands[-1] == "finish_steps"
    assert commands[:-1] == [f'lane {i} {name} "$@"' for i, name in enumerate(lanes, 1)], commands
    steps = [line for lane in lanes.values() for line in lane]
    assert all(line.startswith("step ") for line in steps), steps
    assert sum("python -m pytest" in line for line in steps) == 3
    # the folders of the pytest steps cover tests/ once: the kernel lane leaves out what another runs
    kernel = next(line for line in steps if "--ignore=tests/browser" in line)
    assert "--ignore=tests/acp_agents" in kernel and any("--slow tests/acp_agents" in line for line in steps)
    assert "--ignore=tests/kernel" in kernel and any("tests/acp_agents tests/kernel" in line for line in steps)
    assert any("pytest" in line and "tests/browser" in line for line in steps)
    # every test runs in CI: the ones marked slow too (a run over a folder leaves them out)
    assert all("--slow" in line for line in steps if "python -m pytest" in line)


def test_the_browser_tests_come_after_the_docs_build_in_their_lane():
    """The docs site's browser test reads build/site, which .ci/docs makes."""
    lane = next(lines for lines in _lanes().values() if any("--slow tests/browser" in line for line in lines))
    docs = next(i for i, line in enumerate(lane) if "bash .ci/docs" in line)
    assert docs < next(i for i, line in enumerate(lane) if "--slow tests/browser" in line)


def test_lanes_run_side_by_side_and_keep_each_steps_output(tmp_path):
    """Each lane's step waits for the other's file: only lanes running at once both finish."""
    body = """
one() { step "one" bash -c 'touch a; for i in $(seq 300); do [ -e b ] && exit 0; sleep 0.1; done; exit 9'; }
two() { step "two" bash -c 'for i in $(seq 300); do [ -e a ] && { echo the-second; touch b; exit 0; }; sleep 0.1; done; exit 9'
        step "three" bash -c 'echo broken; exit 4'; }
lane 1 one
lane 2 two
"""
    run = _run_steps(body, tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    summary = run.stdout[run.stdout.index("[test] summary") :]
    assert re.search(r"one\s+passed", summary) and re.search(r"two\s+passed", summary), run.stdout
    assert re.search(r"three\s+FAILED \(exit 4\)", summary)
    # every step's output is printed, the failed one last, and kept in build/test-logs
    outputs = run.stdout[: run.stdout.index("[test] summary")]
    assert outputs.index("the-second") < outputs.index("broken")
    assert (tmp_path / "build" / "test-logs" / "2-02.log").read_text() == "broken\n"


def test_stopping_the_run_stops_every_process_of_both_lanes(tmp_path):
    body = """
one() { step "one" bash -c 'echo $$ > one.pid; exec sleep 300'; }
two() { step "two" bash -c 'echo $$ > two.pid; exec sleep 300'; }
lane 1 one
lane 2 two
"""
    script = f"set -euo pipefail\nsource {ROOT / '.ci' / 'steps.sh'}\n{body}\nfinish_steps\n"
    run = subprocess.Popen(["bash", "-c", script], cwd=tmp_path, stdout=subprocess.DEVNULL)
    pids = []
    deadline = time.monotonic() + 30
    for name in ("one.pid", "two.pid"):
        while not (tmp_path / name).exists() or not (tmp_path / name).read_text().strip():
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)  # polling a file the steps write (nothing to wait on instead)
        pids.append(int((tmp_path / name).read_text()))
    run.send_signal(signal.SIGTERM)
    assert run.wait(timeout=30) == 130
    for pid in pids:
        deadline = time.monotonic() + 10
        while _alive(pid):
            assert time.monotonic() < deadline, f"step process {pid} outlived the run"
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # the process may end between the two looks
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.split(")")[-1].split()[0] != "Z"


def test_ci_test_gives_the_tests_a_home_of_their_own():
    """A developer's login profile (``bash -lc`` runs it for Codex's and the hooks' commands) and
    their ~/.codex stay out of the tests: HOME is a fresh directory exported before the first step."""
    text = (ROOT / ".ci" / "test").read_text()
    first_step = text.index("\n  step ")
    assert 'export CODEX_NB_DEVELOPER_HOME="$HOME" HOME="$test_home"' in text[:first_step]
    assert 'test_home="$(mktemp -d' in text[:first_step] and "trap 'rm -rf \"$test_home\"' EXIT" in text


def test_this_run_has_a_home_of_its_own_under_ci_test():
    developer_home = os.environ.get("CODEX_NB_DEVELOPER_HOME")
    if developer_home is None:
        pytest.skip("not started by .ci/test")
    home = Path(os.environ["HOME"])
    # .ci/test's HOME, or the lane's own folder in it
    assert home != Path(developer_home) and "codex_nb-test-home" in (home.name + home.parent.name)
    assert not (home / ".profile").exists() and not (home / ".bashrc").exists()


def test_ci_lint_is_a_step_of_ci_test_before_the_node_step():
    lint = ROOT / ".ci" / "lint"
    assert lint.is_file() and os.access(lint, os.X_OK)
    text = lint.read_text()
    assert "set -euo pipefail" in text and ".venv/bin/ruff check" in text and ".venv/bin/mypy" in text
    steps = [line.strip() for line in (ROOT / ".ci" / "test").read_text().splitlines() if line.startswith("  step ")]
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
