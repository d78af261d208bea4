"""update_plan: valid plans and malformed arguments in every shape serde distinguishes."""

from __future__ import annotations

import json

from ..scenario import Scenario
from ._build import DONE, call, raw_plan

P = {"step": "read the code", "status": "in_progress"}

VALID = {
    "minimal": {"plan": [P]},
    "explanation": {"explanation": "because", "plan": [P, {"step": "test", "status": "pending"}]},
    "empty_plan": {"plan": []},
    "all_statuses": {
        "plan": [
            {"step": "a", "status": "completed"},
            {"step": "b", "status": "in_progress"},
            {"step": "c", "status": "pending"},
        ]
    },
    "two_in_progress": {"plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]},
    "explanation_null": {"explanation": None, "plan": [P]},
    "unknown_field_top": {"plan": [P], "extra": 1},
    "unknown_field_step": {"plan": [{"step": "a", "status": "pending", "note": "x"}]},
    "unicode_steps": {"plan": [{"step": "写代码 🚀 é", "status": "pending"}]},
    "empty_step_text": {"plan": [{"step": "", "status": "pending"}]},
    "empty_explanation": {"explanation": "", "plan": [P]},
    "keys_reversed": {"plan": [{"status": "pending", "step": "a"}]},
    "long_plan": {"plan": [{"step": f"step {i}", "status": "pending"} for i in range(60)]},
}

RAW = {
    # not JSON at all, or not an object
    "not_json": "plan: read",
    "not_json_starting_with_n": "not json",
    "truncated_null": "nul",
    "plan_truncated_true": '{"plan":tru',
    "plan_float": '{"plan":1.5}',
    "plan_negative": '{"plan":-3}',
    "explanation_float": '{"explanation":2.5e3,"plan":[]}',
    "explanation_bad_exponent": '{"explanation":1e,"plan":[]}',
    "missing_colon": '{"plan" []}',
    "missing_comma": '{"plan":[] "explanation":"x"}',
    "eof_after_key": '{"plan"',
    "eof_in_list": '{"plan":[',
    "status_as_map": '{"plan":[{"step":"a","status":{"pending":null}}]}',
    "status_as_map_unknown": '{"plan":[{"step":"a","status":{"later":null}}]}',
    "key_not_string": '{"plan":[], 1: 2}',
    "list_trailing_comma": '{"plan":[{"step":"a","status":"pending"},]}',
    "unicode_before_error": '{"explanation":"héllo wörld","plan":5}',
    "empty_arguments": "",
    "whitespace_arguments": "   ",
    "json_null": "null",
    "json_true": "true",
    "json_number": "42",
    "json_string": '"a plan"',
    "json_string_of_object": json.dumps(json.dumps({"plan": [P]})),
    "trailing_characters": '{"plan":[]} x',
    "trailing_comma": '{"plan":[],}',
    "eof_in_object": '{"plan":[{"step":"a"',
    "eof_in_string": '{"plan":[{"step":"a',
    "single_quotes": "{'plan': []}",
    "comment": '{"plan": [] /* c */}',
    "nan": '{"plan": NaN}',
    # struct fields
    "missing_plan": "{}",
    "missing_plan_with_explanation": '{"explanation":"x"}',
    "plan_null": '{"plan":null}',
    "plan_string": '{"plan":"read"}',
    "plan_number": '{"plan":3}',
    "plan_object": '{"plan":{"step":"a","status":"pending"}}',
    "plan_bool": '{"plan":true}',
    "duplicate_plan": '{"plan":[],"plan":[]}',
    "duplicate_explanation": '{"explanation":"a","explanation":"b","plan":[]}',
    "explanation_number": '{"explanation":5,"plan":[]}',
    "explanation_object": '{"explanation":{},"plan":[]}',
    "explanation_array": '{"explanation":["a"],"plan":[]}',
    # items
    "item_missing_step": '{"plan":[{"status":"pending"}]}',
    "item_missing_status": '{"plan":[{"step":"a"}]}',
    "item_status_unknown": '{"plan":[{"step":"a","status":"done"}]}',
    "item_status_camel": '{"plan":[{"step":"a","status":"inProgress"}]}',
    "item_status_number": '{"plan":[{"step":"a","status":1}]}',
    "item_status_null": '{"plan":[{"step":"a","status":null}]}',
    "item_step_number": '{"plan":[{"step":7,"status":"pending"}]}',
    "item_step_null": '{"plan":[{"step":null,"status":"pending"}]}',
    "item_string": '{"plan":["read"]}',
    "item_null": '{"plan":[null]}',
    "item_number": '{"plan":[1]}',
    "item_duplicate_step": '{"plan":[{"step":"a","step":"b","status":"pending"}]}',
    "second_item_bad": '{"plan":[{"step":"a","status":"pending"},{"step":"b","status":"nope"}]}',
    # serde also accepts a struct given as a JSON array (fields in declaration order)
    "struct_as_array": '[null, [{"step":"a","status":"pending"}]]',
    "struct_as_array_explained": '["why", [{"step":"a","status":"pending"}]]',
    "struct_as_array_short": '["why"]',
    "struct_as_array_empty": "[]",
    "struct_as_array_long": '["why", [], 3]',
    "item_as_array": '{"plan":[["a","pending"]]}',
    "item_as_array_short": '{"plan":[["a"]]}',
    "item_as_array_long": '{"plan":[["a","pending","x"]]}',
    "item_as_array_bad_status": '{"plan":[["a","later"]]}',
    "pretty_printed": json.dumps({"plan": [P]}, indent=4),
    "multiline_error": '{\n  "plan": [\n    {"step": "a", "status": "bad"}\n  ]\n}',
}

SCENARIOS = [
    *[Scenario(name=f"plan_valid_{k}", responses=[[call("update_plan", v)], DONE]) for k, v in VALID.items()],
    *[raw_plan(f"plan_raw_{k}", v) for k, v in RAW.items()],
    Scenario(
        name="plan_twice_in_one_response",
        responses=[
            [
                call("update_plan", {"plan": [P]}, "c1"),
                call("update_plan", {"explanation": "next", "plan": [{"step": "b", "status": "completed"}]}, "c2"),
            ],
            DONE,
        ],
    ),
    Scenario(
        name="plan_valid_then_invalid",
        responses=[
            [call("update_plan", {"plan": [P]}, "c1"), call("update_plan", '{"plan":5}', "c2")],
            [call("update_plan", {"plan": [{"step": "read the code", "status": "completed"}]}, "c3")],
            DONE,
        ],
    ),
    Scenario(name="plan_gate_absent", config="", responses=[[call("update_plan", {"plan": [P]})], DONE]),
    Scenario(
        name="plan_gate_disabled",
        config="[tools.update_plan]\nenabled = false\n",
        responses=[[call("update_plan", {"plan": [P]})], DONE],
    ),
    Scenario(
        name="plan_gate_empty_table",
        config="[tools.update_plan]\n",
        responses=[[call("update_plan", {"plan": [P]})], DONE],
    ),
    Scenario(
        name="plan_then_message_in_plan_mode",
        mode="plan",
        responses=[
            [
                call("update_plan", {"plan": [P]}),
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]},
            ],
            DONE,
        ],
    ),
    Scenario(name="plan_in_plan_mode", mode="plan", responses=[[call("update_plan", {"plan": [P]})], DONE]),
    Scenario(
        name="plan_custom_tool_call_payload",
        responses=[
            [
                {
                    "type": "custom_tool_call",
                    "name": "update_plan",
                    "input": json.dumps({"plan": [P]}),
                    "call_id": "call_1",
                }
            ],
            DONE,
        ],
    ),
]
