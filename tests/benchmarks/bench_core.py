"""Core benchmarks: run with `.venv/bin/python tests/benchmarks/bench_core.py`.

1. Full-pipeline ``update_plan`` dispatch vs bare ``UpdatePlanArgs.model_validate_json``
   on the same arguments, as a ratio, for a small and a large plan. The targets are the
   Benchmarks page's: <= 15x for 3 steps (a few microseconds of validation, so the fixed cost of
   the event, the lifecycle records and the guard dominates) and <= 3x for 50 steps.
2. ``ToolPlanner.plan()`` with 10 vs 10,000 registered tools, as a ratio (target <= 2x),
   steady state (same generation) and right after a registry change.

Ratios are measured in one run against a baseline in the same process, so they hold
on any machine; absolute times are printed for context only.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable

import codex_nb as cx
from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.tools.payload import Payload, ToolCall
from codex_nb.tools.names import ToolName
from codex_nb.tools.calls import run_call
from _report import report_figure


def best_of(fn: Callable[[], object], *, repeat: int = 7, number: int = 2000) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return min(samples)


async def abest_of(fn, *, repeat: int = 7, number: int = 2000) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            await fn()
        samples.append((time.perf_counter() - start) / number)
    return min(samples)


def plan_args(steps: int) -> str:
    statuses = ["completed", "in_progress", "pending"]
    return json.dumps(
        {
            "explanation": "Benchmark plan",
            "plan": [{"step": f"Step number {i} of the plan", "status": statuses[min(i, 2)]} for i in range(steps)],
        }
    )


async def dispatch_ratio(steps: int) -> tuple[float, float, float]:
    text = plan_args(steps)
    bare = best_of(lambda: UpdatePlanArgs.model_validate_json(text))
    session = cx.Session()
    turn = session._new_turn(cx.tools.ModeKind.DEFAULT)
    router = session.tool_plan().router
    call = ToolCall(tool_name=ToolName.of("update_plan"), call_id="bench", payload=Payload.function(text))

    async def one() -> None:
        await run_call(call, turn, router)

    full = await abest_of(one)
    return bare, full, full / bare


def planner_cost(count: int) -> tuple[float, float]:
    session = cx.Session()
    from codex_nb.tools.python_tool import PythonFunctionTool

    def make(i: int) -> PythonFunctionTool:
        def fn(x: int = 0) -> int:
            return x

        return PythonFunctionTool(fn, name=f"tool_{i}")

    session.registry.replace_source("bench", [make(i) for i in range(count)])
    session.tool_plan()
    steady = best_of(lambda: session.tool_plan(), number=5000)
    changes = []
    for i in range(5):
        session.registry.register(make(count + i), source="bench")
        start = time.perf_counter()
        session.tool_plan()
        changes.append(time.perf_counter() - start)
    return steady, statistics.median(changes)


async def main() -> int:
    failures = 0
    print("update_plan dispatch (full pipeline incl. cancellation race) vs bare model_validate_json")
    for steps, target in ((3, 15), (50, 3)):
        bare, full, ratio = await dispatch_ratio(steps)
        verdict = "ok" if ratio <= target else "OVER TARGET"
        failures += ratio > target
        print(
            f"  {steps:>3} steps: bare {bare * 1e6:8.1f} us  full {full * 1e6:8.1f} us  ratio {ratio:5.2f}x  "
            f"(target <= {target}x: {verdict})"
        )
        report_figure(
            f"update_plan dispatch, {steps}-step plan (bench_core) vs bare validation",
            f"{ratio:.2f}x",
            f"bare model_validate_json {bare * 1e6:.1f} us",
            f"<= {target}x",
            ratio <= target,
        )
    small_steady, small_change = planner_cost(10)
    big_steady, big_change = planner_cost(10_000)
    ratio = big_steady / small_steady
    failures += ratio > 2
    print("ToolPlanner.plan()")
    print(
        f"  steady state: 10 tools {small_steady * 1e6:.2f} us, 10,000 tools {big_steady * 1e6:.2f} us, "
        f"ratio {ratio:.2f}x (target <= 2x: {'ok' if ratio <= 2 else 'OVER TARGET'})"
    )
    report_figure(
        "ToolPlanner.plan(): 10,000 vs 10 tools (steady state)",
        f"{ratio:.2f}x",
        f"10 tools {small_steady * 1e6:.2f} us",
        "<= 2x",
        ratio <= 2,
    )
    print(
        f"  first plan after a registry change: 10 tools {small_change * 1e3:.3f} ms, "
        f"10,000 tools {big_change * 1e3:.3f} ms (rebuilds the specs once per generation)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
