"""The FIFO parallel gate: admission in call order, readers share, a waiting writer holds back later readers."""

from __future__ import annotations

import asyncio

from codex_nb.tools.parallel import ParallelGate


async def _run(
    gate: ParallelGate, plan: list[tuple[str, bool]], release: dict[str, asyncio.Event], log: list[str]
) -> list[asyncio.Task[None]]:
    async def call(name: str, shared: bool) -> None:
        async with gate.hold(shared=shared):
            log.append(f"+{name}")
            await release[name].wait()
            log.append(f"-{name}")

    tasks = [asyncio.ensure_future(call(n, s)) for n, s in plan]
    for _ in range(3):
        await asyncio.sleep(0)
    return tasks


async def test_readers_share_and_a_waiting_writer_blocks_later_readers() -> None:
    gate, log = ParallelGate(), []
    release = {n: asyncio.Event() for n in "r1 r2 w r3".split()}
    tasks = await _run(gate, [("r1", True), ("r2", True), ("w", False), ("r3", True)], release, log)
    assert log == ["+r1", "+r2"]  # r3 waits behind the writer although readers are running
    release["r1"].set(), release["r2"].set()
    for _ in range(4):
        await asyncio.sleep(0)
    assert log == ["+r1", "+r2", "-r1", "-r2", "+w"]
    release["w"].set(), release["r3"].set()
    await asyncio.gather(*tasks)
    assert log[-3:] == ["-w", "+r3", "-r3"]


async def test_exclusive_calls_run_one_at_a_time_in_call_order() -> None:
    gate, log = ParallelGate(), []
    release = {str(i): asyncio.Event() for i in range(5)}
    for event in release.values():
        event.set()
    await asyncio.gather(*await _run(gate, [(str(i), False) for i in range(5)], release, log))
    assert log == [x for i in range(5) for x in (f"+{i}", f"-{i}")]


async def test_a_cancelled_waiter_is_skipped_and_the_gate_goes_on() -> None:
    gate, log = ParallelGate(), []
    release = {n: asyncio.Event() for n in "a b c".split()}
    tasks = await _run(gate, [("a", False), ("b", False), ("c", True)], release, log)
    tasks[1].cancel()  # b waits at the gate
    await asyncio.sleep(0)
    release["a"].set(), release["c"].set()
    await asyncio.gather(tasks[0], tasks[2])
    assert log == ["+a", "-a", "+c", "-c"] and tasks[1].cancelled()


async def test_admitted_then_cancelled_before_running_passes_the_gate_on() -> None:
    gate = ParallelGate()
    await gate.acquire(shared=False)
    second = asyncio.ensure_future(gate.acquire(shared=False))
    third = asyncio.ensure_future(gate.acquire(shared=False))
    await asyncio.sleep(0)
    gate.release(shared=False)  # admits `second` ...
    second.cancel()  # ... which is cancelled before it resumes: it must hand the gate to `third`
    await asyncio.sleep(0)
    await asyncio.wait_for(third, 1)
    assert second.cancelled()
    gate.release(shared=False)
    await gate.acquire(shared=True)  # the gate is free again
