"""Import time (issue 13, item 5): `.venv/bin/python tests/benchmarks/bench_import.py [runs]`.

Each figure is read from ``python -X importtime`` in a fresh interpreter, the way the
issue measures it; rounds are interleaved so a busy neighbour slows every statement alike:

1. ``import codex_nb``: the package's own cumulative line (target <= 150 ms).
2. ``import codex_nb; codex_nb.Session``: what a notebook's first cell pays, since most
   users touch ``Session`` at once (the lazy names load on that first attribute access).
3. The floor the session path stands on: ``import asyncio`` plus pydantic's ``BaseModel``
   (codex_nb's models and the event loop need them; they are not codex_nb's to cut).

Each in two modes: with bytecode caches (what an installed package sees; the caches go to a
temporary ``PYTHONPYCACHEPREFIX``, written by a warm-up run) and compiling codex_nb from
source on every start (``PYTHONDONTWRITEBYTECODE=1`` on an editable install, as on this
project's machines). Then the modules with the most self time in the median cached
``Session`` run, so a regression names its culprit. ``-X importtime`` inflates every figure
(it writes a line per module); best and median of ``runs`` interpreters are printed, the
target applies to the best in both modes.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

TARGET_MS = 150.0
MARK = "--bench-import-start--"
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")
STATEMENTS = {
    "import codex_nb": "import codex_nb",
    "import codex_nb; codex_nb.Session": "import codex_nb; codex_nb.Session",
    "floor: asyncio + pydantic.BaseModel": "import asyncio; from pydantic import BaseModel",
}


def measure(statement: str, env: dict[str, str]) -> tuple[float, dict[str, int]]:
    """Milliseconds ``statement`` spends importing (the top-level lines after a marker, so the
    interpreter's own startup imports are not counted), and the self time per module in us."""
    code = f"import sys; sys.stderr.write({MARK!r} + '\\n'); sys.stderr.flush(); {statement}"
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                         check=True, env=env)
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


def environments(cache: str) -> dict[str, dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    return {"bytecode cached": {**base, "PYTHONPYCACHEPREFIX": cache},
            # no prefix here: the standard library and site-packages keep their installed caches
            "from source": {**base, "PYTHONDONTWRITEBYTECODE": "1"}}


def main(runs: int = 9) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-import-") as cache:
        envs = environments(cache)
        for statement in STATEMENTS.values():
            measure(statement, envs["bytecode cached"])  # writes the caches
        return report(runs, envs)


def report(runs: int, envs: dict[str, dict[str, str]]) -> float:
    totals: dict[tuple[str, str], list[float]] = defaultdict(list)
    session_self: list[dict[str, int]] = []
    for _ in range(runs):
        for mode, env in envs.items():
            for label, statement in STATEMENTS.items():
                total, self_us = measure(statement, env)
                totals[mode, label].append(total)
                if mode == "bytecode cached" and statement.endswith("Session"):
                    session_self.append(self_us)
    width = max(map(len, STATEMENTS))
    print(f"python -X importtime, {runs} interpreters each, interleaved:")
    for mode in envs:
        print(f" {mode}:")
        for label in STATEMENTS:
            values = totals[mode, label]
            target = f"   target <= {TARGET_MS:.0f} ms" if label == "import codex_nb" else ""
            print(f"  {label:<{width}}  best {min(values):6.1f} ms  median {statistics.median(values):6.1f} ms{target}")
    best = max(min(totals[mode, "import codex_nb"]) for mode in envs)
    verdict = "met" if best <= TARGET_MS else "NOT MET"
    print(f"import codex_nb: best {best:.1f} ms (the slower mode) vs target {TARGET_MS:.0f} ms -> {verdict}")

    session = statistics.median(totals["bytecode cached", "import codex_nb; codex_nb.Session"])
    modules = {name for run in session_self for name in run}
    median_self = {name: statistics.median(run.get(name, 0) for run in session_self) for name in modules}
    top = sorted(median_self.items(), key=lambda item: item[1], reverse=True)[:20]
    ours = sum(us for name, us in median_self.items() if name == "codex_nb" or name.startswith("codex_nb."))
    print(f"\ntop self time under `import codex_nb; codex_nb.Session`, bytecode cached (median of {runs}; "
          f"codex_nb's own modules {ours / 1000:.1f} ms of {session:.1f}):")
    for name, us in top:
        print(f"  {us / 1000:6.2f} ms  {name}")
    return best


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
