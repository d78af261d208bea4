"""Each fast path of ``codex_nb.protocol._fast`` against the public way it replaces.

`.venv/bin/python tests/benchmarks/bench_fast_paths.py`. Every figure is a ratio measured in
ONE run (fast path time / public way time), rounds interleaved, median of them, so a busy
neighbour slows both alike. A ratio above about 0.9x means the fast path no longer pays for
itself: delete it and use the public way. The comments in ``_fast.py`` quote these ratios.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from codex_nb.protocol import _fast
from codex_nb.protocol.events import Event, PlanUpdate
from codex_nb.protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from codex_nb.tools.names import ToolName
from codex_nb.tools.payload import Payload, ToolCall
from _report import report_figure

ROUNDS = 21
NUMBER = 5_000


def seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    for _ in range(NUMBER):
        fn()
    return (time.perf_counter() - start) / NUMBER


def compare(name: str, fast: Callable[[], object], *public: tuple[str, Callable[[], object]]) -> None:
    times: dict[str, list[float]] = {"fast": [], **{label: [] for label, _ in public}}
    for _ in range(ROUNDS):
        times["fast"].append(seconds(fast))
        for label, fn in public:
            times[label].append(seconds(fn))
    ours = statistics.median(times["fast"])
    print(f"{name}: fast path {ours * 1e6:.2f} us")
    for label, _ in public:
        theirs = statistics.median(times[label])
        print(f"  vs {label:<52} {theirs * 1e6:7.2f} us -> {ours / theirs:.2f}x")
    label, _ = public[0]  # the summary keeps the public way each fast path replaces
    theirs = statistics.median(times[label])
    report_figure(
        f"fast path: {name}", f"{ours / theirs:.2f}x", f"{label} {theirs * 1e6:.2f} us", "<= 0.9x", ours / theirs <= 0.9
    )


def plan_args() -> UpdatePlanArgs:
    steps = [{"step": f"Step number {i} of the plan", "status": "pending"} for i in range(3)]
    return UpdatePlanArgs.model_validate_json(json.dumps({"explanation": "Benchmark plan", "plan": steps}))


def bench_json() -> None:
    value = plan_args().model_dump(mode="json")
    encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    compare(
        "compact_json (3-step plan arguments)",
        lambda: _fast.compact_json(value),
        ('json.dumps(separators=(",", ":"), ensure_ascii=False)', lambda: json.dumps(value, **OPTIONS)),
        ("a JSONEncoder built once, .encode", lambda: encoder.encode(value)),
    )


OPTIONS: dict[str, object] = {"separators": (",", ":"), "ensure_ascii": False}


def bench_trusted_model() -> None:
    args = plan_args()
    fields = frozenset({"explanation", "plan"})

    def values() -> dict[str, object]:
        return {"type": "plan_update", "explanation": args.explanation, "plan": list(args.plan)}

    compare(
        "trusted_model (plan_update event from parsed arguments)",
        lambda: _fast.trusted_model(PlanUpdate, values(), fields),
        ("PlanUpdate(**values)", lambda: PlanUpdate(explanation=args.explanation, plan=list(args.plan))),
        (
            "PlanUpdate.model_construct(_fields_set=..., **values)",
            lambda: PlanUpdate.model_construct(fields, **values()),
        ),
    )
    msg = PlanUpdate(explanation=args.explanation, plan=list(args.plan))
    envelope = {"id": "t", "msg": msg, "thread_id": "th", "turn_id": "t", "seq": 1, "revision": 1}
    compare(
        "trusted_model (the bus's Event envelope)",
        lambda: _fast.trusted_model(Event, dict(envelope)),
        ("Event(**values)", lambda: Event(**envelope)),
        ("Event.model_construct(**values)", lambda: Event.model_construct(**envelope)),
    )


@dataclass(frozen=True, slots=True)
class GeneratedPayload:
    kind: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GeneratedToolCall:
    tool_name: ToolName
    call_id: str
    payload: GeneratedPayload
    source: str = "direct"
    cell_id: str | None = None


def bench_slot_setters() -> None:
    name = ToolName.of("update_plan")
    compare(
        "slot_setters (a routed call: Payload + ToolCall)",
        lambda: ToolCall(tool_name=name, call_id="c", payload=Payload("function", "{}")),
        (
            "the same frozen slotted dataclasses, generated __init__",
            lambda: GeneratedToolCall(tool_name=name, call_id="c", payload=GeneratedPayload("function", "{}")),
        ),
    )


def bench_plan_step() -> None:
    compare(
        "plan_step (one step of a peer's plan update, types checked by the caller)",
        lambda: _fast.plan_step("Write the tests", StepStatus.IN_PROGRESS),
        (
            "PlanItemArg(step=..., status=...)",
            lambda: PlanItemArg(step="Write the tests", status=StepStatus.IN_PROGRESS),
        ),
    )


if __name__ == "__main__":
    bench_json()
    bench_trusted_model()
    bench_slot_setters()
    bench_plan_step()
