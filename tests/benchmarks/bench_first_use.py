"""First use: ``.venv/bin/python tests/benchmarks/bench_first_use.py [--runs N] [--baseline REV]``.

What a person waits for before codex_nb does anything, each in a fresh interpreter and against
a floor measured in the same rounds:

1. The first ``cx.Session()``: ``import codex_nb as cx; cx.Session()``, timed from before the
   import to the constructed session (target <= 1.3x the floor).
2. ``%load_ext codex_nb`` in a started IPython ``InteractiveShell``: the extension load alone,
   on top of the shell (target <= 1.5x the floor). It makes the kernel's default session, so it
   holds the first ``Session()`` too.
3. The floor: ``import asyncio``, ``import pydantic`` and one pydantic model built and used
   (``class Floor(BaseModel): x: int``; ``Floor(x=1)``). codex_nb stands on both; building the
   first model also runs pydantic's plugin scan (``importlib.metadata`` over the installed
   distributions), which codex_nb's first ``Config()`` pays as well, so both sides carry it.

Each statement is timed inside its interpreter (``time.perf_counter`` and ``time.process_time``
around it), so interpreter start-up is out of every figure. The three run interleaved, round
after round, so a busy neighbour slows each alike; bytecode caches are warm (written to a
temporary ``PYTHONPYCACHEPREFIX`` by a warm-up round), as for an installed package. A goal is
met when both the median wall-clock ratio and the median CPU-time ratio are within it: on an idle
machine the two agree (all of it is one thread's work), on a loaded one wall time mostly
measures the neighbours and CPU time is the steadier. The best-of-N wall ratio is printed beside
them. Then codex_nb's own share: the same import and ``Session()`` in an interpreter that has
already paid the floor. ``--baseline REV`` measures that git revision's ``codex_nb`` in the same
rounds (a before/after pair from one run).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _report import report_figure

ROOT = Path(__file__).resolve().parents[2]
SESSION_GOAL, LOAD_EXT_GOAL = 1.3, 1.5

TIMED = """
import json, time
{setup}
wall, cpu = time.perf_counter(), time.process_time()
{statement}
print(json.dumps([(time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000]))
"""
FLOOR = "import asyncio\nfrom pydantic import BaseModel\nclass Floor(BaseModel):\n    x: int\nFloor(x=1)"
CASES = {
    "floor": ("", FLOOR),
    "session": ("", "import codex_nb as cx\ncx.Session()"),
    "load_ext": (
        "from IPython.core.interactiveshell import InteractiveShell\nshell = InteractiveShell.instance()",
        "shell.run_line_magic('load_ext', 'codex_nb')",
    ),
    "own share": (FLOOR, "import codex_nb as cx\ncx.Session()"),
}


def run(case: str, env: dict[str, str]) -> tuple[float, float]:
    setup, statement = CASES[case]
    out = subprocess.run(
        [sys.executable, "-c", TIMED.format(setup=setup, statement=statement)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=env["HOME"],
    )
    assert out.returncode == 0, f"{case} with {env['PYTHONPATH']}: {out.stderr[-2000:]}"
    wall, cpu = json.loads(out.stdout.splitlines()[-1])
    return wall, cpu


def environment(scratch: str, tree: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPATH"] = tree  # this tree's codex_nb, not the editable install's
    env["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "pycache")
    env["HOME"] = os.path.join(scratch, "home")  # no ~/.codex or IPython profile of the person running it
    env["IPYTHONDIR"] = os.path.join(scratch, "ipython")
    os.makedirs(env["HOME"], exist_ok=True)
    return env


def extract(revision: str, into: str) -> str:
    """``codex_nb`` and ``js/`` of ``revision`` (an older extension builds its widgets' JS when it loads)."""
    archive = subprocess.run(["git", "archive", revision, "codex_nb", "js"], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def checked(env: dict[str, str]) -> dict[str, str]:
    found = subprocess.run(
        [sys.executable, "-c", "import codex_nb; print(codex_nb.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=env["HOME"],
    ).stdout.strip()
    assert found.startswith(env["PYTHONPATH"]), f"measuring {found}, not the tree in {env['PYTHONPATH']}"
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--baseline", help="a git revision to measure alongside this checkout")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-first-use-") as scratch:
        envs = {"": checked(environment(scratch, str(ROOT)))}
        if args.baseline:
            tree = extract(args.baseline, os.path.join(scratch, "baseline"))
            envs[f"baseline {args.baseline}: "] = checked(environment(scratch, tree))
        cases = [("", "floor")] + [(tree, case) for tree in envs for case in CASES if case != "floor"]
        for tree, case in cases:  # warm-up: writes the bytecode caches
            run(case, envs[tree])
        wall: dict[tuple[str, str], list[float]] = {key: [] for key in cases}
        cpu: dict[tuple[str, str], list[float]] = {key: [] for key in cases}
        for _ in range(args.runs):
            for tree, case in cases:
                w, c = run(case, envs[tree])
                wall[tree, case].append(w)
                cpu[tree, case].append(c)
    print(f"first use, {args.runs} fresh interpreters each, interleaved (ms; wall clock, CPU time):")
    for key in cases:
        name = key[0] + key[1]
        print(
            f"  {name:<32} wall best {min(wall[key]):6.1f} median {statistics.median(wall[key]):6.1f}"
            f"   cpu best {min(cpu[key]):6.1f} median {statistics.median(cpu[key]):6.1f}"
        )
    floor_wall, floor_cpu = statistics.median(wall["", "floor"]), statistics.median(cpu["", "floor"])
    for tree in envs:
        for case, label, goal in (
            ("session", "first cx.Session() (import + construct)", SESSION_GOAL),
            ("load_ext", "%load_ext codex_nb on a started IPython shell", LOAD_EXT_GOAL),
        ):
            median = statistics.median(wall[tree, case]) / floor_wall
            best = min(wall[tree, case]) / min(wall["", "floor"])
            by_cpu = statistics.median(cpu[tree, case]) / floor_cpu
            met = max(median, by_cpu) <= goal
            print(
                f"{tree}{label}: {median:.2f}x the floor (median wall), CPU {by_cpu:.2f}x, best of {args.runs} "
                f"{best:.2f}x   target <= {goal}x -> {'met' if met else 'NOT MET'}"
            )
            report_figure(
                tree + label,
                f"{median:.2f}x wall, {by_cpu:.2f}x CPU ({statistics.median(wall[tree, case]):.0f} ms)",
                f"floor: asyncio + pydantic + one model, {floor_wall:.0f} ms",
                f"<= {goal}x",
                met,
            )
        own = statistics.median(wall[tree, "own share"])
        own_cpu = statistics.median(cpu[tree, "own share"]) / floor_cpu
        print(f"{tree}codex_nb's own share of the first Session() (after the floor, same interpreter): {own:.1f} ms")
        report_figure(
            f"{tree}first cx.Session(): codex_nb's own share",
            f"{own:.0f} ms ({own / floor_wall:.2f}x wall, {own_cpu:.2f}x CPU)",
            f"floor {floor_wall:.0f} ms",
            "-",
            None,
        )


if __name__ == "__main__":
    main()
