"""Import time: `.venv/bin/python tests/benchmarks/bench_import.py [--runs N] [--baseline REV]`.

Each figure is read from ``python -X importtime`` in a fresh interpreter, the way a
person checking import cost would; rounds are interleaved so a busy neighbour slows every candidate alike:

1. ``import codex_nb``: the package's own cumulative line (target <= 150 ms).
2. ``import codex_nb; codex_nb.Session``: what a notebook's first cell pays, since most
   users touch ``Session`` at once (the lazy names load on that first attribute access).
3. ``cx.Session()``: the first construction, wall clock in a fresh interpreter without
   ``-X importtime`` (what is still imported or built then: pydantic validators, plugin scan).
4. The floor the session path stands on: ``import asyncio`` and one pydantic model class
   with a deferred schema, like codex_nb's (the event loop and pydantic's class machinery
   are not codex_nb's to cut).

Each in two modes: with bytecode caches (what an installed package sees; the caches go to a
temporary ``PYTHONPYCACHEPREFIX``, written by a warm-up run) and compiling codex_nb from
source on every start (``PYTHONDONTWRITEBYTECODE=1`` on an editable install, as on this
project's machines). The package is measured from a copy without ``__pycache__`` directories
(put first on ``PYTHONPATH``), so stray caches in the checkout cannot fake the second mode.
``--baseline REV`` measures that git revision's ``codex_nb`` (``git archive``) in the same
rounds, so a change is a before/after pair from one run. Then the modules with the most self time in the median
cached ``Session`` run, so a regression names its culprit. ``-X importtime`` inflates every
figure (it writes a line per module); the target applies to the best of ``--runs`` in both modes.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

from _report import report_figure

TARGET_MS = 150.0
ROOT = Path(__file__).resolve().parents[2]
MARK = "--bench-import-start--"
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")
IMPORT = "import codex_nb"
SESSION = "import codex_nb; codex_nb.Session"
FLOOR = "import asyncio\nfrom pydantic import BaseModel\nclass Floor(BaseModel, defer_build=True):\n    x: int"
FLOOR_LABEL = "floor: asyncio + one pydantic model"
CACHED, SOURCE = "bytecode cached", "from source"
CONSTRUCT = "first cx.Session() (wall clock)"
CONSTRUCT_CODE = (
    "import time, codex_nb as cx; cx.Session; start = time.perf_counter(); cx.Session(); "
    "print((time.perf_counter() - start) * 1000)"
)


def measure(statement: str, env: dict[str, str]) -> tuple[float, dict[str, int]]:
    """Milliseconds ``statement`` spends importing (the top-level lines after a marker, so the
    interpreter's own startup imports are not counted), and the self time per module in us."""
    code = f"import sys; sys.stderr.write({MARK!r} + '\\n'); sys.stderr.flush(); {statement}"
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=env["PYTHONPATH"],
    )
    _, found, tail = out.stderr.partition(MARK + "\n")
    assert found, out.stderr[-500:]
    total_us = 0
    self_us: dict[str, int] = {}
    for match in LINE.finditer(tail):
        own, cumulative, indent, name = match.groups()
        self_us[name] = int(own)
        if not indent:  # a top-level import of the statement: its cumulative holds its children
            total_us += int(cumulative)
    return total_us / 1000, self_us


def construct(env: dict[str, str]) -> float:
    out = subprocess.run(
        [sys.executable, "-c", CONSTRUCT_CODE],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=env["PYTHONPATH"],
    )
    return float(out.stdout.split()[-1])


def environments(cache: str, tree: str) -> dict[str, dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    base["PYTHONPATH"] = tree
    return {
        CACHED: {**base, "PYTHONPYCACHEPREFIX": cache},
        # no prefix here: the standard library and site-packages keep their installed caches
        SOURCE: {**base, "PYTHONDONTWRITEBYTECODE": "1"},
    }


def copy_checkout(into: str) -> str:
    shutil.copytree(ROOT / "codex_nb", Path(into) / "codex_nb", ignore=shutil.ignore_patterns("__pycache__"))
    return into


def extract(revision: str, into: str) -> str:
    archive = subprocess.run(["git", "archive", revision, "codex_nb"], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--baseline", help="a git revision to measure alongside this checkout")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-import-") as scratch:
        trees = {"this checkout": copy_checkout(os.path.join(scratch, "checkout"))}
        if args.baseline:
            trees[f"baseline {args.baseline}"] = extract(args.baseline, os.path.join(scratch, "baseline"))
        envs = {tree: environments(os.path.join(scratch, "pycache"), path) for tree, path in trees.items()}
        for path, tree_envs in zip(trees.values(), envs.values(), strict=True):
            found = subprocess.run(
                [sys.executable, "-c", "import codex_nb; print(codex_nb.__file__)"],
                check=True,
                capture_output=True,
                text=True,
                env=tree_envs[SOURCE],
                cwd=path,
            ).stdout.strip()
            assert found.startswith(path), f"{found} is not the copy in {path}"
            for statement in (IMPORT, SESSION, FLOOR):
                measure(statement, tree_envs[CACHED])  # writes the caches
        return report(args.runs, envs)


def report(runs: int, envs: dict[str, dict[str, dict[str, str]]]) -> float:
    labels = (IMPORT, SESSION, CONSTRUCT)
    candidates = [(tree, mode, label) for mode in (CACHED, SOURCE) for tree in envs for label in labels]
    statements = {IMPORT: IMPORT, SESSION: SESSION, FLOOR_LABEL: FLOOR}
    totals: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    session_self: list[dict[str, int]] = []
    here = next(iter(envs))
    for _ in range(runs):
        for mode in (CACHED, SOURCE):
            totals["", mode, FLOOR_LABEL].append(measure(FLOOR, envs[here][mode])[0])
        for tree, mode, label in candidates:
            if label == CONSTRUCT:
                totals[tree, mode, label].append(construct(envs[tree][mode]))
                continue
            total, self_us = measure(statements[label], envs[tree][mode])
            totals[tree, mode, label].append(total)
            if (tree, mode, label) == (here, CACHED, SESSION):
                session_self.append(self_us)
    print(f"python -X importtime, {runs} interpreters each, interleaved:")
    for mode in (CACHED, SOURCE):
        print(f" {mode}:")
        rows = [("", FLOOR_LABEL)] + [(tree, label) for tree in envs for label in labels]
        for tree, label in rows:
            values = totals[tree, mode, label]
            name = f"{tree}: {label}" if tree else label
            target = f"   target <= {TARGET_MS:.0f} ms" if label == IMPORT and tree == here else ""
            print(f"  {name:<58} best {min(values):6.1f} ms  median {statistics.median(values):6.1f} ms{target}")
    best = max(min(totals[here, mode, IMPORT]) for mode in (CACHED, SOURCE))
    verdict = "met" if best <= TARGET_MS else "NOT MET"
    print(f"import codex_nb: best {best:.1f} ms (the slower mode) vs target {TARGET_MS:.0f} ms -> {verdict}")
    cached, source = (min(totals[here, mode, IMPORT]) for mode in (CACHED, SOURCE))
    report_figure(
        f"import codex_nb (python -X importtime, best of {runs})",
        f"{cached:.1f} ms cached, {source:.1f} ms from source",
        "-",
        f"<= {TARGET_MS:.0f} ms",
        best <= TARGET_MS,
    )

    session = statistics.median(totals[here, CACHED, SESSION])
    modules = {name for run in session_self for name in run}
    median_self = {name: statistics.median(run.get(name, 0) for run in session_self) for name in modules}
    top = sorted(median_self.items(), key=lambda item: item[1], reverse=True)[:20]
    ours = sum(us for name, us in median_self.items() if name == "codex_nb" or name.startswith("codex_nb."))
    print(
        f"\ntop self time under `{SESSION}`, {CACHED} (median of {runs}; codex_nb's own modules "
        f"{ours / 1000:.1f} ms of {session:.1f}):"
    )
    for name, us in top:
        print(f"  {us / 1000:6.2f} ms  {name}")
    return best


if __name__ == "__main__":
    main()
