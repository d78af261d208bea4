"""PlanChecklist under a burst of 1,000 snapshots from a background turn (not a timed test).

Run: ``.venv/bin/python tests/benchmarks/bench_checklist.py [--snapshots 1000]``

Prints:
* comm messages sent for the burst, and messages per second over the burst (target <= the
  widget's ``DEFAULT_MAX_RATE``, 60/s: one message a display frame, since a browser draws at most
  ~60 frames a second; 20/s held each snapshot back up to 50 ms, more than the 50 ms a person's
  view may lag the model. jupyter_server drops IOPub above 1,000 msgs/s, far above either);
* the largest number of messages in any 1-second window;
* latency from the last PlanUpdate emission to its comm message while the turn is still
  running (the coalescing timer path; target <= 100 ms), and when the turn ends at once;
* per-snapshot kernel cost of the widget's subscriber (coalesced), of an uncoalesced
  widget, and of a bare ``hold_sync`` trait update on a minimal anywidget.

Comm messages are JSON-serialised by the recording comm, as a kernel comm would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import anywidget  # noqa: E402
import traitlets  # noqa: E402

import codex_nb as cx  # noqa: E402
from codex_nb.protocol.events import PlanUpdate  # noqa: E402
from codex_nb.widgets import testing  # noqa: E402
from codex_nb.widgets.checklist import DEFAULT_MAX_RATE, PlanChecklist  # noqa: E402


class TimedComm(testing.RecordingComm):
    """Records (time, msg_type, data) and serialises like a kernel comm."""

    def __init__(self, **kwargs: Any) -> None:
        self.times: list[float] = []
        super().__init__(**kwargs)

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        json.dumps(data)
        self.times.append(time.perf_counter())
        super().publish_msg(msg_type, data, metadata, buffers, **keys)


def timed_comms() -> Any:
    return testing.recording_comms(TimedComm)


def plan_args(i: int, n: int) -> dict[str, Any]:
    steps = [{"step": f"Step {k} of snapshot {i}", "status": "completed" if k < i % 8 else "pending"} for k in range(8)]
    return {"explanation": f"snapshot {i}/{n}", "plan": steps}


def update_times(comm: TimedComm) -> list[tuple[float, dict[str, Any]]]:
    out = []
    for t, (kind, data) in zip(comm.times, comm.messages, strict=True):
        if kind == "comm_msg" and data.get("method") == "update":
            out.append((t, data["state"]))
    return out


async def burst(n: int, *, pause_after: bool) -> dict[str, float]:
    session = cx.Session()
    emitted: list[float] = []  # subscribed before the widget: stamps precede any synchronous flush
    session.subscribe(lambda e: emitted.append(time.perf_counter()) if e.msg.type == "plan_update" else None)
    with timed_comms():
        widget = PlanChecklist(session)
    comm = widget.comm
    assert isinstance(comm, TimedComm)
    gate = asyncio.Event()
    reached = asyncio.Event()

    @session.tool
    async def checkpoint() -> str:
        "Hold the turn open after the burst."
        reached.set()
        await gate.wait()
        return "released"

    calls = [cx.function_call("update_plan", plan_args(i, n), call_id=f"c{i}") for i in range(1, n + 1)]
    tail = [cx.function_call("checkpoint", {}, call_id="hold")] if pause_after else []
    model = cx.ScriptedModel([calls + tail, [cx.assistant_message("done")]])
    handle = session.start_turn("burst", model=model)
    if pause_after:
        await reached.wait()
        await widget.settled()
        final_seen = time.perf_counter()
        gate.set()
    result = await handle
    assert result.status == "completed", result.status
    await widget.settled()
    if not pause_after:
        final_seen = time.perf_counter()
    updates = [(t, s) for t, s in update_times(comm) if "revision" in s]
    final_time = next(t for t, s in updates if s["revision"] == n)
    burst_start, burst_end = emitted[0], emitted[-1]
    times = [t for t, _ in updates]
    window = max(sum(1 for u in times if t <= u < t + 1.0) for t in times)
    span = max(final_time - burst_start, 1e-9)
    assert widget.revision == n and final_seen >= final_time
    return {
        "snapshots": len(emitted),
        "burst_s": burst_end - burst_start,
        "messages": len(updates),
        "msgs_per_s": len(updates) / max(span, 1.0) if span < 1.0 else len(updates) / span,
        "max_in_1s": window,
        "final_latency_ms": (final_time - burst_end) * 1000,
        "coalesced": widget.stats.coalesced,
    }


def per_snapshot_cost(n: int) -> dict[str, float]:
    """Median microseconds per snapshot for: the coalesced subscriber, uncoalesced, bare hold_sync."""

    class Bare(anywidget.AnyWidget):
        _esm = "export default { render() {} };"
        explanation = traitlets.Unicode(None, allow_none=True).tag(sync=True)
        steps = traitlets.List(traitlets.Dict()).tag(sync=True)
        thread_id = traitlets.Unicode("").tag(sync=True)
        turn_id = traitlets.Unicode(None, allow_none=True).tag(sync=True)
        revision = traitlets.Int(None, allow_none=True).tag(sync=True)

    session = cx.Session()
    events = [
        cx.events.Event(id="s", msg=PlanUpdate(**plan_args(i, n)), thread_id=session.thread_id, turn_id="t", revision=i)
        for i in range(1, n + 1)
    ]

    async def coalesced() -> list[float]:
        with timed_comms():
            widget = PlanChecklist(session)
        costs = []
        for event in events:
            start = time.perf_counter()
            widget._on_event(event)
            costs.append(time.perf_counter() - start)
        await widget.settled()
        widget.close()
        return costs

    def uncoalesced() -> list[float]:
        with timed_comms():
            widget = PlanChecklist(session, max_rate=None)
        costs = []
        for event in events:
            start = time.perf_counter()
            widget._on_event(event)
            costs.append(time.perf_counter() - start)
        widget.close()
        return costs

    def bare() -> list[float]:
        with timed_comms():
            widget = Bare()
        costs = []
        for event in events:
            msg: Any = event.msg
            start = time.perf_counter()
            with widget.hold_sync():
                widget.explanation = msg.explanation
                widget.steps = [{"step": p.step, "status": str(p.status)} for p in msg.plan]
                widget.thread_id = event.thread_id
                widget.turn_id = event.turn_id
                widget.revision = event.revision
            costs.append(time.perf_counter() - start)
        widget.close()
        return costs

    def us(values: list[float]) -> float:
        return statistics.median(values) * 1e6

    return {
        "coalesced_us": us(asyncio.run(coalesced())),
        "uncoalesced_us": us(uncoalesced()),
        "bare_hold_sync_us": us(bare()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snapshots", type=int, default=1000)
    n = parser.parse_args().snapshots
    held = asyncio.run(burst(n, pause_after=True))
    ended = asyncio.run(burst(n, pause_after=False))
    cost = per_snapshot_cost(n)
    print(
        f"burst of {held['snapshots']} snapshots from a background turn (update_plan calls), "
        f"emitted over {held['burst_s'] * 1000:.1f} ms ({held['coalesced']} snapshots coalesced)"
    )
    bound = 2 + math.ceil((held["final_latency_ms"] / 1000 + held["burst_s"]) * DEFAULT_MAX_RATE)
    rate_ok = held["msgs_per_s"] <= DEFAULT_MAX_RATE * 1.05 and held["max_in_1s"] <= DEFAULT_MAX_RATE + 2
    rows = [
        # one leading message, one a frame while the burst lasts, and the final snapshot
        ("comm update messages for the burst", f"{held['messages']}", f"<= {bound}", held["messages"] <= bound),
        ("messages per second over the burst", f"{held['msgs_per_s']:.1f}", f"<= {DEFAULT_MAX_RATE:.0f}", rate_ok),
        ("max messages in any 1 s window", f"{held['max_in_1s']}", f"<= {DEFAULT_MAX_RATE + 2:.0f}", rate_ok),
        (
            "final snapshot latency, turn running (ms)",
            f"{held['final_latency_ms']:.1f}",
            "<= 100",
            held["final_latency_ms"] <= 100,
        ),
        ("final snapshot latency, turn ends (ms)", f"{ended['final_latency_ms']:.1f}", "-", None),
        ("per snapshot: coalesced subscriber (us)", f"{cost['coalesced_us']:.1f}", "-", None),
        ("per snapshot: max_rate=None (us)", f"{cost['uncoalesced_us']:.1f}", "-", None),
        ("per snapshot: bare hold_sync, baseline (us)", f"{cost['bare_hold_sync_us']:.1f}", "-", None),
    ]
    print(f"  {'figure':46} {'value':>9}  {'goal':8} met?")
    for label, value, goal, met in rows:
        print(f"  {label:46} {value:>9}  {goal:8} {'' if met is None else ('yes' if met else 'NO')}")
    from _report import report_figure  # next to this file when run as a script

    baseline = f"bare hold_sync {cost['bare_hold_sync_us']:.1f} us/snapshot"
    for label, value, goal, met in rows[:4]:
        report_figure(f"checklist, 1,000-snapshot burst: {label}", value, baseline, goal, met)


if __name__ == "__main__":
    main()
