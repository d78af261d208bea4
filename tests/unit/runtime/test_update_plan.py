"""update_plan end to end, mirroring Codex's own tests (``tool_harness.rs``)."""

from __future__ import annotations

import json

import pytest

import codex_nb as cx
from codex_nb.protocol.app_server import turn_plan_updated
from codex_nb.runtime.history import repair_history
from codex_nb.protocol.wire import dumps

SPEC_WIRE = (
    '{"type":"function","name":"update_plan","description":"Updates the task plan.\\nProvide an optional '
    "explanation and a list of plan items, each with a step and status.\\nAt most one step can be in_progress at "
    'a time.\\n","strict":false,"parameters":{"type":"object","properties":{"explanation":{"type":"string",'
    '"description":"Optional explanation for this plan update."},"plan":{"type":"array","description":"The list of '
    'steps","items":{"type":"object","properties":{"status":{"type":"string","description":"Step status.","enum":'
    '["pending","in_progress","completed"]},"step":{"type":"string","description":"Task step text."}},"required":'
    '["step","status"],"additionalProperties":false}}},"required":["plan"],"additionalProperties":false}}'
)
HARNESS_ARGS = {
    "explanation": "Tool harness check",
    "plan": [{"step": "Inspect workspace", "status": "in_progress"}, {"step": "Report results", "status": "pending"}],
}


def test_spec_is_byte_identical_to_codex(session: cx.Session) -> None:
    plan = session.tool_plan()
    update_plan = next(s for s in plan.specs if s.get("name") == "update_plan")
    assert dumps(update_plan) == SPEC_WIRE


async def test_update_plan_tool_emits_plan_update_event(session: cx.Session) -> None:
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", HARNESS_ARGS, call_id="call-1")],
            [cx.assistant_message("done")],
        ],
        record_requests=True,
    )
    result = await session.run_turn("make a plan", model=model)
    assert result.status == "completed"
    plan_events = [e for e in result.events if e.msg.type == "plan_update"]
    assert len(plan_events) == 1
    assert plan_events[0].msg.model_dump(mode="json") == {"type": "plan_update", **HARNESS_ARGS}
    assert plan_events[0].id == result.turn_id
    assert [e.msg.type for e in result.events] == [
        "turn_started",
        "user_message",
        "plan_update",
        "agent_message",
        "turn_complete",
    ]
    follow_up = model.requests[1]
    assert {"type": "function_call_output", "call_id": "call-1", "output": "Plan updated"} in follow_up.items


async def test_update_plan_tool_rejects_malformed_payload(session: cx.Session) -> None:
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"explanation": "Missing plan data"}, call_id="call-1")],
            [cx.assistant_message("ok")],
        ],
        record_requests=True,
    )
    result = await session.run_turn("plan", model=model)
    assert "plan_update" not in [e.msg.type for e in result.events]
    output = model.requests[1].outputs()["call-1"]
    assert output.startswith("failed to parse function arguments: missing field `plan`")


@pytest.mark.parametrize(
    ("arguments", "prefix"),
    [
        (
            '{"plan":[],"x":1}',
            "failed to parse function arguments: unknown field `x`, expected `explanation` or `plan`",
        ),
        (
            '{"plan":[{"step":"a","status":"done"}]}',
            "failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, "
            "`completed`",
        ),
        (
            '{"plan":[{"step":"a","status":"pending","x":1}]}',
            "failed to parse function arguments: unknown field `x`, expected `step` or `status`",
        ),
        ('{"plan":[{"status":"pending"}]}', "failed to parse function arguments: missing field `step`"),
        ('{"plan":"nope"}', 'failed to parse function arguments: invalid type: string "nope", expected a sequence'),
        # serde accepts a struct given as an array (fields in order): explanation=1 is the error (Codex 0.169)
        (
            "[1,2]",
            "failed to parse function arguments: invalid type: integer `1`, expected a string at line 1 column 2",
        ),
        (
            "not json",
            "failed to parse function arguments: expected ident at line 1 column 2",
        ),  # serde reads `n` as null
        ("", "failed to parse function arguments: EOF while parsing a value"),
        (
            '{"plan":[{"step":5,"status":"pending"}]}',
            "failed to parse function arguments: invalid type: integer `5`, expected a string",
        ),
    ],
)
async def test_malformed_arguments_give_serde_messages_and_no_event(session, arguments, prefix) -> None:
    rec = cx.testing.RecordingSubscriber(session)
    result = await session.call_tool("update_plan", arguments)
    assert result.output.startswith(prefix), result.output
    assert result.success is False
    assert rec.events == []


async def test_explanation_missing_or_null_and_empty_plan_accepted(session: cx.Session) -> None:
    for args in ({"plan": []}, {"explanation": None, "plan": []}):
        result = await session.call_tool("update_plan", args)
        assert result.output == "Plan updated"
        assert result.events[0].msg.model_dump(mode="json") == {"type": "plan_update", "explanation": None, "plan": []}


async def test_explanation_is_not_trimmed(session: cx.Session) -> None:
    result = await session.call_tool("update_plan", {"explanation": "  spaced  ", "plan": []})
    assert result.events[0].msg.explanation == "  spaced  "


async def test_plan_mode_rejects_before_parsing(session: cx.Session) -> None:
    for arguments in (HARNESS_ARGS, "not even json"):
        result = await session.call_tool("update_plan", arguments, mode="plan")
        assert result.output == "update_plan is a TODO/checklist tool and is not allowed in Plan mode"
        assert result.events == []
    assert "update_plan" in session.tool_plan(mode="plan").tool_names  # still listed in Plan mode


async def test_two_in_progress_steps_accepted_by_default(session: cx.Session) -> None:
    args = {"plan": [{"step": "A", "status": "in_progress"}, {"step": "B", "status": "in_progress"}]}
    result = await session.call_tool("update_plan", args)
    assert result.output == "Plan updated"
    assert len(result.events) == 1


async def test_optional_validation_warn_and_reject() -> None:
    args = {"plan": [{"step": "A", "status": "in_progress"}, {"step": "B", "status": "in_progress"}]}
    warn = cx.Session(cx.Config(plan_validation="warn"))
    result = await warn.call_tool("update_plan", args)
    assert result.output == "Plan updated"
    assert [e.msg.type for e in result.events] == ["warning", "plan_update"]
    reject = cx.Session(cx.Config(plan_validation="reject"))
    result = await reject.call_tool("update_plan", args)
    assert result.success is False
    assert result.output.startswith("plan validation failed: 2 steps are in_progress")
    assert result.events == []


async def test_custom_payload_is_answered_aborted(session: cx.Session) -> None:
    # Codex 0.169 (conformance plan_custom_tool_call_payload): the call gets a
    # custom_tool_call_output "aborted", no plan event, and the turn goes on.
    model = cx.ScriptedModel([[cx.custom_tool_call("update_plan", "{}", call_id="x")], [cx.assistant_message("ok")]])
    result = await session.run_turn("go", model=model)
    assert result.status == "completed"
    assert {"type": "custom_tool_call_output", "call_id": "x", "output": "aborted"} in result.items
    assert not [e for e in result.events if e.msg.type == "plan_update"]
    assert repair_history(session.history) == session.history  # still paired


async def test_revision_is_monotonic_per_session(session: cx.Session) -> None:
    revisions = []
    for _ in range(3):
        result = await session.call_tool("update_plan", {"plan": []})
        revisions.append(result.events[0].revision)
    assert revisions == sorted(revisions) and len(set(revisions)) == 3
    assert "revision" not in json.dumps(result.events[0].model_dump(mode="json"))


def test_config_gate() -> None:
    assert cx.Config().update_plan_enabled is True
    assert cx.Config.from_toml("").update_plan_enabled is False
    assert cx.Config.from_toml("[tools.update_plan]\n").update_plan_enabled is False
    assert cx.Config.from_toml("[tools.update_plan]\nenabled = true").update_plan_enabled is True
    assert cx.Config.from_toml("[tools.update_plan]\nenabled = false").update_plan_enabled is False
    for config, present in (
        (cx.Config(), True),
        (cx.Config(update_plan_enabled=False), False),
        (cx.Config.from_toml(""), False),
    ):
        session = cx.Session(config)
        assert ("update_plan" in session.tool_plan().tool_names) is present
        assert ("update_plan" in session.registry) is present


async def test_gate_off_call_is_unknown_tool() -> None:
    session = cx.Session(cx.Config.from_toml(""))
    result = await session.call_tool("update_plan", HARNESS_ARGS, call_id="c9")
    assert result.item == {"type": "function_call_output", "call_id": "c9", "output": "unsupported call: update_plan"}


def test_config_errors_name_the_fix() -> None:
    with pytest.raises(cx.ConfigError, match="tools.update_plan.enabled must be true or false"):
        cx.Config.from_toml('[tools.update_plan]\nenabled = "yes"')
    with pytest.raises(cx.ConfigError, match="does not parse"):
        cx.Config.from_toml("[tools")
    with pytest.raises(cx.ConfigError, match="takes TOML text"):
        cx.Config.from_toml(b"x")  # type: ignore[arg-type]


def test_turn_plan_updated_notification() -> None:
    args = {
        "explanation": None,
        "plan": [{"step": "first", "status": "in_progress"}, {"step": "second", "status": "completed"}],
    }
    note = turn_plan_updated("thr", "turn-123", args)
    assert dumps(note) == (
        '{"method":"turn/plan/updated","params":{"threadId":"thr","turnId":"turn-123","explanation":null,'
        '"plan":[{"step":"first","status":"inProgress"},{"step":"second","status":"completed"}]}}'
    )
