"""Routing: unknown tools, payload-kind mismatches, several calls per response, clock tools."""

from __future__ import annotations

from ..scenario import UPDATE_PLAN_ON, Scenario
from ._build import DONE, call

P = {"plan": [{"step": "a", "status": "pending"}]}
CLOCK = UPDATE_PLAN_ON + "\n[features.current_time_reminder]\nenabled = true\n"
CLOCK_SLEEP = UPDATE_PLAN_ON + "\n[features.current_time_reminder]\nenabled = true\nsleep_tool = true\n"


def custom(name: str, text: str, call_id: str = "call_1", **kw: object) -> dict[str, object]:
    item: dict[str, object] = {"type": "custom_tool_call", "name": name}
    item.update(kw)
    item.update({"input": text, "call_id": call_id})
    return item


SCENARIOS = [
    Scenario(name="unknown_function", responses=[[call("no_such_tool", {})], DONE]),
    Scenario(name="unknown_function_bad_json", responses=[[call("no_such_tool", "{oops")], DONE]),
    Scenario(name="unknown_custom_tool", responses=[[custom("no_such_tool", "hello")], DONE]),
    Scenario(name="unknown_namespaced_function", responses=[[call("curr_time", {}, namespace="nowhere")], DONE]),
    Scenario(name="unknown_empty_name", responses=[[call("", {})], DONE]),
    Scenario(name="unknown_then_known", responses=[[call("nope", {}, "c1"), call("update_plan", P, "c2")], DONE]),
    Scenario(
        name="custom_call_to_function_tool_request_user_input",
        responses=[[custom("request_user_input", '{"questions":[]}')], DONE],
    ),
    Scenario(
        name="three_calls_one_response",
        responses=[
            [call("update_plan", P, "c1"), call("nope", {}, "c2"), call("update_plan", '{"plan":"x"}', "c3")],
            DONE,
        ],
    ),
    Scenario(
        name="calls_over_three_responses",
        responses=[
            [call("update_plan", P, "c1")],
            [call("update_plan", P, "c2")],
            [call("update_plan", P, "c3")],
            DONE,
        ],
    ),
    Scenario(
        name="message_and_call_in_one_response",
        responses=[
            [
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "planning"}]},
                call("update_plan", P),
            ],
            DONE,
        ],
    ),
    Scenario(name="only_a_message", responses=[DONE]),
    Scenario(name="duplicate_call_ids", responses=[[call("update_plan", P, "same"), call("nope", {}, "same")], DONE]),
    Scenario(
        name="clock_curr_time",
        config=CLOCK,
        responses=[[call("curr_time", {}, namespace="clock")], DONE],
        tags=("clock",),
    ),
    Scenario(
        name="clock_curr_time_bad_args",
        config=CLOCK,
        responses=[[call("curr_time", "{not json", namespace="clock")], DONE],
    ),
    Scenario(name="clock_curr_time_without_namespace", config=CLOCK, responses=[[call("curr_time", {})], DONE]),
    Scenario(
        name="clock_sleep_zero",
        config=CLOCK_SLEEP,
        responses=[[call("sleep", {"duration_ms": 0}, namespace="clock")], DONE],
    ),
    Scenario(
        name="clock_sleep_too_long",
        config=CLOCK_SLEEP,
        responses=[[call("sleep", {"duration_ms": 43200001}, namespace="clock")], DONE],
    ),
    Scenario(
        name="clock_sleep_bad_type",
        config=CLOCK_SLEEP,
        responses=[[call("sleep", {"duration_ms": "10"}, namespace="clock")], DONE],
    ),
    Scenario(
        name="clock_sleep_unknown_key",
        config=CLOCK_SLEEP,
        responses=[[call("sleep", {"duration_ms": 1, "x": 1}, namespace="clock")], DONE],
    ),
    Scenario(name="clock_sleep_missing", config=CLOCK_SLEEP, responses=[[call("sleep", {}, namespace="clock")], DONE]),
    Scenario(name="clock_off_call", responses=[[call("curr_time", {}, namespace="clock")], DONE]),
    Scenario(
        name="clock_custom_payload", config=CLOCK, responses=[[custom("curr_time", "now", namespace="clock")], DONE]
    ),
]
