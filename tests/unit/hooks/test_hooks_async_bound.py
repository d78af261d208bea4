"""Twenty tool calls in one turn, each matched by an ``async = true`` PreToolUse command hook (from
config.toml, as a person writes it): at most ``MAX_ASYNC_HOOKS`` (8) hook programs run at once, the
others wait for a slot, and all twenty run in the end. The pinned Codex 0.171.0 runs the same turn
with at most 8 of them at once too (measured; docs/compatibility.md).

Each hook program appends ``start`` to a log, waits for a release file, then appends ``end``: the
log's order is the order the programs started and ended, so the most that ran at once is read from
it. The test waits on files and on the engine's own counters, never for a fixed time. (A process
listing shows two processes per hook: codex_nb's supervisor and the program.)"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import codex_nb as cx
from codex_nb.hooks import MAX_ASYNC_HOOKS

HOOK = """\
import os, sys, time
log, release = sys.argv[1], sys.argv[2]
sys.stdin.read()
with open(log, "a") as f:
    f.write("start\\n")
while not os.path.exists(release):  # the test creates it once it has counted the programs running
    time.sleep(0.01)
with open(log, "a") as f:
    f.write("end\\n")
"""


def _most_at_once(lines: list[str]) -> int:
    running = most = 0
    for line in lines:
        running += 1 if line == "start" else -1
        most = max(most, running)
    return most


async def _until(condition, what: str) -> None:
    """Poll ``condition`` (files and counters) until it holds; a bound turns a hang into a failure."""
    async with asyncio.timeout(60):
        while not condition():  # noqa: ASYNC110  a file other processes append to signals no event
            await asyncio.sleep(0.02)
    assert condition(), what


async def test_twenty_calls_run_at_most_eight_async_hooks_at_once(tmp_path: Path) -> None:
    (tmp_path / "hook.py").write_text(HOOK)
    log, release = tmp_path / "log", tmp_path / "release"
    toml = (
        "[tools.update_plan]\nenabled = true\n"
        '[[hooks.PreToolUse]]\nmatcher = "update_plan"\n'
        "[[hooks.PreToolUse.hooks]]\n"
        f'type = "command"\ncommand = "{sys.executable} {tmp_path / "hook.py"} {log} {release}"\nasync = true\n'
    )
    session = cx.Session(config=cx.Config.from_toml(toml), cwd=str(tmp_path))
    engine = session.hooks
    plan = {"plan": [{"step": "a", "status": "pending"}]}
    model = cx.ScriptedModel(
        [[cx.function_call("update_plan", plan, call_id=f"c{i}") for i in range(20)], [cx.assistant_message("ok")]]
    )

    def lines() -> list[str]:
        return log.read_text().split() if log.exists() else []

    try:
        result = await session.run_turn("plan it", model=model)  # async hooks never hold the turn
        assert result.status == "completed", result.error
        # every run is either holding a slot or queued, and every slot holder's program has started
        await _until(
            lambda: engine.async_running + engine.async_queued == 20 and lines().count("start") == engine.async_running,
            "the hook programs did not start",
        )
        assert (engine.async_running, engine.async_queued) == (MAX_ASYNC_HOOKS, 20 - MAX_ASYNC_HOOKS) == (8, 12)
        assert lines().count("start") == 8

        release.touch()
        await engine.wait_async()
        assert lines().count("end") == 20 and len(engine.async_runs) == 20
        assert all(run.status == "completed" for run in engine.async_runs)
        assert _most_at_once(lines()) == 8
    finally:
        release.touch()
        await session.aclose()
