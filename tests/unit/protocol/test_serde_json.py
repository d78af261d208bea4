"""serde_json emulation: exact texts and positions observed from Codex 0.169 (tests/conformance recorded them)."""

from __future__ import annotations

import pytest

from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.protocol.serde import SerdeError, parse_strict
from codex_nb.protocol.serde_json import SerdeJsonError, from_value, rust_float, struct_shape, value_from_str

CASES = [
    ("", "EOF while parsing a value at line 1 column 0"),
    ("   ", "EOF while parsing a value at line 1 column 3"),
    ("not json", "expected ident at line 1 column 2"),
    ('{"plan":[],}', "trailing comma at line 1 column 12"),
    ('{"plan":[{"step":"a"', "EOF while parsing an object at line 1 column 20"),
    ('{"plan":[{"step":"a', "EOF while parsing a string at line 1 column 19"),
    ('{"plan": [] /* c */}', "expected `,` or `}` at line 1 column 13"),
    ('{"plan":null}', "invalid type: null, expected a sequence at line 1 column 12"),
    ('{"plan":{"step":"a","status":"pending"}}', "invalid type: map, expected a sequence at line 1 column 8"),
    ('{"plan":[],"plan":[]}', "duplicate field `plan` at line 1 column 17"),
    ('{"plan":[{"step":"a","status":1}]}', "expected value at line 1 column 31"),
    (
        '{"plan":[],"explanation":123456789012345678901234567890}',
        "invalid type: number, expected a string at line 1 column 55",
    ),
    ('{"plan":[],"explanation":-0}', "invalid type: integer `0`, expected a string at line 1 column 27"),
    ('{"plan":[{"step":"\\ud800","status":"pending"}]}', "unexpected end of hex escape at line 1 column 25"),
    ('["why"]', "invalid length 1, expected struct UpdatePlanArgs with 2 elements at line 1 column 7"),
    ("[]", "invalid length 1, expected struct UpdatePlanArgs with 2 elements at line 1 column 2"),
    ('["why", [], 3]', "trailing characters at line 1 column 13"),
    ('{"plan":[["a"]]}', "invalid length 1, expected struct PlanItemArg with 2 elements at line 1 column 14"),
    (
        '{"plan":[{"step":"a","status":"pending","note":"x"}]}',
        "unknown field `note`, expected `step` or `status` at line 1 column 46",
    ),
    ('\ufeff{"plan":[]}', "expected value at line 1 column 1"),
    ('{"plan":' + "[" * 200 + "]" * 200 + "}", "invalid type: sequence, expected a string at line 1 column 10"),
]


@pytest.mark.parametrize(("text", "error"), CASES)
def test_update_plan_errors_match_codex(text: str, error: str) -> None:
    with pytest.raises(SerdeError) as caught:
        parse_strict(UpdatePlanArgs, text)
    assert str(caught.value) == error


def test_struct_given_as_array_is_accepted() -> None:
    args = parse_strict(UpdatePlanArgs, '["why", [["a", "pending"]]]')
    assert args.explanation == "why" and args.plan[0].step == "a"


def test_from_value_has_no_positions_and_numbers_are_number() -> None:
    with pytest.raises(SerdeJsonError) as caught:
        from_value(struct_shape(UpdatePlanArgs), value_from_str('{"plan": 5}'))
    assert str(caught.value) == "invalid type: number, expected a sequence"


def test_rust_float_display() -> None:
    assert [rust_float(v) for v in (1.5, 1e20, 1e-7, float("inf"))] == [
        "1.5",
        "100000000000000000000.0",
        "0.0000001",
        "inf",
    ]
