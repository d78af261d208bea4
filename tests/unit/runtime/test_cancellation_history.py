"""History pairing repair: every call exactly one output, before every request."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st
import pytest

import codex_nb as cx
from codex_nb.runtime.history import repair_history
from codex_nb.runtime.history import is_paired


def call(kind: str, call_id: str) -> dict:
    return {"type": kind, "call_id": call_id, "id": f"item-{call_id}"}


def output(kind: str, call_id: str, text: str = "ok") -> dict:
    return {"type": kind, "call_id": call_id, "output": text}


def test_dangling_calls_get_aborted_right_after_them():
    items = [
        cx.user_message("go"),
        call("function_call", "f"),
        call("custom_tool_call", "c"),
        call("local_shell_call", "l"),
        call("tool_search_call", "t"),
        cx.assistant_message("x"),
    ]
    repaired = repair_history(items)
    kinds = [(i["type"], i.get("call_id"), i.get("output")) for i in repaired]
    assert kinds == [
        ("message", None, None),
        ("function_call", "f", None),
        ("function_call_output", "f", "aborted"),
        ("custom_tool_call", "c", None),
        ("custom_tool_call_output", "c", "aborted"),
        ("local_shell_call", "l", None),
        ("function_call_output", "l", "aborted"),
        ("tool_search_call", "t", None),
        ("tool_search_output", "t", None),
        ("message", None, None),
    ]
    assert repaired[8] == {
        "type": "tool_search_output",
        "call_id": "t",
        "status": "completed",
        "execution": "client",
        "tools": [],
    }
    assert items[1:3] == [call("function_call", "f"), call("custom_tool_call", "c")]  # input untouched
    assert is_paired(repaired)


def test_orphans_and_duplicates_are_dropped_and_real_outputs_kept():
    items = [
        call("function_call", "a"),
        output("function_call_output", "ghost"),
        output("function_call_output", "a", "real"),
        output("function_call_output", "a", "dup"),
    ]
    repaired = repair_history(items)
    assert repaired == [call("function_call", "a"), output("function_call_output", "a", "real")]


def test_synthetic_ids_are_deterministic_and_repair_is_idempotent():
    items = [call("function_call", "a")]
    once = repair_history(items)
    assert once == repair_history(items)
    assert repair_history(once) == once
    assert once[1]["id"] == repair_history([call("function_call", "a")])[1]["id"]


CALL_KINDS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "tool_search_call": "tool_search_output",
}


@pytest.mark.slow
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["call", "output"]),
            st.sampled_from(sorted(CALL_KINDS)),
            st.sampled_from(["a", "b", "c", "d"]),
        ),
        max_size=12,
    )
)
def test_invariant_every_call_exactly_one_output(spec):
    seen_calls: set[str] = set()
    items = []
    for role, kind, cid in spec:
        if role == "call" and cid not in seen_calls:  # call ids are unique in real histories
            seen_calls.add(cid)
            items.append(call(kind, cid))
        elif role == "output":
            items.append(output(CALL_KINDS[kind], cid))
    repaired = repair_history(items)
    assert is_paired(repaired)
    assert repair_history(repaired) == repaired


async def test_every_model_request_is_paired(session, no_leaked_tasks):
    """A history left with a dangling call (e.g. by a hard abort) is repaired before sampling."""
    session.history.extend([cx.user_message("old"), call("function_call", "lost")])
    model = cx.ScriptedModel([[cx.assistant_message("ok")]], record_requests=True)
    await session.run_turn("new", model=model)
    request = model.requests[0]
    assert is_paired(request.items)
    assert request.outputs() == {"lost": "aborted"}


async def test_interrupted_turn_history_is_paired_for_each_abort_point(session, no_leaked_tasks):
    started = asyncio.Event()

    @session.tool(parallel=True)
    async def hang(n: int) -> str:
        "Hang."
        started.set()
        await asyncio.Event().wait()
        return "never"

    model = cx.ScriptedModel(
        [[cx.function_call("hang", {"n": i}, call_id=f"h{i}") for i in range(5)], [cx.assistant_message("x")]],
        allow_leftover=True,
        record_requests=True,
    )
    handle = session.start_turn("go", model=model)
    await started.wait()
    handle.interrupt()
    await handle
    assert is_paired(session.history)
