"""Hostile and bad input: huge numbers, lone surrogates, deep nesting, odd encodings."""

from __future__ import annotations

from ..scenario import Scenario
from ._build import DONE, call, raw_plan

SCENARIOS = [
    raw_plan("bad_huge_number_status", '{"plan":[{"step":"a","status":1e999}]}'),
    raw_plan(
        "bad_huge_integer", '{"plan":[{"step":"a","status":"pending"}],"explanation":123456789012345678901234567890}'
    ),
    raw_plan("bad_lone_surrogate_step", '{"plan":[{"step":"\\ud800","status":"pending"}]}'),
    raw_plan("bad_surrogate_pair_step", '{"plan":[{"step":"\\ud83d\\ude80","status":"pending"}]}'),
    raw_plan("bad_invalid_escape", '{"plan":[{"step":"\\q","status":"pending"}]}'),
    raw_plan("bad_control_char_in_string", '{"plan":[{"step":"a\x01b","status":"pending"}]}'),
    raw_plan("bad_nul_in_string", '{"plan":[{"step":"a\\u0000b","status":"pending"}]}'),
    raw_plan("bad_deep_nesting_200", '{"plan":' + "[" * 200 + "]" * 200 + "}"),
    raw_plan("bad_deep_nesting_explanation", '{"explanation":' + "[" * 150 + "]" * 150 + ',"plan":[]}'),
    raw_plan("bad_bom_prefix", '\ufeff{"plan":[]}'),
    raw_plan("bad_unicode_key_escape", '{"pl\\u0061n":[]}'),
    raw_plan("bad_very_long_step", '{"plan":[{"step":"' + "x" * 20000 + '","status":"pending"}]}'),
    raw_plan("bad_negative_zero", '{"plan":[],"explanation":-0}'),
    raw_plan("bad_leading_zero", '{"plan":[],"explanation":01}'),
    Scenario(
        name="bad_non_string_arguments_object",
        responses=[
            [{"type": "function_call", "name": "update_plan", "arguments": '{"plan": []}\n', "call_id": "call_1"}],
            DONE,
        ],
    ),
    Scenario(name="bad_name_with_spaces", responses=[[call("update plan", {"plan": []})], DONE]),
    Scenario(name="bad_name_unicode", responses=[[call("updäte_plan", {"plan": []})], DONE]),
]
