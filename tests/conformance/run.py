"""Run the conformance corpus: ``python -m conformance.run [--record] [--live] [-k TEXT] [-v]``.

Default: play every scenario on codex_nb and compare with the observations recorded from
the pinned Codex in ``expected/``. ``--live`` also plays every scenario on the binary and
reports drift from the recording. ``--record`` re-records ``expected/`` from the binary
(with ``-k``, only the matching scenarios; every other recording stays).
Prints "scenarios passed X / N" and "field checks passed Y / M"; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import expected_store, observe_codex, observe_nb
from .compare import Check, compare
from .corpus import SCENARIOS
from .scenario import Scenario


def play_binary(scenarios: list[Scenario], jobs: int) -> dict[str, dict[str, Any]]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(observe_codex.observe, scenarios)
        return {s.name: r for s, r in zip(scenarios, results, strict=True)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", action="store_true", help="re-record expected/ from the binary")
    parser.add_argument("--live", action="store_true", help="also play the binary and report drift")
    parser.add_argument("-k", default="", help="only scenarios whose name contains TEXT")
    parser.add_argument("-j", type=int, default=3, help="binary scenarios run in parallel")
    parser.add_argument("-v", action="store_true", help="print every failing diff")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(errors="backslashreplace")  # diffs may hold lone surrogates
    scenarios = [s for s in SCENARIOS if args.k in s.name]
    started = time.monotonic()
    if args.record:
        observations = play_binary(scenarios, args.j)
        if args.k:  # a subset: the other recordings stay as they are
            expected_store.save_some(observations)
        else:
            expected_store.save_all(observations)
        print(
            f"recorded {len(observations)} scenarios into {expected_store.EXPECTED} "
            f"in {time.monotonic() - started:.0f}s"
        )
        return 0
    specs = expected_store.load_specs()
    expected = {s.name: expected_store.load(s.name, specs) for s in scenarios}
    missing = [n for n, e in expected.items() if e is None]
    failed = 0
    if args.live:
        live = play_binary(scenarios, args.j)
        drift = []
        for s in scenarios:
            if expected[s.name] is None:
                continue
            # drift: every field counts, but those the binary decides by timing
            plain = Scenario(name=s.name, responses=s.responses, skip=s.racy)
            bad = [c for c in compare(plain, live[s.name], expected[s.name]) if not c.ok]
            if bad:
                drift.append((s.name, bad))
        print(
            f"binary vs recording: {len(scenarios) - len(missing) - len(drift)} / {len(scenarios) - len(missing)} "
            f"scenarios unchanged"
        )
        for name, bad in drift:
            print(f"  DRIFT {name}: {', '.join(c.field for c in bad)}")
            if args.v:
                for c in bad:
                    print(c.diff)
        failed += len(drift)
    checks: list[Check] = []
    scenario_ok = 0
    for s in scenarios:
        if expected[s.name] is None:
            continue
        try:
            obs = observe_nb.observe(s)
        except Exception as exc:  # noqa: BLE001 - a crash is a failed scenario, reported
            checks.append(Check(s.name, "run", False, f"{type(exc).__name__}: {exc}"))
            continue
        these = compare(s, obs, expected[s.name])
        checks.extend(these)
        scenario_ok += all(c.ok for c in these)
    bad = [c for c in checks if not c.ok]
    for c in bad:
        print(f"FAIL {c.scenario}: {c.field}")
        if args.v:
            print(c.diff)
    passed_checks = sum(c.ok for c in checks)
    skipped = sum(bool(c.skipped) for c in checks)
    total = len(scenarios) - len(missing)
    print(f"scenarios passed {scenario_ok} / {total}")
    print(f"field checks passed {passed_checks} / {len(checks)} ({skipped} deliberate differences skipped)")
    if missing:
        print(f"{len(missing)} scenario(s) have no recording; run: bash .ci/conformance --record")
    print(f"conformance run took {time.monotonic() - started:.0f}s")
    return 1 if (bad or failed or missing) else 0


if __name__ == "__main__":
    sys.exit(main())
