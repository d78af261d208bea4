"""Per-call cancellation, turn interrupt and lifecycle facts.

Cancellation is placed with event handshakes (a tool sets an ``asyncio.Event`` when it
starts and awaits another; a subscriber or lifecycle observer interrupts at an exact
point), never with sleeps. The timing-table tests run 50 times each to catch
flakiness; each run is a few loop iterations, so the whole file stays fast.
"""

from __future__ import annotations

import asyncio
import re
import threading

import pytest

import codex_nb as cx
from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.runtime.turn import TURN_ABORTED_MARKER
from codex_nb.tools.cancellation import CancelSource
from codex_nb.tools.lifecycle import ControlToolCallFact, ControlToolStatus
from codex_nb.tools.names import ToolName
from codex_nb.runtime.history import is_paired

ABORTED = re.compile(r"^aborted by user after (\d+\.\d)s$")
REPEAT = range(50)
PLAN = {"plan": [{"step": "inspect", "status": "in_progress"}, {"step": "fix", "status": "pending"}]}


def plan_call(call_id: str = "p1") -> dict:
    return cx.function_call("update_plan", PLAN, call_id=call_id)


def outcomes(session: cx.Session, call_id: str) -> list[str]:
    """The lifecycle of one call as strings: ``start`` and the terminal outcome."""
    return [r.phase if r.phase == "start" else str(r.outcome) for r in session.lifecycle_log if r.call_id == call_id]


def assert_aborted_text(text: str) -> None:
    match = ABORTED.match(text)
    assert match, text
    assert float(match.group(1)) >= 0.1


def blocking_tool(session: cx.Session, name: str = "slow", *, parallel: bool = False):
    """A tool that signals when it starts and then waits forever (until cancelled)."""
    started = asyncio.Event()
    release = asyncio.Event()

    async def tool(label: str = "") -> str:
        started.set()
        await release.wait()
        return f"done {label}"

    tool.__name__ = name
    session.tool(tool, parallel=parallel)
    return started, release


def model_then_leftover(*steps: list) -> cx.ScriptedModel:
    """An interrupted turn never asks for its final response: allow it to remain."""
    return cx.ScriptedModel([*steps, [cx.assistant_message("never sent")]], allow_leftover=True)


# -- per-call cancellation and turn interrupt ----------------------------------------------


async def test_interrupt_aborts_the_running_call_records_marker_and_event(session, no_leaked_tasks):
    started, _ = blocking_tool(session)
    log = cx.testing.RecordingSubscriber(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    assert handle.interrupt() is True
    result = await handle

    assert result.status == "interrupted" and result.error is None
    assert [i["type"] for i in result.items] == ["message", "function_call", "function_call_output", "message"]
    output = result.items[2]
    assert output["call_id"] == "s1"
    assert_aborted_text(output["output"])
    assert result.items[3]["role"] == "user"
    assert result.items[3]["content"][0]["text"] == TURN_ABORTED_MARKER
    assert outcomes(session, "s1") == ["start", "Aborted"]
    assert log.types == ["turn_started", "user_message", "turn_aborted"]
    aborted = log.events[-1].msg.to_wire()
    assert list(aborted) == ["type", "turn_id", "reason", "started_at", "completed_at", "duration_ms"]
    assert aborted["reason"] == "interrupted" and aborted["turn_id"] == handle.turn_id
    assert is_paired(session.history)
    assert handle.hard_aborted is False  # the call answered within the grace period


async def test_the_next_request_carries_the_aborted_pair_and_the_marker(session, no_leaked_tasks):
    started, _ = blocking_tool(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    handle.interrupt()
    await handle
    model = cx.ScriptedModel([[cx.assistant_message("ok")]], record_requests=True)
    await session.run_turn("again", model=model)
    items = model.requests[0].items
    assert_aborted_text(model.requests[0].outputs()["s1"])
    assert any(i.get("role") == "user" and "<turn_aborted>" in i["content"][0]["text"] for i in items)
    assert is_paired(items)


async def test_aborted_output_is_success_none_and_exec_command_uses_wall_time(session):
    from codex_nb.tools.calls import aborted_output
    from codex_nb.tools.payload import Payload, ToolCall

    call = ToolCall(tool_name=ToolName.of("exec_command"), call_id="e1", payload=Payload.function("{}"))
    assert aborted_output(call, 0.0).text == "Wall time: 0.1 seconds\naborted by user"
    other = ToolCall(tool_name=ToolName.of("exec_command", "mcp__x"), call_id="e2", payload=Payload.function("{}"))
    result = aborted_output(other, 2.345)
    assert result.text == "aborted by user after 2.3s" and result.success is None
    search = ToolCall(tool_name=ToolName.of("tool_search"), call_id="t1", payload=Payload("tool_search", "{}"))
    assert aborted_output(search, 1).item == {
        "type": "tool_search_output",
        "call_id": "t1",
        "status": "completed",
        "execution": "client",
        "tools": [],
    }


@pytest.mark.parametrize("rep", range(10))
async def test_parallel_calls_all_aborted_outputs_in_call_order(session, rep, no_leaked_tasks):
    events = {}
    for name in ("a", "b", "c"):
        events[name] = blocking_tool(session, name, parallel=True)
    calls = [cx.function_call(n, {}, call_id=f"c_{n}") for n in ("c", "a", "b")]
    handle = session.start_turn("go", model=model_then_leftover(calls))
    for started, _ in events.values():
        await started.wait()  # all three run at once (shared gate)
    handle.interrupt()
    result = await handle
    kinds = [(i["type"], i.get("call_id")) for i in result.items[1:-1]]
    assert kinds == [
        ("function_call", "c_c"),
        ("function_call", "c_a"),
        ("function_call", "c_b"),
        ("function_call_output", "c_c"),
        ("function_call_output", "c_a"),
        ("function_call_output", "c_b"),
    ]
    for item in result.items[4:7]:
        assert_aborted_text(item["output"])
    assert [outcomes(session, f"c_{n}") for n in "cab"] == [["start", "Aborted"]] * 3


@pytest.mark.parametrize("rep", range(10))
async def test_parallel_call_that_finished_keeps_its_result(session, rep, no_leaked_tasks):
    a_started, _ = blocking_tool(session, "a", parallel=True)
    b_started, b_release = blocking_tool(session, "b", parallel=True)
    b_done = asyncio.Event()
    session.on_lifecycle(lambda r: b_done.set() if r.call_id == "c_b" and r.phase == "finish" else None)
    calls = [cx.function_call("a", {}, call_id="c_a"), cx.function_call("b", {"label": "B"}, call_id="c_b")]
    handle = session.start_turn("go", model=model_then_leftover(calls))
    await a_started.wait()
    await b_started.wait()
    b_release.set()
    await b_done.wait()
    handle.interrupt()
    result = await handle
    outputs = [(i["call_id"], i["output"]) for i in result.items if i["type"] == "function_call_output"]
    assert outputs[0][0] == "c_a" and ABORTED.match(outputs[0][1])
    assert outputs[1] == ("c_b", "done B")
    assert outcomes(session, "c_b") == ["start", "Completed{success:true}"]


async def test_interrupt_while_the_model_is_sampling(session, no_leaked_tasks):
    sampling, never = asyncio.Event(), asyncio.Event()

    async def slow_model(request):
        sampling.set()
        await never.wait()
        return [cx.assistant_message("late")]

    log = cx.testing.RecordingSubscriber(session)
    handle = session.start_turn("go", model=cx.ScriptedModel([slow_model], allow_leftover=True, record_requests=True))
    await sampling.wait()
    handle.interrupt()
    result = await handle
    assert result.status == "interrupted"
    assert [i["type"] for i in result.items] == ["message", "message"]  # user text, marker
    assert log.types == ["turn_started", "user_message", "turn_aborted"]


# -- where a cancel lands relative to the PlanUpdate send, each case placed exactly, 50 times ------------------------


@pytest.mark.parametrize("rep", REPEAT)
async def test_cancel_before_admission_no_plan_update(session, rep, no_leaked_tasks):
    """Row 1: update_plan waits for the exclusive gate behind a running call."""
    started, _ = blocking_tool(session)
    log = cx.testing.RecordingSubscriber(session)
    handle = session.start_turn(
        "go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1"), plan_call()])
    )
    await started.wait()
    handle.interrupt()
    result = await handle
    assert "plan_update" not in log.types
    assert_aborted_text(result.outputs()["p1"])
    assert outcomes(session, "p1") == ["Aborted"]  # no start: the handler was never admitted
    assert session.control_tool_facts == []  # guard: none


@pytest.mark.parametrize("rep", REPEAT)
async def test_cancel_just_before_the_send_no_plan_update(rep, no_leaked_tasks):
    """Row 2, before the effective point: the handler is running (it emitted a warning
    first), the call is cancelled, then it reaches ``emit(PlanUpdate)``: nothing is sent."""
    session = cx.Session(cx.Config(plan_validation="warn"))
    log = cx.testing.RecordingSubscriber(session)
    session.subscribe(lambda e: session.interrupt() if e.msg.type == "warning" else None)
    two_in_progress = {"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]}
    handle = session.start_turn(
        "go", model=model_then_leftover([cx.function_call("update_plan", two_in_progress, call_id="p1")])
    )
    result = await handle
    assert log.types == ["turn_started", "user_message", "warning", "turn_aborted"]
    assert_aborted_text(result.outputs()["p1"])
    assert outcomes(session, "p1") == ["start", "Aborted"]
    assert [f.status for f in session.control_tool_facts] == [ControlToolStatus.INTERRUPTED]


@pytest.mark.parametrize("rep", REPEAT)
async def test_cancel_at_the_send_event_delivered_and_real_result_kept(session, rep, no_leaked_tasks):
    """Row 2, at the effective point: a subscriber interrupts when PlanUpdate is delivered.
    The event stays delivered; update_plan has no await after its send, so the handler
    returns and claims Completed before the abort can: ``Plan updated`` is kept."""
    log = cx.testing.RecordingSubscriber(session)
    session.subscribe(lambda e: session.interrupt() if e.msg.type == "plan_update" else None)
    result = await session.start_turn("go", model=model_then_leftover([plan_call()]))
    assert log.types == ["turn_started", "user_message", "plan_update", "turn_aborted"]
    assert result.status == "interrupted"
    assert result.outputs()["p1"] == "Plan updated"
    assert outcomes(session, "p1") == ["start", "Completed{success:true}"]
    assert [f.status for f in session.control_tool_facts] == [ControlToolStatus.COMPLETED]


@pytest.mark.parametrize("rep", REPEAT)
async def test_cancel_after_the_send_while_awaiting_event_stays_output_aborted(session, rep, no_leaked_tasks):
    """Row 2, after the effective point with the handler still awaiting: the delivered
    PlanUpdate is not rolled back (no compensating event); the output is aborted."""
    sent, release = asyncio.Event(), asyncio.Event()

    @session.tool
    async def plan_then_wait(*, invocation: cx.tools.ToolInvocation) -> str:
        "Publish a plan, then wait."
        await invocation.emit(PlanUpdate.from_args(UpdatePlanArgs.model_validate(PLAN)))
        sent.set()
        await release.wait()
        return "never"

    log = cx.testing.RecordingSubscriber(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("plan_then_wait", {}, call_id="w1")]))
    await sent.wait()
    handle.interrupt()
    result = await handle
    assert log.types == ["turn_started", "user_message", "plan_update", "turn_aborted"]
    assert_aborted_text(result.outputs()["w1"])
    assert outcomes(session, "w1") == ["start", "Aborted"]


@pytest.mark.parametrize("rep", REPEAT)
async def test_cancel_after_the_handler_keeps_the_real_result(session, rep, no_leaked_tasks):
    """Row 3 (Codex ``cancellation_after_handler_finishes_preserves_completed_lifecycle``):
    the cancel arrives the moment the handler's Completed outcome is claimed."""
    session.on_lifecycle(lambda r: session.interrupt() if r.phase == "finish" else None)

    @session.tool
    async def ok() -> str:
        "Answer ok."
        return "ok"

    log = cx.testing.RecordingSubscriber(session)
    result = await session.start_turn(
        "go", model=model_then_leftover([cx.function_call("ok", {}, call_id="k1"), plan_call("p1")])
    )
    assert result.outputs()["k1"] == "ok"
    assert outcomes(session, "k1") == ["start", "Completed{success:true}"]
    # the next call in the same step was cancelled before admission
    assert_aborted_text(result.outputs()["p1"])
    assert "plan_update" not in log.types


async def test_hard_abort_leaves_the_call_to_history_repair(session, no_leaked_tasks):
    """Row 4: a handler that swallows the first cancel outlives the 100 ms grace; the turn
    is hard-aborted and history repair pairs the call with ``aborted``."""
    started, release, swallowed = asyncio.Event(), asyncio.Event(), asyncio.Event()

    @session.tool
    async def stubborn() -> str:
        "Ignores the first cancel."
        started.set()
        try:
            await release.wait()
        except asyncio.CancelledError:
            swallowed.set()
            await release.wait()  # the hard abort cancels this second wait
        return "late"

    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("stubborn", {}, call_id="h1")]))
    await started.wait()
    handle.interrupt()
    result = await handle
    assert handle.hard_aborted and swallowed.is_set()
    assert result.status == "interrupted"
    assert result.outputs()["h1"] == "aborted"  # synthetic, from history repair
    assert outcomes(session, "h1") == ["start", "Aborted"]
    assert session.history[-1]["content"][0]["text"] == TURN_ABORTED_MARKER
    assert is_paired(session.history)


# -- sync tools ------------------------------------------------------------------------------


@pytest.mark.parametrize("rep", range(10))
async def test_sync_tool_answers_aborted_at_once_and_can_notice(session, rep, no_leaked_tasks):
    started, finished = threading.Event(), threading.Event()
    noticed: list[bool] = []

    @session.tool
    def crunch(*, invocation: cx.tools.ToolInvocation) -> str:
        "A blocking tool that checks its cancel token."
        started.set()
        noticed.append(invocation.cancel.wait_sync(timeout=30))  # returns True at once on cancel
        finished.set()
        return "discarded"

    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("crunch", {}, call_id="x1")]))
    await asyncio.to_thread(started.wait)
    handle.interrupt()
    result = await handle
    assert_aborted_text(result.outputs()["x1"])
    await asyncio.to_thread(finished.wait)
    assert noticed == [True]


async def test_sync_tool_that_ignores_cancel_runs_on_but_its_result_is_discarded(session, no_leaked_tasks):
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    @session.tool
    def stuck() -> str:
        "Blocks until released; cannot be stopped."
        started.set()
        release.wait()
        finished.set()
        return "too late"

    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("stuck", {}, call_id="x1")]))
    await asyncio.to_thread(started.wait)
    handle.interrupt()
    result = await handle  # the turn does not wait for the thread
    assert not finished.is_set()
    assert_aborted_text(result.outputs()["x1"])
    release.set()
    await asyncio.to_thread(finished.wait)
    assert result.outputs()["x1"] != "too late"
    assert [i["output"] for i in session.history if i.get("call_id") == "x1" and "output" in i] == [
        result.outputs()["x1"]
    ]


# -- first-party vs external ---------------------------------------------------------------


async def test_external_cancel_is_told_apart(session, no_leaked_tasks):
    started, _ = blocking_tool(session)
    log = cx.testing.RecordingSubscriber(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    handle.task.cancel()  # e.g. kernel shutdown or an outer task cancelled
    with pytest.raises(asyncio.CancelledError):
        await handle
    assert handle.turn.cancel.source == CancelSource.EXTERNAL
    assert log.types == ["turn_started", "user_message", "turn_aborted"]
    assert all(TURN_ABORTED_MARKER not in str(i) for i in session.history)  # not "on purpose"
    assert [i.get("output") for i in session.history if i["type"] == "function_call_output"] == ["aborted"]
    assert outcomes(session, "s1") == ["start", "Aborted"]
    assert is_paired(session.history)


async def test_first_party_interrupt_source_and_reason(session, no_leaked_tasks):
    started, _ = blocking_tool(session)
    log = cx.testing.RecordingSubscriber(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    assert handle.interrupt("replaced")
    result = await handle
    assert handle.turn.cancel.source == CancelSource.FIRST_PARTY
    assert log.events[-1].msg.reason == "replaced"
    assert TURN_ABORTED_MARKER not in str(result.items)  # the marker is for `interrupted` only


# -- bad input -------------------------------------------------------------------------------


async def test_interrupt_twice_and_after_the_end(session, no_leaked_tasks):
    started, _ = blocking_tool(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    assert handle.interrupt() is True
    assert handle.interrupt() is False  # already interrupted: a no-op
    assert session.interrupt() is False
    result = await handle
    assert result.status == "interrupted"
    assert handle.interrupt() is False  # finished: nothing to stop
    assert session.interrupt() is False  # no turn running
    assert [e for e in session.history if e.get("content", [{}])[0].get("text") == TURN_ABORTED_MARKER]


async def test_interrupt_a_completed_turn_returns_false(session, no_leaked_tasks):
    handle = session.start_turn("go", model=cx.ScriptedModel([[cx.assistant_message("hi")]], record_requests=True))
    result = await handle
    assert result.status == "completed"
    assert handle.interrupt() is False
    assert result.status == "completed"


async def test_bad_reason_and_starting_a_second_turn(session, no_leaked_tasks):
    started, _ = blocking_tool(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    with pytest.raises(cx.TurnError, match="interrupt reason must be one of interrupted, replaced"):
        handle.interrupt("because")
    with pytest.raises(cx.TurnError, match=f"turn {handle.turn_id} is still running.*interrupt"):
        session.start_turn("again", model=cx.ScriptedModel([[cx.assistant_message("x")]], record_requests=True))
    handle.interrupt()
    with pytest.raises(cx.TurnError, match="still running"):  # during the grace period, too
        session.start_turn("again", model=cx.ScriptedModel([[cx.assistant_message("x")]], record_requests=True))
    await handle
    await session.run_turn("again", model=cx.ScriptedModel([[cx.assistant_message("x")]], record_requests=True))


@pytest.mark.parametrize("rep", range(10))
async def test_interrupt_from_another_thread(session, rep, no_leaked_tasks):
    started, _ = blocking_tool(session)
    handle = session.start_turn("go", model=model_then_leftover([cx.function_call("slow", {}, call_id="s1")]))
    await started.wait()
    answers: list[bool] = []
    thread = threading.Thread(target=lambda: answers.extend([handle.interrupt(), handle.interrupt()]))
    thread.start()
    result = await handle
    await asyncio.to_thread(thread.join)
    assert answers == [True, False]
    assert result.status == "interrupted"
    assert_aborted_text(result.outputs()["s1"])


async def test_steer_bad_input(session, no_leaked_tasks):
    with pytest.raises(cx.TurnError, match="no turn is running"):
        session.steer("hello")
    handle = session.start_turn("go", model=cx.ScriptedModel([[cx.assistant_message("hi")]], record_requests=True))
    with pytest.raises(cx.TurnError, match="takes the user's text"):
        handle.steer(42)  # type: ignore[arg-type]
    await handle
    with pytest.raises(cx.TurnError, match="already ended"):
        handle.steer("late")


async def test_steered_input_joins_the_next_request(session, no_leaked_tasks):
    started, release = blocking_tool(session)
    model = cx.ScriptedModel(
        [[cx.function_call("slow", {}, call_id="s1")], [cx.assistant_message("seen")]], record_requests=True
    )
    handle = session.start_turn("go", model=model)
    await started.wait()
    handle.steer("also this")
    release.set()
    result = await handle
    assert result.status == "completed"
    texts = [i["content"][0]["text"] for i in model.requests[1].items if i["type"] == "message"]
    assert texts == ["go", "also this"]


# -- observers -------------------------------------------------------------------------------


async def test_faulty_lifecycle_observer_is_detached_and_reported(session, no_leaked_tasks):
    def broken(record):
        raise RuntimeError("boom")

    seen: list[ControlToolCallFact] = []
    session.on_lifecycle(broken)
    session.on_control_tool_fact(seen.append)
    log = cx.testing.RecordingSubscriber(session)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    warnings = [e.msg.message for e in log.of_type("warning")]
    assert len(warnings) == 1 and "raised RuntimeError: boom; it was detached" in warnings[0]
    assert [f.status for f in seen] == [ControlToolStatus.COMPLETED]
    assert [str(r.outcome) if r.outcome else r.phase for r in session.lifecycle_log] == [
        "start",
        "Completed{success:true}",
    ]


async def test_control_tool_fact_shape(session, no_leaked_tasks):
    await session.call_tool("update_plan", PLAN, call_id="p9")
    (fact,) = session.control_tool_facts
    wire = fact.to_json()
    assert list(wire) == [
        "thread_id",
        "turn_id",
        "call_id",
        "cell_id",
        "tool_name",
        "started_at_ms",
        "completed_at_ms",
        "status",
    ]
    assert wire["call_id"] == "p9" and wire["cell_id"] is None and wire["status"] == "Completed"
    assert wire["started_at_ms"] <= wire["completed_at_ms"]
    assert "inspect" not in str(wire)  # never plan content
