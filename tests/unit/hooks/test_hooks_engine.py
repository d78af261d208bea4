"""Python (notebook) hooks through the session: decisions, combination, on_error, events."""

from __future__ import annotations

import asyncio
import threading

import pytest

import codex_nb as cx
from codex_nb.hooks import AddContext, Block, PostToolUseInput, PreToolUseInput, Rewrite, Stop

PLAN = {"plan": [{"step": "Inspect", "status": "in_progress"}]}
REWRITTEN = {"explanation": "rewritten", "plan": [{"step": "Rewritten", "status": "pending"}]}


def types(res) -> list[str]:
    return [e.msg.type for e in res.events]


def runs(res, kind: str = "hook_completed"):
    return [e.msg.run for e in res.events if e.msg.type == kind]


async def test_python_pre_hook_blocks_with_exact_message(session):
    @session.pre_tool_use(matcher="update_plan")
    def guard(hook_input):
        return {"decision": "block", "reason": "not now"}

    res = await session.call_tool("update_plan", PLAN, call_id="c1")
    assert res.output == "Tool call blocked by PreToolUse hook: not now. Tool: update_plan"
    assert res.success is False
    assert types(res) == ["hook_started", "hook_completed"]
    started, completed = res.events[0].msg, res.events[1].msg
    assert started.run.status == "running" and started.run.entries == []
    run = completed.run
    assert run.id == f"pre-tool-use:0:python:{guard.__module__}.{guard.__qualname__}:c1"
    assert (run.event_name, run.handler_type, run.execution_mode, run.status) == (
        "pre_tool_use",
        "python",
        "sync",
        "blocked",
    )
    assert [(e.kind, e.text) for e in run.entries] == [("feedback", "not now")]
    assert run.duration_ms is not None and run.duration_ms >= 0
    assert completed.turn_id == res.events[0].id


async def test_typed_decisions_and_rewrite(session):
    @session.pre_tool_use(matcher="update_plan")
    async def rewrite(hook_input: PreToolUseInput):
        return Rewrite(updated_input=REWRITTEN)

    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    plan_event = next(e for e in res.events if e.msg.type == "plan_update")
    assert plan_event.msg.model_dump(mode="json") == {"type": "plan_update", **REWRITTEN}
    assert types(res) == ["hook_started", "hook_completed", "plan_update"]


async def test_hook_input_has_the_stdin_fields(session):
    seen: list = []
    session.pre_tool_use(seen.append)
    session.post_tool_use(seen.append)
    res = await session.call_tool("update_plan", PLAN, call_id="c9")
    pre, post = seen
    assert isinstance(pre, PreToolUseInput) and isinstance(post, PostToolUseInput)
    turn_id = res.events[0].msg.turn_id
    assert pre.to_json() == {
        "session_id": session.thread_id,
        "turn_id": turn_id,
        "transcript_path": None,
        "cwd": session.cwd,
        "hook_event_name": "PreToolUse",
        "model": "scripted",
        "permission_mode": "default",
        "tool_name": "update_plan",
        "tool_input": PLAN,
        "tool_use_id": "c9",
    }
    assert list(post.to_json()) == [
        "session_id",
        "turn_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "model",
        "permission_mode",
        "tool_name",
        "tool_input",
        "tool_response",
        "tool_use_id",
    ]
    assert post.tool_response == "Plan updated" and post.hook_event_name == "PostToolUse"


async def test_matcher_filters_hooks(session):
    calls: list[str] = []
    session.pre_tool_use(lambda i: calls.append("bash"), matcher="Bash")
    session.pre_tool_use(lambda i: calls.append("regex"), matcher="^update_")
    await session.call_tool("update_plan", PLAN)
    assert calls == ["regex"]


async def test_updated_input_comes_from_last_configured_hook_not_last_finished(session):
    second_done = asyncio.Event()

    @session.pre_tool_use
    async def first(hook_input):
        await second_done.wait()  # finishes after `second`
        return Rewrite(updated_input={"plan": [{"step": "from first", "status": "pending"}]})

    @session.pre_tool_use
    async def second(hook_input):
        second_done.set()
        return Rewrite(updated_input={"plan": [{"step": "from second", "status": "pending"}]})

    res = await session.call_tool("update_plan", PLAN)
    plan_event = next(e for e in res.events if e.msg.type == "plan_update")
    assert plan_event.msg.plan[0].step == "from second"
    # reported in configured order too
    assert [r.display_order for r in runs(res)] == [0, 1]


async def test_deny_wins_and_first_block_reason_in_configured_order(session):
    session.pre_tool_use(lambda i: Rewrite(updated_input=REWRITTEN))

    @session.pre_tool_use
    async def slow_block(hook_input):
        await asyncio.sleep(0)
        return Block(reason="first reason")

    session.pre_tool_use(lambda i: Block(reason="second reason"))
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: first reason. Tool: update_plan"
    assert "plan_update" not in types(res)
    assert [r.status for r in runs(res)] == ["completed", "blocked", "blocked"]


async def test_hooks_run_concurrently(session):
    gate_a, gate_b = asyncio.Event(), asyncio.Event()

    @session.pre_tool_use
    async def a(hook_input):
        gate_a.set()
        await gate_b.wait()

    @session.pre_tool_use
    async def b(hook_input):
        gate_b.set()
        await gate_a.wait()

    res = await session.call_tool("update_plan", PLAN)  # would deadlock if sequential
    assert res.output == "Plan updated"
    assert types(res) == ["hook_started", "hook_started", "hook_completed", "hook_completed", "plan_update"]


async def test_post_block_feedback_joined_with_blank_line(session):
    session.post_tool_use(lambda i: Block(reason="r1"))
    session.post_tool_use(lambda i: {"decision": "block", "reason": "r2"})
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "r1\n\nr2" and res.success is False
    # the handler ran first: the plan update was already delivered
    assert types(res) == ["plan_update", "hook_started", "hook_started", "hook_completed", "hook_completed"]


async def test_post_stop_replaces_text_but_keeps_success(session):
    session.post_tool_use(lambda i: Stop(stop_reason="halt"))
    res = await session.call_tool("update_plan", PLAN)
    assert (res.output, res.success) == ("halt", True)
    assert runs(res)[0].status == "stopped"


async def test_additional_context_is_returned_even_when_blocked(session):
    session.pre_tool_use(lambda i: Block(reason="no", additional_context="pre context"))
    res = await session.call_tool("update_plan", PLAN)
    assert res.result.context_items == [cx.protocol.items.developer_message("pre context")]

    session2 = cx.Session()
    session2.pre_tool_use(lambda i: AddContext(text="ctx A"))
    session2.post_tool_use(lambda i: AddContext(text="ctx B"))
    res2 = await session2.call_tool("update_plan", PLAN)
    assert [item["content"][0]["text"] for item in res2.result.context_items] == ["ctx A", "ctx B"]


async def test_crashing_hook_fails_open_and_is_reported_failed(session):
    @session.pre_tool_use
    def crash(hook_input):
        raise RuntimeError("boom")

    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    run = runs(res)[0]
    assert run.status == "failed"
    assert [(e.kind, e.text) for e in run.entries] == [("error", "hook raised RuntimeError: boom")]


async def test_on_error_block_fails_closed_but_still_reports_failed(session):
    @session.pre_tool_use(on_error="block")
    def crash(hook_input):
        raise RuntimeError("boom")

    res = await session.call_tool("update_plan", PLAN)
    assert res.output == (
        "Tool call blocked by PreToolUse hook: hook raised RuntimeError: boom (on_error = block). Tool: update_plan"
    )
    assert "plan_update" not in types(res)
    assert runs(res)[0].status == "failed"


async def test_post_on_error_block(session):
    session.post_tool_use(lambda i: 42, on_error="block")
    res = await session.call_tool("update_plan", PLAN)
    assert res.success is False
    assert res.output.startswith("hook returned an unsupported value of type int")
    assert res.output.endswith("(on_error = block)")


@pytest.mark.slow
async def test_async_python_hook_timeout(session):
    never = asyncio.Event()

    @session.pre_tool_use(timeout=1, on_error="block")
    async def stuck(hook_input):
        await never.wait()

    res = await session.call_tool("update_plan", PLAN)
    assert res.output == (
        "Tool call blocked by PreToolUse hook: hook timed out after 1s (on_error = block). Tool: update_plan"
    )


@pytest.mark.slow
async def test_sync_python_hook_timeout_fails_open(session):
    release = threading.Event()

    @session.pre_tool_use(timeout=1)
    def stuck(hook_input):
        release.wait()

    try:
        res = await session.call_tool("update_plan", PLAN)
    finally:
        release.set()
    assert res.output == "Plan updated"
    assert [(e.kind, e.text) for e in runs(res)[0].entries] == [("error", "hook timed out after 1s")]


async def test_rewrite_in_post_hook_and_bad_values_fail(session):
    session.post_tool_use(lambda i: Rewrite(updated_input={}))
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    assert runs(res)[0].entries[0].text == "Rewrite is only supported by PreToolUse hooks"


async def test_reregistering_replaces_the_hook(session):
    def guard(hook_input):
        return Block(reason="v1")

    session.pre_tool_use(guard)

    def guard(hook_input):  # noqa: F811  (a re-run notebook cell)
        return Block(reason="v2")

    session.pre_tool_use(guard)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: v2. Tool: update_plan"
    assert len(session.hook_engine.hooks()) == 1
    session.remove_hook(guard)
    assert session.hook_engine.hooks() == []


async def test_hooks_feature_off():
    session = cx.Session(config=cx.Config(hooks_enabled=False))
    session.pre_tool_use(lambda i: Block(reason="no"))
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated" and types(res) == ["plan_update"]


def test_decorator_misuse_is_a_clear_error(session):
    with pytest.raises(cx.errors.HookError, match="matcher="):
        session.pre_tool_use("update_plan")
    with pytest.raises(cx.errors.HookError, match="not a valid regular expression"):
        session.pre_tool_use(lambda i: None, matcher="(")
    with pytest.raises(cx.errors.HookError, match=r"post_tool_use got unknown option\(s\) \['matchr'\]; it takes"):
        session.post_tool_use(matchr="update_plan")
    for timeout in ("10", float("nan"), True):
        with pytest.raises(cx.errors.HookError, match="timeout must be a number of seconds"):
            session.pre_tool_use(lambda i: None, timeout=timeout)  # type: ignore[arg-type]
    with pytest.raises(cx.errors.HookError, match="built-in engine"):
        cx.Session(hooks=cx.tools.hook_points.NoHooks()).trust_hooks()


async def test_config_toml_hooks_are_trusted_and_run():
    cfg = cx.Config.from_toml("""
[tools.update_plan]
enabled = true

[[hooks.PreToolUse]]
matcher = "update_plan"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "echo 'from config' >&2; exit 2"
""")
    session = cx.Session(config=cfg)
    assert [h.status for h in session.hook_engine.hooks()] == ["managed"]
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: from config. Tool: update_plan"
    assert runs(res)[0].source_path == "<config.toml>"
