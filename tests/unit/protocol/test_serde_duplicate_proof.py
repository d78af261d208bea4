"""The key-count proof lets most texts skip the exact duplicate-key check, never a real duplicate."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, model_validator

from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.protocol.serde import SerdeError, _closed_fields, parse_exact, parse_strict, provably_no_duplicate_keys


@pytest.mark.parametrize(
    ("text", "proven"),
    [
        ('{"plan": [{"step": "a", "status": "pending"}]}', True),
        ('[1, 2, "x"]', True),
        ('{"a": 1, "a": 2}', False),
        ('{"plan": [{"step": "a", "step": "b", "status": "pending"}]}', False),
        ('{"explanation": "note: colons in strings", "plan": []}', False),  # not proven: exact check decides
    ],
)
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


@pytest.mark.parametrize(
    "text",
    [
        '{"plan": [{"step": "a", "status": "pending", "step": "b"}]}',
        '{"plan": [{"step": "a", "status": "pending"}], "plan": [{"step": "a", "status": "pending"}]}',
        '{"explanation": "x", "explanation": "x", "plan": []}',
        '{"plan": [{"step": "a" , "status": "pending", "status" : "completed"}]}',
    ],
)
def test_the_model_side_count_never_lets_a_duplicate_through(text: str) -> None:
    with pytest.raises(SerdeError, match="duplicate field"):
        parse_strict(UpdatePlanArgs, text)


@pytest.mark.parametrize(
    "text", ['{"data": {"a": 1, "a": 2}}', '{"data": {"a": 1, "b": 2}}', '{"data": {"a": 1}, "data": {"b": 2}}']
)
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


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step: str
    status: str


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    note: str | None = None
    first: Step | None = None
    steps: list[Step] = []
    pairs: tuple[Step, ...] = ()


class Widened(BaseModel):
    """A before-validator makes a field from a key the text never had: no key count for it."""

    model_config = ConfigDict(extra="forbid")
    step: str
    status: str = "pending"

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: object) -> object:
        return {"step": value, "status": "pending"} if isinstance(value, str) else value


class Holder(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[Widened | Step]


def test_lists_of_fixed_models_are_counted_without_walking_them() -> None:
    from codex_nb.protocol.serde import _FIXED, _HOLDERS, _model_key_count

    assert _closed_fields(Plan) == ("first", "steps", "pairs")
    assert _FIXED[Step] == 2 and dict(_HOLDERS[Plan]) == {"first": 2, "steps": 2, "pairs": 2}
    text = (
        '{"note": "n", "first": {"step": "a", "status": "s"}, "steps": [{"step": "b", "status": "s"}, '
        '{"step": "c", "status": "s"}], "pairs": [{"step": "d", "status": "s"}]}'
    )
    assert _model_key_count(Plan.model_validate_json(text)) == text.count(":") == 12
    assert parse_strict(Plan, text).steps[1].step == "c"
    for duplicate in (
        text.replace('"step": "c"', '"step": "c", "step": "c"'),
        text.replace('"note": "n"', '"note": "n", "note": "n"'),
        text.replace('"first": {"step": "a", "status": "s"}', '"first": null, "first": null'),
    ):
        with pytest.raises(SerdeError, match="duplicate field"):
            parse_strict(Plan, duplicate)


def test_a_model_that_makes_fields_from_other_input_is_not_counted() -> None:
    # Widened turns '"x"' into two fields from no key: counting its fields could make up for a
    # repeated key elsewhere, so neither it nor a model holding it counts on the model side.
    assert _closed_fields(Widened) is None and _closed_fields(Holder) is None
    assert Holder.model_validate_json('{"items": ["x"]}').items[0].status == "pending"


class Grid(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rows: list[list[int]] = []
    plan: UpdatePlanArgs | None = None


def _outcome(parse: object, model: type[BaseModel], text: str) -> str:
    try:
        return repr(parse(model, text))  # type: ignore[operator]
    except SerdeError as err:
        return f"SerdeError: {err}"


@pytest.mark.parametrize(
    "text",
    [
        '{"rows": ' + "[" * 200 + "]" * 200 + "}",
        '{"rows": [[1]], "rows": ' + "[" * 130 + "]" * 130 + "}",
        '{"rows": ' + "[" * 130 + "]" * 130 + ', "rows": [[1]]}',
        '{"plan": {"plan": [' + '{"step": ' * 140 + '"a"' + "}" * 140 + "]}}",
        '{"rows": [[1, 2], [3]], "plan": {"explanation": "x", "plan": [{"step": "a", "status": "pending"}]}}',
    ],
)
def test_a_bounded_closed_model_skips_the_nesting_scan_and_still_agrees_with_the_exact_path(text: str) -> None:
    from codex_nb.protocol.serde import _schema_depth

    assert _schema_depth(Grid) == 4 and _schema_depth(UpdatePlanArgs) == 3 and _schema_depth(Loose) is None
    assert _outcome(parse_strict, Grid, text) == _outcome(parse_exact, Grid, text)


def test_a_pydantic_dataclass_is_closed_only_with_a_fixed_key_count() -> None:
    from pydantic.dataclasses import dataclass

    from codex_nb.protocol.plan import PlanItemArg
    from codex_nb.protocol.serde import _FIXED

    @dataclass(config=ConfigDict(extra="forbid"))
    class Optional:
        step: str
        note: str | None = None  # a dataclass keeps no fields-set: which keys came cannot be counted

    class Holds(BaseModel):
        model_config = ConfigDict(extra="forbid")
        items: list[Optional]

    assert _closed_fields(PlanItemArg) == () and _FIXED[PlanItemArg] == 2
    assert _closed_fields(Optional) is None and _closed_fields(Holds) is None
    with pytest.raises(SerdeError, match="duplicate field `note`"):
        parse_strict(Holds, '{"items": [{"step": "a", "note": "x", "note": "y"}]}')
    assert parse_strict(Holds, '{"items": [{"step": "a"}]}').items[0].note is None
