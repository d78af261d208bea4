"""``cx.compare`` with three agents vs the slowest of them alone.

Run: ``.venv/bin/python tests/benchmarks/bench_compare.py [--runs 7] [--latency 0.02]``

Agents spend their time waiting for their model; ``cx.compare`` should add little to the slowest
one's time. Three ``cx.Session`` s run on scripted models that answer each request after
``latency`` seconds (a model's time to answer) with a plan revision and a tool call, 10, 20 and 30
steps long. The baseline is the slowest agent alone, shown as a notebook shows one agent (its
``TurnControls``, ``PlanChecklist``, ``Transcript`` and plan timeline, on recording comms as
without a kernel), timed from building its views to the end of its turn. The measured side is ``cx.compare`` of all three, with its views. A second
figure compares ``cx.compare`` with the three turns started and gathered by hand, same widgets.
Goal: compare / slowest alone <= 1.10 (the median over runs).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import codex_nb as cx  # noqa: E402
from _report import report_figure  # noqa: E402
from codex_nb.timeline import PlanTimeline  # noqa: E402
from codex_nb.widgets.testing import recording_comms  # noqa: E402
from codex_nb.widgets.timeline import PlanTimelineWidget  # noqa: E402

GOAL = 1.10
STEPS = (10, 20, 30)


def model(steps: int, latency: float) -> cx.ScriptedModel:
    def answer(items: list[Any]) -> Any:
        async def respond(_request: Any) -> list[Any]:
            await asyncio.sleep(latency)
            return items

        return respond

    script: list[Any] = []
    for i in range(steps):
        plan = [{"step": f"step {j}", "status": "completed" if j < i else "in_progress"} for j in range(i + 1)]
        script.append(answer([cx.function_call("update_plan", {"plan": plan})]))
        script.append(answer([cx.function_call("note", {"text": f"step {i}"})]))
    script.append(answer([cx.assistant_message("Done.")]))
    return cx.ScriptedModel(script)


def agent() -> cx.Session:
    session = cx.Session()

    @session.tool
    def note(text: str) -> str:
        """Note the text."""
        return text

    return session


def views(source: Any) -> list[Any]:
    return [
        cx.TurnControls(source),
        cx.PlanChecklist(source),
        cx.Transcript(source),
        PlanTimelineWidget(PlanTimeline(source)),
    ]


async def alone(latency: float) -> float:
    session = agent()
    start = time.perf_counter()  # from building the views, as cx.compare builds its own
    with recording_comms():
        shown = views(session)
    result = await session.start_turn("Go", model=model(max(STEPS), latency))
    elapsed = time.perf_counter() - start
    assert result.status == "completed", result.error
    for view in shown:
        view.close()
    return elapsed


async def by_hand(latency: float) -> float:
    sessions = [agent() for _ in STEPS]
    start = time.perf_counter()
    with recording_comms():
        shown = [view for session in sessions for view in views(session)]
    handles = [s.start_turn("Go", model=model(n, latency)) for s, n in zip(sessions, STEPS, strict=True)]
    results = await asyncio.gather(*handles)
    elapsed = time.perf_counter() - start
    assert all(r.status == "completed" for r in results)
    for view in shown:
        view.close()
    return elapsed


async def compared(latency: float) -> float:
    sources = {f"agent {n}": (agent(), model(n, latency)) for n in STEPS}
    with recording_comms():
        start = time.perf_counter()
        comparison = cx.compare(sources, "Go", views=True)
        runs = await comparison
        elapsed = time.perf_counter() - start
    assert all(r.status == "completed" for r in runs.values()), comparison.text()
    assert runs[f"agent {max(STEPS)}"].plan_revisions == max(STEPS)
    comparison.close()
    return elapsed


async def main(runs: int, latency: float) -> None:
    await alone(latency)  # warm: first use of the runtime and the widgets
    await compared(latency)
    times: dict[str, list[float]] = {"alone": [], "by hand": [], "compare": []}
    for _ in range(runs):  # interleaved, so the machine's load changes hit all three alike
        times["alone"].append(await alone(latency))
        times["by hand"].append(await by_hand(latency))
        times["compare"].append(await compared(latency))
    median = {k: statistics.median(v) for k, v in times.items()}
    print(f"{runs} runs, model latency {latency * 1000:.0f} ms per request, agents of {STEPS} steps")
    for name, values in times.items():
        print(
            f"  {name:8} median {median[name] * 1000:7.1f} ms  (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f})"
        )
    ratio = median["compare"] / median["alone"]
    print(f"cx.compare of 3 / the slowest alone: {ratio:.3f}x (goal <= {GOAL:.2f}x)")
    print(f"cx.compare of 3 / the same 3 turns by hand: {median['compare'] / median['by hand']:.3f}x")
    report_figure(
        "cx.compare 3 agents / slowest alone",
        f"{ratio:.2f}x",
        f"{median['alone'] * 1000:.0f} ms",
        f"<= {GOAL}x",
        ratio <= GOAL,
    )
    report_figure(
        "cx.compare 3 agents / 3 turns by hand",
        f"{median['compare'] / median['by hand']:.2f}x",
        f"{median['by hand'] * 1000:.0f} ms",
        "-",
        None,
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--latency", type=float, default=0.02)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.latency))
