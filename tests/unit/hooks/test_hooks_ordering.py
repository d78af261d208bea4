"""Ordering guarantees of hooks around update_plan: a PreToolUse block stops the
PlanUpdate, a PostToolUse block cannot retract it, one lifecycle outcome per call.

End to end through ``session.call_tool`` and ``session.run_turn`` with ``cx.ScriptedModel``."""

from __future__ import annotations

import json

import codex_nb as cx
from codex_nb.tools.lifecycle import ControlToolStatus
from codex_nb.hooks import AddContext, Block, Rewrite, Stop

ARGS = {"explanation": "original", "plan": [{"step": "Inspect", "status": "in_progress"}]}
NEW = {"explanation": "rewritten by hook", "plan": [{"step": "Rewritten", "status": "pending"}]}
BLOCK_TEXT = "Tool call blocked by PreToolUse hook: plans are frozen. Tool: update_plan"


def script(args=ARGS) -> cx.ScriptedModel:
    return cx.ScriptedModel(
        [[cx.function_call("update_plan", args, call_id="c1")], [cx.assistant_message("done")]], record_requests=True
    )


def kinds(events) -> list[str]:
    return [e.msg.type for e in events]


def outcomes(session) -> list[str]:
    return [f"{r.phase}:{r.outcome}" if r.outcome else r.phase for r in session.lifecycle_log]


async def test_pre_block_no_plan_update_block_message_and_rejected(session):
    session.pre_tool_use(lambda i: Block(reason="plans are frozen"), matcher="update_plan")
    model = script()
    result = await session.run_turn("plan it", model=model)
    assert result.status == "completed"
    assert kinds(result.events) == [
        "turn_started",
        "user_message",
        "hook_started",
        "hook_completed",
        "agent_message",
        "turn_complete",
    ]
    assert model.requests[1].outputs() == {"c1": BLOCK_TEXT}
    assert outcomes(session) == ["finish:Blocked"]  # no lifecycle start for a blocked call
    (fact,) = session.control_tool_facts
    assert fact.status == ControlToolStatus.REJECTED


async def test_pre_block_via_call_tool(session):
    session.pre_tool_use(lambda i: {"decision": "block", "reason": "plans are frozen"})
    res = await session.call_tool("update_plan", ARGS, call_id="c1")
    assert (res.output, res.success) == (BLOCK_TEXT, False)
    assert res.item == {"type": "function_call_output", "call_id": "c1", "output": BLOCK_TEXT}
    assert "plan_update" not in kinds(res.events)


async def test_pre_rewrite_changes_the_emitted_plan(session):
    session.pre_tool_use(lambda i: Rewrite(updated_input=NEW), matcher="update_plan")
    model = script()
    result = await session.run_turn("plan it", model=model)
    assert kinds(result.events) == [
        "turn_started",
        "user_message",
        "hook_started",
        "hook_completed",
        "plan_update",
        "agent_message",
        "turn_complete",
    ]
    (update,) = [e for e in result.events if e.msg.type == "plan_update"]
    assert update.msg.model_dump(mode="json") == {"type": "plan_update", **NEW}
    assert model.requests[1].outputs() == {"c1": "Plan updated"}
    # the model's own call item in history keeps the original arguments
    call_item = next(i for i in session.history if i.get("type") == "function_call")
    assert json.loads(call_item["arguments"]) == ARGS


async def test_post_runs_only_after_a_successful_handler(session):
    seen: list[str] = []
    session.post_tool_use(lambda i: seen.append(i.tool_use_id))
    bad = await session.call_tool("update_plan", {"explanation": "no plan"}, call_id="bad")
    assert bad.success is False and seen == []
    assert kinds(bad.events) == []
    blocked = cx.Session()
    blocked.pre_tool_use(lambda i: Block(reason="no"))
    blocked.post_tool_use(lambda i: seen.append(i.tool_use_id))
    await blocked.call_tool("update_plan", ARGS, call_id="blocked")
    assert seen == []
    ok = await session.call_tool("update_plan", ARGS, call_id="ok")
    assert seen == ["ok"]
    assert kinds(ok.events) == ["plan_update", "hook_started", "hook_completed"]


async def test_post_block_replaces_output_but_plan_update_was_already_delivered(session):
    delivered: list[str] = []
    session.subscribe(lambda e: delivered.append(e.msg.type))
    session.post_tool_use(lambda i: Block(reason="the plan looks wrong"), matcher="update_plan")
    model = script()
    result = await session.run_turn("plan it", model=model)
    assert kinds(result.events) == [
        "turn_started",
        "user_message",
        "plan_update",
        "hook_started",
        "hook_completed",
        "agent_message",
        "turn_complete",
    ]
    assert delivered.index("plan_update") < delivered.index("hook_started")
    assert model.requests[1].outputs() == {"c1": "the plan looks wrong"}
    (update,) = [e for e in result.events if e.msg.type == "plan_update"]
    assert update.msg.model_dump(mode="json") == {"type": "plan_update", **ARGS}  # not retracted
    assert outcomes(session) == ["start", "finish:Completed{success:true}"]


async def test_post_continue_false_stop_text(session):
    session.post_tool_use(lambda i: {"continue": False, "stopReason": "halt after plan"})
    res = await session.call_tool("update_plan", ARGS)
    assert (res.output, res.success) == ("halt after plan", True)
    other = cx.Session()
    other.post_tool_use(lambda i: Stop())
    res = await other.call_tool("update_plan", ARGS)
    assert res.output == "PostToolUse hook stopped execution"
    other2 = cx.Session()
    other2.post_tool_use(lambda i: Stop(stop_reason="halt", reason="model-facing reason"))
    res = await other2.call_tool("update_plan", ARGS)
    assert res.output == "model-facing reason"


async def test_additional_context_becomes_developer_messages_before_the_output(session):
    session.pre_tool_use(lambda i: AddContext(text="pre note"))
    session.post_tool_use(lambda i: AddContext(text="post note"))
    model = script()
    await session.run_turn("plan it", model=model)
    items = model.requests[1].items
    dev = [i for i in items if i.get("role") == "developer"]
    assert [i["content"][0]["text"] for i in dev] == ["pre note", "post note"]
    out_index = next(n for n, i in enumerate(items) if i.get("type") == "function_call_output")
    assert all(items.index(d) < out_index for d in dev)


async def test_block_records_context_too(session):
    session.pre_tool_use(lambda i: Block(reason="plans are frozen", additional_context="why: freeze"))
    model = script()
    await session.run_turn("plan it", model=model)
    dev = [i for i in model.requests[1].items if i.get("role") == "developer"]
    assert [i["content"][0]["text"] for i in dev] == ["why: freeze"]
    assert model.requests[1].outputs() == {"c1": BLOCK_TEXT}
