"""Abandoned sync tools (interrupted, still running: Python cannot kill a thread) never make a
later sync tool or another session's sync hook wait for a free worker."""

from __future__ import annotations

import asyncio
import os
import threading

import codex_nb as cx
from codex_nb.tools.threads import IDLE_WORKERS, sync_workers

ABANDONED = max(40, (os.cpu_count() or 1) + 8)  # more than the loop's default executor has workers


async def test_abandoned_sync_tools_do_not_starve_later_sync_work():
    session = cx.Session()
    release = threading.Event()
    started = 0
    all_started = asyncio.Event()
    loop = asyncio.get_running_loop()
    lock = threading.Lock()

    @session.tool
    def stuck() -> str:
        "Blocks its thread until the test ends (ignores cancellation)."
        nonlocal started
        with lock:
            started += 1
            if started == ABANDONED:
                loop.call_soon_threadsafe(all_started.set)
        release.wait()
        return "late"

    @session.tool
    def quick() -> str:
        "Returns at once."
        return "quick"

    calls = [asyncio.ensure_future(session.call_tool("stuck", {}, call_id=f"s{n}")) for n in range(ABANDONED)]
    try:
        await all_started.wait()
        for call in calls:
            call.cancel()
        await asyncio.gather(*calls, return_exceptions=True)

        assert (await asyncio.wait_for(session.call_tool("quick", {}), 5)).output == "quick"

        other = cx.Session()

        @other.pre_tool_use(matcher="update_plan")
        def sync_hook(hook_input):
            return None

        result = await asyncio.wait_for(other.call_tool("update_plan", {"plan": []}), 5)
        assert result.output == "Plan updated"
    finally:
        release.set()
    assert sync_workers().threads <= ABANDONED + 2 + IDLE_WORKERS
