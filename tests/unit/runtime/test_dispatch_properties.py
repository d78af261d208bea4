"""Property: whatever the model sends, every call gets exactly one output and dispatch never raises."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import pytest

import codex_nb as cx
from codex_nb.runtime.history import repair_history
from codex_nb.protocol.wire import dumps

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
plan_like = st.fixed_dictionaries(
    {
        "plan": st.lists(
            st.fixed_dictionaries(
                {
                    "step": st.text(max_size=30),
                    "status": st.sampled_from(["pending", "in_progress", "completed", "done", ""]),
                }
            ),
            max_size=5,
        )
    },
    optional={"explanation": st.none() | st.text(max_size=30), "extra": json_values},
)
arguments = st.one_of(plan_like, json_values.map(lambda v: v), st.text(max_size=60))
names = st.sampled_from(["update_plan", "echo", "missing", "", "update_plan "])
calls = st.lists(
    st.tuples(names, arguments, st.sampled_from(["function_call", "custom_tool_call"])), min_size=1, max_size=6
)


def build_session() -> cx.Session:
    session = cx.Session()

    @session.tool
    async def echo(text: str) -> str:
        "Echo."
        return text

    return session


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=calls)
def test_every_call_gets_exactly_one_output(calls) -> None:
    session = build_session()
    items = []
    for index, (name, args, kind) in enumerate(calls):
        call_id = f"c{index}"
        if kind == "function_call":
            raw = args if isinstance(args, str) else dumps(args)
            items.append({"type": "function_call", "name": name, "arguments": raw, "call_id": call_id})
        else:
            items.append(cx.custom_tool_call(name or "x", str(args), call_id=call_id))
    model = cx.ScriptedModel([items, [cx.assistant_message("done")]], allow_leftover=True, record_requests=True)
    result = asyncio.run(session.run_turn("go", model=model))
    assert result.status in ("completed", "failed")  # a custom payload to update_plan is Fatal by spec
    history = session.history
    assert repair_history(history) == history
    calls_seen = [i["call_id"] for i in history if i["type"] in ("function_call", "custom_tool_call")]
    outputs = [i["call_id"] for i in history if i["type"].endswith("_output")]
    assert sorted(calls_seen) == sorted(outputs)
    if result.status == "completed":
        assert len(model.requests) == 2
