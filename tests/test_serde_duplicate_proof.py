"""The key-count proof lets most texts skip the exact duplicate-key check, never a real duplicate."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.protocol.serde import SerdeError, _closed_fields, parse_exact, parse_strict, provably_no_duplicate_keys


@pytest.mark.parametrize(("text", "proven"), [
    ('{"plan": [{"step": "a", "status": "pending"}]}', True),
    ('[1, 2, "x"]', True),
    ('{"a": 1, "a": 2}', False),
    ('{"plan": [{"step": "a", "step": "b", "status": "pending"}]}', False),
    ('{"explanation": "note: colons in strings", "plan": []}', False),  # not proven: exact check decides
])
def test_the_proof(text: str, proven: bool) -> None:
    assert provably_no_duplicate_keys(text) is proven


def test_a_colon_in_a_string_still_parses_and_a_duplicate_still_fails() -> None:
    ok = parse_strict(UpdatePlanArgs, '{"explanation": "a: b", "plan": [{"step": "x: y", "status": "pending"}]}')
    assert ok.plan[0].step == "x: y"
    with pytest.raises(SerdeError, match="duplicate field `step`"):
        parse_strict(UpdatePlanArgs, '{"plan": [{"step": "a", "step": "b", "status": "pending"}]}')


class Loose(BaseModel):
    """Not closed: its dict field holds keys the model does not name."""

    model_config = ConfigDict(extra="forbid")
    data: dict[str, int]


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    inner: Loose | None = None
    items: list[UpdatePlanArgs] = []


def test_closed_models_are_told_from_models_that_hold_unnamed_keys() -> None:
    assert _closed_fields(UpdatePlanArgs) == ("plan",)
    assert _closed_fields(Loose) is None and _closed_fields(Outer) is None


@pytest.mark.parametrize("text", [
    '{"plan": [{"step": "a", "status": "pending", "step": "b"}]}',
    '{"plan": [{"step": "a", "status": "pending"}], "plan": [{"step": "a", "status": "pending"}]}',
    '{"explanation": "x", "explanation": "x", "plan": []}',
    '{"plan": [{"step": "a" , "status": "pending", "status" : "completed"}]}',
])
def test_the_model_side_count_never_lets_a_duplicate_through(text: str) -> None:
    with pytest.raises(SerdeError, match="duplicate field"):
        parse_strict(UpdatePlanArgs, text)


@pytest.mark.parametrize("text", ['{"data": {"a": 1, "a": 2}}', '{"data": {"a": 1, "b": 2}}',
                                  '{"data": {"a": 1}, "data": {"b": 2}}'])
def test_an_open_model_takes_the_exact_path_whenever_the_proof_fails(text: str) -> None:
    try:
        exact: object = parse_exact(Loose, text)
    except SerdeError as err:
        exact = str(err)
    try:
        fast: object = parse_strict(Loose, text)
    except SerdeError as err:
        fast = str(err)
    assert fast == exact  # serde: a map keeps its last duplicate, a struct field may not repeat
