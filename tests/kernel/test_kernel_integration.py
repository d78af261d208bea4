"""A real ipykernel: a background turn started from a cell returns at once and finishes later.

A turn that may wait for the frontend runs as a background task, because awaiting a widget
answer inside the running cell deadlocks; checked against a live kernel (jupyter_client), not a mock:
the cell that starts the turn completes while the turn is still waiting, later cells
run, and the turn's events are still delivered.
"""

from __future__ import annotations

import pytest

from helpers.kernels import run_cell

pytestmark = pytest.mark.kernel


def run(client, code: str) -> str:
    return run_cell(client, code).text


def test_background_turn_does_not_block_the_cell(kernel) -> None:
    run(
        kernel,
        """
import asyncio, codex_nb as cx
session = cx.Session()
seen = []
session.subscribe(lambda e: seen.append(e.msg.type))
gate, waiting = asyncio.Event(), asyncio.Event()

@session.tool
async def wait_for_gate() -> str:
    "Waits for the next cell."
    waiting.set()
    await gate.wait()
    return "released"

model = cx.ScriptedModel([
    [cx.function_call("update_plan", {"plan": [{"step": "wait", "status": "in_progress"}]}, call_id="p"),
     cx.function_call("wait_for_gate", {}, call_id="g")],
    [cx.assistant_message("done")],
])
handle = session.start_turn("go", model=model)
print("cell returned")
""",
    )
    # handshake: the turn reached its tool (under load the next cell may run before it starts)
    out = run(kernel, "await waiting.wait()\nprint(handle.done(), seen)")
    assert out.strip() == "False ['turn_started', 'user_message', 'plan_update']"
    run(kernel, "gate.set()")
    out = run(kernel, "result = await handle\nprint(result.status, result.outputs(), seen[-1])")
    assert out.strip() == "completed {'p': 'Plan updated', 'g': 'released'} turn_complete"


def test_interrupt_from_a_later_cell(kernel) -> None:
    run(
        kernel,
        """
never, started = asyncio.Event(), asyncio.Event()

@session.tool
async def hang() -> str:
    "Never returns on its own."
    started.set()
    await never.wait()
    return "unreachable"

model = cx.ScriptedModel([[cx.function_call("hang", {}, call_id="h")]])
handle = session.start_turn("hang please", model=model)
""",
    )
    out = run(
        kernel,
        """
await started.wait()  # handshake: the tool is running
print(handle.interrupt())
result = await handle
print(result.status, result.outputs()["h"].startswith("aborted by user after"), seen[-1])
""",
    )
    assert out.strip().splitlines() == ["True", "interrupted True turn_aborted"]
