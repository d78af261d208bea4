"""The nbval sanitizer rules codex_nb ships for agent notebooks (``codex_nb.testing.NBVAL_SANITIZE``):
nbval reads them, they mask what changes between runs of a real agent and nothing a notebook
teaches, and our own notebook run uses them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

from nbval.plugin import get_sanitize_patterns

from codex_nb.testing import NBVAL_SANITIZE
from helpers.paths import ROOT


def _sanitize(text: str) -> str:
    for regex, replace in get_sanitize_patterns(NBVAL_SANITIZE.read_text(encoding="utf-8")):
        text = re.sub(regex, replace, text)
    return text


def test_nbval_reads_every_rule_of_the_shipped_file() -> None:
    text = NBVAL_SANITIZE.read_text(encoding="utf-8")
    patterns = get_sanitize_patterns(text)
    assert len(patterns) == text.count("\nregex: ") == 16  # nbval drops a rule it cannot pair silently
    for regex, _replace in patterns:
        re.compile(regex)
    assert NBVAL_SANITIZE.parent.name == "testing" and NBVAL_SANITIZE.is_relative_to(ROOT / "codex_nb")


def test_what_changes_between_runs_is_masked_and_what_a_notebook_teaches_is_not() -> None:
    one = (
        "thread 01a234a6-d65c-7db3-9a73-946324ce575d, call call_Ab12Cd34Ef56 at 2026-12-02T02:47:59.099Z "
        "took 12.5 ms (pid 4242, <Session at 0x7f18abc>) in /tmp/tmpab12cd/notes.txt, "
        "/tmp/pytest-of-root/pytest-12/test_x0/a, startedAtMs 1796179679311, rollout-2026-12-02T02-47-58-x, "
        "url: http://127.0.0.1:42023/v1/responses, Context: 11,650 of 258,400 tokens (4%) · This turn: 46,007 · "
        "In all: 46,007, in all: 46007 tokens (45771 tokens in), goal: 12,952 of 100,000 tokens, Transcript: completed · Write hi into f.txt\n"
        "#0 · turn 01a24ea1-64…: 1/2 done"
    )
    two = (
        "thread 0b99ffff-0000-7aaa-8bbb-123456789abc, call call_Zz98Yy76Xx54 at 2027-01-31T23:59:01Z "
        "took 3 ms (pid 77, <Session at 0x55aa>) in /tmp/tmpzz99yy/notes.txt, "
        "/tmp/pytest-of-ci/pytest-7/test_x1/a, startedAtMs 1800000000000, rollout-2027-01-31T23-59-01-x, "
        "url: http://127.0.0.1:37159/v1/responses, Context: 11,664 of 258,400 tokens (4%) · This turn: 46,065 · "
        "In all: 46,065, in all: 46065 tokens (45829 tokens in), goal: 13,001 of 100,000 tokens, Transcript: completed\n"
        "#0 · turn 01a2504a-d5…: 1/2 done"
    )
    assert _sanitize(one) == _sanitize(two)
    assert "<TMP>/notes.txt" in _sanitize(one) and "<UUID>" in _sanitize(one)
    kept = "turn 1: completed | checklist revision: 3\n✔ Read the notes\nstop: interrupting\ncodex-acp 0.16.0"
    assert _sanitize(kept) == kept


def _notebook(output: str) -> dict:
    cell = {
        "cell_type": "code",
        "execution_count": 1,
        "id": "c1",
        "metadata": {},
        "outputs": [{"name": "stdout", "output_type": "stream", "text": [output]}],
        "source": ["import tempfile, time, uuid\n", "print(uuid.uuid4(), tempfile.mkdtemp(), time.time_ns() // 10**6)"],
    }
    meta = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return {"cells": [cell], "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def _nbval(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml")]
    command += ["--rootdir", str(path.parent), "-q", "--nbval", "--nbval-current-env", *extra, str(path)]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    return subprocess.run(
        command, cwd=path.parent, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
    )


def test_a_notebook_whose_ids_times_and_temp_paths_change_passes_nbval_with_the_rules(tmp_path: Path) -> None:
    stored = f"{uuid.uuid4()} /tmp/tmpRECORDED 1796179679311\n"  # what an earlier run printed
    path = tmp_path / "ids.ipynb"
    path.write_text(json.dumps(_notebook(stored)), encoding="utf-8")
    without = _nbval(path)
    assert without.returncode == 1 and "1 failed" in without.stdout, without.stdout + without.stderr
    with_rules = _nbval(path, "--nbval-sanitize-with", str(NBVAL_SANITIZE))
    assert with_rules.returncode == 0 and "1 passed" in with_rules.stdout, with_rules.stdout + with_rules.stderr


def test_our_notebook_run_uses_the_shipped_rules() -> None:
    text = (ROOT / ".ci" / "test").read_text(encoding="utf-8")
    assert "--nbval-sanitize-with codex_nb/testing/nbval_sanitize.cfg" in text
    assert (ROOT / "codex_nb/testing/nbval_sanitize.cfg").samefile(NBVAL_SANITIZE)
