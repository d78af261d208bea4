"""Plan updates to a checklist through cx.AcpAgent vs the bare SDK client, on the four real agents.

Run: ``.venv/bin/python tests/benchmarks/bench_acp_agents.py [--updates 12] [--rounds 11] [--agents codex-acp ...]``

Each of the agent suite's pinned agents (``codex_nb.testing.acp_agents``: codex-acp,
claude-agent-acp, Gemini CLI, Qwen Code), offline against its local model stand-in, runs turns in which the scripted model
makes ``updates`` plan tool calls in a row (Codex ``update_plan``, Claude ``TodoWrite``, Gemini
``write_todos``, Qwen Code ``todo_write``; each one a model request) and then answers. The baseline is the official ACP SDK
client (``acp.connect_to_agent``) doing nothing with the updates; the measured side is
``cx.AcpAgent`` with a ``cx.PlanChecklist`` of the session (recording comms, as without a
kernel). Both are timed from ``session/prompt`` to its response, in interleaved rounds (baseline,
measured, ...), each side with its own agent process (started once, with the same environment; a
new session each round) and its own stand-in server in a process of its own. Printed per agent:
the best round of each side and their ratio (goal <= 1.2x; the agent and its model's round trips
are most of either side's time, and on 2 shared cores the rounds spread widely, so the medians are
printed too), and codex_nb's own CPU per plan update: this process's CPU time in a measured round
minus that in the baseline round before it, the median over rounds, divided by ``updates`` (and
the SDK client's own CPU per update beside it).
An agent that is not installed is skipped with a one-line reason.

Gemini CLI 0.61 sends no ACP plan (docs/agents.md): its ``write_todos`` reaches the client as a
tool call asking permission, so its row measures those tool calls and permission answers, and the
checklist stays empty; the row says so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests" / "acp_agents"))

import acp  # noqa: E402
from acp.schema import AllowedOutcome, ClientCapabilities, FileSystemCapabilities, RequestPermissionResponse  # noqa: E402

import codex_nb as cx  # noqa: E402
from _report import report_figure  # noqa: E402
from codex_nb._process import spawn  # noqa: E402
from codex_nb.acp.agent_process import STREAM_LIMIT  # noqa: E402
from codex_nb.testing.acp_agents import ACP_AGENTS, AcpAgentNotFound, acp_agent  # noqa: E402
from codex_nb.widgets.testing import recording_comms  # noqa: E402
from dialects import DIALECTS  # noqa: E402

GOAL = 1.2
TIMEOUT = 120
PLAN_UPDATES = {"codex-acp": True, "claude-agent-acp": True, "gemini-cli": False, "qwen-code": True}
"""Whether the agent turns its plan tool into ACP plan updates (tests/acp_agents/test_agents.py EXPECTED)."""


def plan(revision: int, steps: int) -> list[tuple[str, str]]:
    """The ``revision``-th plan of a turn (from 0): the steps before it completed, its own in progress."""
    status = {True: "completed", False: "pending"}
    return [(f"Step {j + 1}", "in_progress" if j == revision else status[j < revision]) for j in range(steps)]


def turn_script(agent: str, updates: int) -> list[Any]:
    """One turn's model answers: ``updates`` plan tool calls (an ``updates``-step plan, one more step
    done each time), then a final text."""
    say = DIALECTS[agent]
    return [say["plan"](plan(i, updates)) for i in range(updates)] + [say["text"]("Done.")]


class Silent:
    """The bare SDK client: nothing done with an update; a permission (Gemini CLI's todo tool) allowed once."""

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        pass

    async def request_permission(self, options: Any, session_id: str, tool_call: Any, **_: Any) -> Any:
        chosen = next(o.option_id for o in options if o.kind == "allow_once")
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))


def allow_once(request: Any) -> dict[str, str]:
    """codex_nb's person choosing allow once (by option kind: each agent labels it its own way)."""
    options = request.msg.questions[0].options
    return {"permission": next(o.label for o in options if o.description == "allow_once")}


def serve(agent: str, updates: int, turns: int, home: Path, pipe: Any) -> None:
    """The stand-in model server, in a process of its own (run by ``ServerProcess``).

    In the benchmark's process its thread would take the GIL from the client being measured, and
    each model answer would wait on the client's work: a real model is elsewhere. Sends the agent's
    env, then answers each ``"count"`` with the scripted requests made and the failures, until ``"close"``."""
    spec = acp_agent(agent)
    script = [entry for _ in range(turns) for entry in turn_script(agent, updates)]
    server = spec.server(script).start()
    try:
        pipe.send(spec.env(server, home))
        while pipe.recv() == "count":
            pipe.send((len(server.requests), list(server.failures)))
    finally:
        server.close()


class ServerProcess:
    def __init__(self, agent: str, updates: int, turns: int, home: Path) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=serve, args=(agent, updates, turns, home, theirs), daemon=True)
        self.process.start()

    async def env(self) -> dict[str, str]:
        return await asyncio.wait_for(asyncio.to_thread(self.pipe.recv), TIMEOUT)

    def count(self) -> tuple[int, list[str]]:
        self.pipe.send("count")
        return self.pipe.recv()  # type: ignore[no-any-return]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.pipe.send("close")
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class Side:
    """One side of an agent's rounds: its own stand-in server and agent process, started once."""

    def __init__(self, agent: str, updates: int, turns: int, home: Path) -> None:
        self.agent, self.updates, self.home = agent, updates, home
        self.command = acp_agent(agent).command()
        self.server = ServerProcess(agent, updates, turns, home / "home")
        self.turns = 0

    def work(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="work-", dir=self.home))

    async def timed(self, prompt: Any) -> tuple[float, float]:
        """Wall and process CPU seconds from sending ``session/prompt`` to its response; then a check
        that the turn made every scripted model request (the agent did not stop early)."""
        cpu, start = time.process_time(), time.perf_counter()
        await asyncio.wait_for(prompt, TIMEOUT)
        took = time.perf_counter() - start, time.process_time() - cpu
        self.turns += 1
        (made, failures), expected = self.server.count(), self.turns * (self.updates + 1)
        assert made == expected and not failures, (
            f"{self.agent}: {made} model requests after {self.turns} turns, not {expected}; {failures}"
        )
        return took


class Baseline(Side):
    child: Any = None
    conn: Any = None

    async def start(self) -> None:
        # the environment cx.AcpAgent gives its agent: this process's, then the agent's own. With the
        # agent's own only, codex-acp's turns were faster than cx.AcpAgent's (RUST_BACKTRACE=1 in
        # this machine's environment looked like the cause), and the ratio measured the environments
        env = {**os.environ, **await self.server.env()}
        # started as codex_nb starts agents (its own process group, below the supervisor) so that it
        # ends with everything it started: the SDK's spawn_agent_process leaves that to the caller
        self.child = await spawn(self.command, env=env, limit=STREAM_LIMIT)
        self.conn = acp.connect_to_agent(Silent(), self.child.stdin, self.child.stdout)  # type: ignore[arg-type]
        await asyncio.wait_for(
            self.conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                # what cx.AcpAgent offers too (the agents choose their tools by it)
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
                ),
            ),
            TIMEOUT,
        )

    async def round(self) -> tuple[float, float]:
        session = await self.conn.new_session(cwd=str(self.work()), mcp_servers=[])
        prompt = self.conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Plan it")])
        return await self.timed(prompt)

    async def close(self) -> None:
        try:
            if self.conn is not None:
                await asyncio.wait_for(self.conn.close(), 5)
        finally:
            if self.child is not None:
                await self.child.end()
            self.server.close()


class Measured(Side):
    agent_client: Any = None

    async def start(self) -> None:
        self.agent_client = cx.AcpAgent(
            self.command[0], self.command[1:], env=await self.server.env(), startup_timeout=60
        )
        await self.agent_client.__aenter__()

    async def round(self) -> tuple[float, float]:
        session = await self.agent_client.new_session(self.work())
        session.answer_policy = allow_once
        with recording_comms():
            checklist = cx.PlanChecklist(session)
        took = await self.timed(session.prompt("Plan it"))
        expected = self.updates if PLAN_UPDATES[self.agent] else None
        assert checklist.revision == expected, f"the checklist shows revision {checklist.revision}, not {expected}"
        checklist.close()
        return took

    async def close(self) -> None:
        try:
            if self.agent_client is not None:
                await self.agent_client.aclose()
        finally:
            self.server.close()


async def bench(agent: str, updates: int, rounds: int, home: Path) -> dict[str, float]:
    """Interleaved rounds on ``agent`` (one warm-up round each, not counted)."""
    base = Baseline(agent, updates, rounds + 1, home / "sdk")
    ours = Measured(agent, updates, rounds + 1, home / "cx")
    base_s, ours_s, base_cpu, extra_cpu = [], [], [], []
    try:
        await base.start()
        await ours.start()
        for index in range(rounds + 1):
            b_wall, b_cpu = await base.round()
            o_wall, o_cpu = await ours.round()
            if index:
                base_s.append(b_wall)
                ours_s.append(o_wall)
                base_cpu.append(b_cpu)
                extra_cpu.append(o_cpu - b_cpu)
            print(
                f"  {agent} round {index}: SDK {b_wall * 1000:.0f} ms ({b_cpu * 1000:.0f} ms CPU), "
                f"cx {o_wall * 1000:.0f} ms ({o_cpu * 1000:.0f} ms CPU)",
                flush=True,
            )
    finally:
        try:
            await ours.close()
        finally:
            await base.close()
    return {
        "base": min(base_s),
        "ours": min(ours_s),
        "base_median": statistics.median(base_s),
        "ours_median": statistics.median(ours_s),
        "cpu_per_update": statistics.median(extra_cpu) / updates,
        "sdk_cpu_per_update": statistics.median(base_cpu) / updates,
    }


async def main(agents: list[str], updates: int, rounds: int) -> int:
    missed = False
    for agent in agents:
        try:
            acp_agent(agent).command()
        except AcpAgentNotFound as err:
            print(f"{agent}: skipped: {err}")
            report_figure(f"ACP {agent}: plan updates vs the bare SDK client", "skipped: not installed", "-", "-", None)
            continue
        try:
            with tempfile.TemporaryDirectory(prefix=f"bench-{agent}-") as home:
                got = await bench(agent, updates, rounds, Path(home))
        except Exception as err:  # noqa: BLE001  the other agents still run; the row says it failed
            print(f"{agent}: failed: {type(err).__name__}: {err}")
            report_figure(
                f"ACP {agent}: plan updates vs the bare SDK client", f"failed: {err}", "-", f"<= {GOAL}x", False
            )
            missed = True
            continue
        ratio = got["ours"] / got["base"]
        medians = got["ours_median"] / got["base_median"]
        what = "plan updates" if PLAN_UPDATES[agent] else "todo tool calls (no ACP plan: each asks permission)"
        print(
            f"{agent}: {updates} {what} in a turn, best of {rounds} rounds: SDK client {got['base'] * 1000:.0f} ms, "
            f"cx.AcpAgent + PlanChecklist {got['ours'] * 1000:.0f} ms -> {ratio:.2f}x (goal <= {GOAL}x); "
            f"medians {got['base_median'] * 1000:.0f} / {got['ours_median'] * 1000:.0f} ms ({medians:.2f}x); "
            f"codex_nb CPU {got['cpu_per_update'] * 1e6:.0f} us per update on top of the SDK client's "
            f"{got['sdk_cpu_per_update'] * 1e6:.0f} us"
        )
        report_figure(
            f"ACP {agent}: {updates} {what} in a turn, cx.AcpAgent + PlanChecklist vs the bare SDK client",
            f"{ratio:.2f}x ({got['ours'] * 1000:.0f} ms); medians {medians:.2f}x",
            f"bare SDK client {got['base'] * 1000:.0f} ms",
            f"<= {GOAL}x",
            ratio <= GOAL,
        )
        report_figure(
            f"ACP {agent}: codex_nb's CPU per {'plan update' if PLAN_UPDATES[agent] else 'todo tool call'}",
            f"{got['cpu_per_update'] * 1e6:.0f} us",
            f"on top of the SDK client's own {got['sdk_cpu_per_update'] * 1e6:.0f} us (same round)",
            "-",
            None,
        )
        missed |= ratio > GOAL
    return 1 if missed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--updates", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--agents", nargs="*", default=list(ACP_AGENTS))
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.agents, args.updates, args.rounds)))
