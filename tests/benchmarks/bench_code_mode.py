"""Code Mode cost: a nested ``tools.X()`` call vs a direct dispatch plus one V8 round-trip.

Run: ``.venv/bin/python -m tests.benchmarks.bench_code_mode`` or ``pytest -m benchmark tests/benchmarks``.
Budget: nested <= 2 x (direct dispatch + one V8 round-trip). Isolate start-up (a cell's fresh V8
context with the Code Mode prelude) is measured against a bare mini-racer context evaluating the same
prelude, interleaved in one run: budget <= 1.5x (the floor is V8's own context creation).
"""

from __future__ import annotations

import asyncio
import statistics
import time

import pytest

import codex_nb as cx
from codex_nb.config.code_mode import CodeModeSettings
from codex_nb.config import Config

N = 200


async def measure() -> dict[str, float]:
    session = cx.Session(Config(code_mode=CodeModeSettings(enabled=True)))

    @session.tool
    async def echo(text: str) -> str:
        "Echo the text back."
        return text

    runtime = session.planner.finalizers[0].runtime(session.config.code_mode)
    try:
        started = time.perf_counter()
        await session.call_tool("exec", "text(1)")
        first_exec = time.perf_counter() - started
        startups, bare_startups = [], []
        for _ in range(15):
            cell = await runtime.start_cell("1", [], dispatch=_never)
            startups.append(cell.startup_seconds)
            await runtime.next_output(cell.cell_id, 1000)
            bare_startups.append(_bare_context_startup())

        started = time.perf_counter()
        for i in range(N):
            await session.call_tool("echo", {"text": str(i)})
        direct = (time.perf_counter() - started) / N

        # one V8 round-trip: a nested call whose host side does nothing (no pipeline)
        async def bare(_cell: str, _tool: str, payload: str) -> str:
            return payload

        entries = [cx_entry("echo")]
        src = f"for (let i = 0; i < {N}; i++) await tools.echo({{text: String(i)}}); text('ok')"
        cell = await runtime.start_cell(src, entries, dispatch=bare)
        started = time.perf_counter()
        await runtime.next_output(cell.cell_id, 60_000)
        roundtrip = (time.perf_counter() - started) / N

        result = await session.call_tool("exec", src)
        assert "ok" in str(result.item["output"]), result.item
        started = time.perf_counter()
        await session.call_tool("exec", src)
        nested = (time.perf_counter() - started) / N
    finally:
        session.planner.finalizers[0].close()
    return {
        "first_exec_s": first_exec,
        "isolate_startup_median_s": statistics.median(startups),
        "bare_context_prelude_median_s": statistics.median(bare_startups),
        "direct_dispatch_s": direct,
        "v8_roundtrip_s": roundtrip,
        "nested_call_s": nested,
        "budget_s": 2 * (direct + roundtrip),
    }


def _bare_context_startup() -> float:
    """A plain mini-racer context evaluating the same prelude (no signal, no tools): the floor."""
    from py_mini_racer import MiniRacer

    from codex_nb.code_mode.host import PRELUDE

    prelude = (
        PRELUDE.replace("__CX_SIGNAL__", "(() => {})")
        .replace("__CX_TOOLS__", "[]")
        .replace("__CX_STORE__", "{}")
        .replace("__CX_MEMORY_LIMIT__", "0")
    )
    started = time.perf_counter()
    ctx = MiniRacer()
    ctx.eval(prelude)
    elapsed = time.perf_counter() - started
    ctx.close()
    return elapsed


async def _never(*_args: str) -> str:
    raise AssertionError("no nested calls expected")


def cx_entry(name: str):
    from codex_nb.code_mode.cell_manager import NestedToolEntry

    return NestedToolEntry(name=name, description="", kind="function")


def report(figures: dict[str, float]) -> str:
    rows = [f"{k:28s} {v * 1e3:9.3f} ms" for k, v in figures.items()]
    verdict = "OK" if figures["nested_call_s"] <= figures["budget_s"] else "OVER BUDGET"
    startup = figures["isolate_startup_median_s"] / figures["bare_context_prelude_median_s"]
    return "\n".join(
        [
            *rows,
            f"nested / (direct + round-trip) = "
            f"{figures['nested_call_s'] / (figures['budget_s'] / 2):.2f}x  -> {verdict}",
            f"cell start-up / bare context with the prelude = {startup:.2f}x (target <= 1.5x) "
            f"-> {'OK' if startup <= 1.5 else 'OVER BUDGET'}",
        ]
    )


@pytest.mark.benchmark
async def test_nested_call_within_budget():
    figures = await measure()
    print(report(figures))
    assert figures["nested_call_s"] <= figures["budget_s"]
    assert figures["isolate_startup_median_s"] <= 1.5 * figures["bare_context_prelude_median_s"]


def report_figures(figures: dict[str, float]) -> None:
    from _report import report_figure

    nested = figures["nested_call_s"] / (figures["budget_s"] / 2)
    report_figure(
        "Code Mode: nested tools.X() vs direct dispatch + one V8 round-trip",
        f"{nested:.2f}x ({figures['nested_call_s'] * 1e3:.3f} ms)",
        f"direct + round-trip {figures['budget_s'] / 2 * 1e3:.3f} ms",
        "<= 2x",
        figures["nested_call_s"] <= figures["budget_s"],
    )
    startup = figures["isolate_startup_median_s"] / figures["bare_context_prelude_median_s"]
    report_figure(
        "Code Mode: cell start-up vs bare mini-racer context + prelude",
        f"{startup:.2f}x ({figures['isolate_startup_median_s'] * 1e3:.1f} ms)",
        f"bare context + prelude {figures['bare_context_prelude_median_s'] * 1e3:.1f} ms",
        "<= 1.5x",
        startup <= 1.5,
    )


if __name__ == "__main__":
    figures = asyncio.run(measure())
    print(report(figures))
    report_figures(figures)
