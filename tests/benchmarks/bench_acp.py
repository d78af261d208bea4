"""An ACP agent's burst of plan updates through cx.AcpAgent vs the bare SDK client.

Run: ``.venv/bin/python tests/benchmarks/bench_acp.py [--updates 1000] [--steps 20]``

The same agent process kind (tests/acp_agents/hostile_agent.py ``burst``) sends N plan
updates; the baseline is the official SDK's client receiving them and doing nothing; the
measured side is codex_nb's client: checked framing, mapping to ``plan_update`` events, the
event bus and a subscriber. Both are timed from sending ``session/prompt`` to its response
(every update delivered). Printed: both times, the ratio (target <= 1.2x), and whether the
cost per update stays flat from N/4 to N updates (no quadratic path).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import acp  # noqa: E402

import codex_nb as cx  # noqa: E402
from _report import report_figure  # noqa: E402

AGENT = Path(__file__).resolve().parents[1] / "acp_agents" / "hostile_agent.py"


class Silent:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        pass

    async def request_permission(self, **_: Any) -> Any:
        raise acp.RequestError.method_not_found("session/request_permission")


async def sdk_seconds(updates: int, steps: int) -> float:
    async with acp.spawn_agent_process(Silent(), sys.executable, str(AGENT)) as (conn, _process):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(Path.cwd()), mcp_servers=[])
        start = time.perf_counter()
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block(f"burst {updates} {steps}")])
        return time.perf_counter() - start


async def ours_seconds(updates: int, steps: int) -> float:
    async with cx.AcpAgent(sys.executable, [str(AGENT)]) as agent:
        session = await agent.new_session()
        plans: list[Any] = []
        session.subscribe(lambda e: plans.append(e) if e.msg.type == "plan_update" else None)
        start = time.perf_counter()
        await session.prompt(f"burst {updates} {steps}")
        elapsed = time.perf_counter() - start
        assert len(plans) == updates and plans[-1].revision == updates
        return elapsed


async def main(updates: int, steps: int) -> int:
    await ours_seconds(10, steps)  # warm imports and caches on both sides
    await sdk_seconds(10, steps)
    # Interleaved rounds, best of each: a busy neighbour (a 2-core machine) slows both sides alike.
    # Eleven rounds: one round's spread on a quiet machine is ~2x (the agent process and the
    # client share two cores), and the best of five left the ratio +-0.15 from run to run.
    bases, ourss = [], []
    for _ in range(11):
        bases.append(await sdk_seconds(updates, steps))
        ourss.append(await ours_seconds(updates, steps))
    base, ours = min(bases), min(ourss)
    quarter = min([await ours_seconds(updates // 4, steps) for _ in range(3)])
    ratio = ours / base
    growth = (ours / updates) / (quarter / (updates // 4))
    print(
        f"{updates} plan updates of {steps} steps: SDK client {base * 1000:.0f} ms, "
        f"cx.AcpAgent {ours * 1000:.0f} ms -> {ratio:.2f}x (target <= 1.2x)"
    )
    print(f"cost per update at {updates} vs {updates // 4} updates: {growth:.2f}x (flat is ~1x)")
    report_figure(
        f"ACP: {updates} plan updates through cx.AcpAgent vs the bare SDK client",
        f"{ratio:.2f}x ({ours * 1000:.0f} ms)",
        f"bare SDK client {base * 1000:.0f} ms",
        "<= 1.2x",
        ratio <= 1.2,
    )
    report_figure(
        f"ACP: cost per update, {updates} vs {updates // 4} updates",
        f"{growth:.2f}x",
        f"{updates // 4} updates",
        "flat (<= 2x)",
        growth <= 2,
    )
    return 0 if ratio <= 1.2 and growth <= 2 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--updates", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.updates, args.steps)))
