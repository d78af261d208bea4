"""Code Mode cost: a nested ``tools.X()`` call vs a direct dispatch plus one V8 round-trip.

Run: ``.venv/bin/python -m tests.benchmarks.bench_code_mode`` or ``pytest -m benchmark tests/benchmarks``.
Budget: nested <= 2 x (direct dispatch + one V8 round-trip). Isolate start-up is reported.
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
        startups = []
        for _ in range(10):
            cell = await runtime.start_cell("1", [], dispatch=_never)
            startups.append(cell.startup_seconds)
            await runtime.next_output(cell.cell_id, 1000)

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
        "direct_dispatch_s": direct,
        "v8_roundtrip_s": roundtrip,
        "nested_call_s": nested,
        "budget_s": 2 * (direct + roundtrip),
    }


async def _never(*_args: str) -> str:
    raise AssertionError("no nested calls expected")


def cx_entry(name: str):
    from codex_nb.code_mode.cell_manager import NestedToolEntry

    return NestedToolEntry(name=name, description="", kind="function")


def report(figures: dict[str, float]) -> str:
    rows = [f"{k:28s} {v * 1e3:9.3f} ms" for k, v in figures.items()]
    verdict = "OK" if figures["nested_call_s"] <= figures["budget_s"] else "OVER BUDGET"
    return "\n".join(
        [
            *rows,
            f"nested / (direct + round-trip) = "
            f"{figures['nested_call_s'] / (figures['budget_s'] / 2):.2f}x  -> {verdict}",
        ]
    )


@pytest.mark.benchmark
async def test_nested_call_within_budget():
    figures = await measure()
    print(report(figures))
    assert figures["nested_call_s"] <= figures["budget_s"]


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
