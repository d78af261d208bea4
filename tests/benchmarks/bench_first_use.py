"""First use: ``.venv/bin/python tests/benchmarks/bench_first_use.py [--runs N]``.

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
already paid the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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
        check=True,
        env=env,
        cwd=env["HOME"],
    )
    wall, cpu = json.loads(out.stdout.splitlines()[-1])
    return wall, cpu


def environment(scratch: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "pycache")
    env["HOME"] = os.path.join(scratch, "home")  # no ~/.codex or IPython profile of the person running it
    env["IPYTHONDIR"] = os.path.join(scratch, "ipython")
    os.makedirs(env["HOME"])
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-first-use-") as scratch:
        env = environment(scratch)
        found = subprocess.run(
            [sys.executable, "-c", "import codex_nb; print(codex_nb.__file__)"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=env["HOME"],
        ).stdout.strip()
        assert found.startswith(str(ROOT)), f"measuring {found}, not this checkout"
        for case in CASES:  # warm-up: writes the bytecode caches
            run(case, env)
        wall: dict[str, list[float]] = {case: [] for case in CASES}
        cpu: dict[str, list[float]] = {case: [] for case in CASES}
        for _ in range(args.runs):
            for case in CASES:
                w, c = run(case, env)
                wall[case].append(w)
                cpu[case].append(c)
    print(f"first use, {args.runs} fresh interpreters each, interleaved (ms; wall clock, CPU time):")
    for case in CASES:
        print(
            f"  {case:<10} wall best {min(wall[case]):6.1f} median {statistics.median(wall[case]):6.1f}"
            f"   cpu best {min(cpu[case]):6.1f} median {statistics.median(cpu[case]):6.1f}"
        )
    floor = statistics.median(wall["floor"])
    for case, label, goal in (
        ("session", "first cx.Session() (import + construct)", SESSION_GOAL),
        ("load_ext", "%load_ext codex_nb on a started IPython shell", LOAD_EXT_GOAL),
    ):
        median = statistics.median(wall[case]) / floor
        best = min(wall[case]) / min(wall["floor"])
        by_cpu = statistics.median(cpu[case]) / statistics.median(cpu["floor"])
        met = max(median, by_cpu) <= goal
        print(
            f"{label}: {median:.2f}x the floor (median wall), CPU {by_cpu:.2f}x, best of {args.runs} {best:.2f}x"
            f"   target <= {goal}x -> {'met' if met else 'NOT MET'}"
        )
        report_figure(
            label,
            f"{median:.2f}x wall, {by_cpu:.2f}x CPU ({statistics.median(wall[case]):.0f} ms)",
            f"floor: asyncio + pydantic + one model, {floor:.0f} ms",
            f"<= {goal}x",
            met,
        )
    own = statistics.median(wall["own share"])
    print(f"codex_nb's own share of the first Session() (after the floor, same interpreter): {own:.1f} ms median")
    own_cpu = statistics.median(cpu["own share"]) / statistics.median(cpu["floor"])
    report_figure(
        "first cx.Session(): codex_nb's own share",
        f"{own:.0f} ms ({own / floor:.2f}x wall, {own_cpu:.2f}x CPU)",
        f"floor {floor:.0f} ms",
        "-",
        None,
    )


if __name__ == "__main__":
    main()
