"""Each fast path of ``codex_nb.protocol._fast`` builds exactly what the public way builds.

The fast paths reach into other libraries' internals (CPython's C JSON encoder, pydantic's
model slots, a frozen dataclass's slot descriptors), so an upgrade of either can change what
they build without any error. Each is checked against the public way on generated inputs,
awkward ones included: lone surrogates, integers past 64 bits, infinities and NaN, nested
models, defaults left unset, and the model's fields-set, dumps, equality, hashing and copies.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from codex_nb.protocol import _fast
from codex_nb.protocol.events import Event, PlanUpdate, WarningEvent
from codex_nb.protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from codex_nb.protocol.wire import dumps
from codex_nb.tools.names import ToolName
from codex_nb.tools.payload import Payload, ToolCall

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text with lone UTF-16 surrogates mixed in (hypothesis leaves them out by default).
CHARS = st.one_of(st.characters(), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()))
TEXT = st.text(CHARS, max_size=12)
HUGE_INTS = st.one_of(st.integers(), st.integers(min_value=2**63 - 2, max_value=2**63 + 2), st.just(10**400))
FLOATS = st.one_of(st.floats(), st.sampled_from([1e400, -1e400, 1e308, 5e-324, -0.0]))


class Colour(enum.IntEnum):
    RED = 1


class Label(str, enum.Enum):
    A = "a\u00e9"


LEAVES = st.one_of(st.none(), st.booleans(), HUGE_INTS, FLOATS, TEXT, st.just(Colour.RED), st.just(Label.A))
KEYS = st.one_of(TEXT, st.integers(), st.floats(), st.booleans(), st.none(), st.just(Colour.RED))
JSON_VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(KEYS, inner, max_size=4),
        st.dictionaries(TEXT, inner, max_size=4).map(OrderedDict),
    ),
    max_leaves=20,
)


def public_dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@SETTINGS
@given(value=JSON_VALUES)
def test_compact_json_writes_what_json_dumps_writes(value: Any) -> None:
    fast = _fast.compact_json(value)
    if type(value) in (dict, list):
        assert fast is not None, "the C encoder is missing or refused a plain JSON value"
    assert fast is None or fast == public_dumps(value)
    assert dumps(value) == public_dumps(value)


def test_compact_json_leaves_every_failure_to_the_public_way() -> None:
    """A cycle, an unknown type, a bad key: None here, and ``dumps`` raises json's own error."""
    cycle: list[Any] = []
    cycle.append(cycle)
    failures: list[tuple[Any, type[Exception], str]] = [
        (cycle, ValueError, "Circular reference detected"),
        ({"a": object()}, TypeError, "Object of type object is not JSON serializable"),
        ({(1, 2): 1}, TypeError, "keys must be str, int, float, bool or None"),
    ]
    for value, error, message in failures:
        assert _fast.compact_json(value) is None
        with pytest.raises(error, match=message):
            public_dumps(value)
        with pytest.raises(error, match=message):
            dumps(value)
        assert _fast.compact_json({"after": [1, "é"]}) == '{"after":[1,"é"]}'  # no state left from the failure


def test_compact_json_takes_only_dicts_and_lists() -> None:
    for value in ("text", 1, None, 1.5, (1, 2), OrderedDict(a=1)):
        assert _fast.compact_json(value) is None
        assert dumps(value) == public_dumps(value)


# --- trusted_model: what cls(**values) builds, for already-typed values ---


class Leaf(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    n: int
    label: str = "default"


class Branch(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    text: str
    ratio: float
    leaf: Leaf
    leaves: tuple[Leaf, ...] = ()
    note: str | None = None
    count: int = 0


LEAF_MODELS = st.builds(Leaf, n=HUGE_INTS, label=TEXT)


def outcome(fn: Callable[[Any], Any], arg: Any) -> tuple[str, Any]:
    """What ``fn(arg)`` returns, or the error it raises (a lone surrogate cannot be written as JSON)."""
    try:
        return "value", fn(arg)
    except Exception as exc:
        return "error", (type(exc), str(exc))


def assert_same(ours: BaseModel, theirs: BaseModel) -> None:
    """Equal in every way a user can see: value, repr, dumps, fields-set, hash, copies, validation."""
    assert type(ours) is type(theirs)
    assert ours == theirs and theirs == ours and repr(ours) == repr(theirs)
    assert list(ours.__dict__) == list(theirs.__dict__)
    assert ours.model_fields_set == theirs.model_fields_set
    assert ours.model_extra == theirs.model_extra and ours.__pydantic_private__ == theirs.__pydantic_private__
    for dump in (
        lambda m: m.model_dump(),
        lambda m: m.model_dump(mode="json"),
        lambda m: m.model_dump(exclude_unset=True),
        lambda m: m.model_dump(exclude_defaults=True),
        lambda m: m.model_dump_json(),
        lambda m: hash(m),  # both hash alike, or both refuse (a field holds a list)
        lambda m: m.model_copy(),
        lambda m: m.model_copy().model_fields_set,
        lambda m: m.model_copy(deep=True),
        lambda m: copy.deepcopy(m),
        lambda m: pickle.loads(pickle.dumps(m)),
        lambda m: type(m).model_validate(m.model_dump()),
        lambda m: type(m).model_validate_json(m.model_dump_json()),
    ):
        assert outcome(dump, ours) == outcome(dump, theirs)
    assert type(ours).model_validate(ours) is ours  # an instance passes through, as a validated one does


@st.composite
def branches(draw: st.DrawFn) -> tuple[dict[str, Any], set[str]]:
    """Every field's typed value, and the fields a caller set (the rest hold their defaults)."""
    values: dict[str, Any] = {
        "text": draw(TEXT),
        "ratio": draw(st.floats(allow_nan=False) | st.sampled_from([1e400, -1e400])),
        "leaf": draw(LEAF_MODELS),
    }
    given_ = {"text", "ratio", "leaf"}
    for name, field in Branch.model_fields.items():
        if name in values:
            continue
        if draw(st.booleans()):
            strategy = {"leaves": st.lists(LEAF_MODELS, max_size=3).map(tuple), "note": st.none() | TEXT}
            values[name] = draw(strategy.get(name, HUGE_INTS))
            given_.add(name)
        else:
            values[name] = field.default
    return values, given_


@SETTINGS
@given(drawn=branches())
def test_trusted_model_builds_the_validated_model(drawn: tuple[dict[str, Any], set[str]]) -> None:
    values, given_ = drawn
    ours = _fast.trusted_model(Branch, dict(values), given_)
    assert_same(ours, Branch(**{name: values[name] for name in given_}))
    assert_same(ours, Branch.model_validate({name: values[name] for name in given_}))
    update = {"note": "changed", "count": 7}
    assert ours.model_copy(update=update) == Branch(**{name: values[name] for name in given_}).model_copy(update=update)
    with pytest.raises(ValidationError, match="frozen"):
        ours.count = 1  # type: ignore[misc]


@SETTINGS
@given(drawn=branches())
def test_trusted_model_sets_every_field_when_told_nothing(drawn: tuple[dict[str, Any], set[str]]) -> None:
    values, _ = drawn
    assert_same(_fast.trusted_model(Branch, dict(values)), Branch(**values))


PLAN_ARGS = st.builds(
    UpdatePlanArgs,
    explanation=st.none() | TEXT,
    plan=st.lists(
        st.builds(PlanItemArg, step=TEXT, status=st.sampled_from(["pending", "in_progress", "completed"])), max_size=4
    ),
)


@SETTINGS
@given(args=PLAN_ARGS, ids=st.tuples(TEXT, TEXT, st.none() | TEXT), seq=HUGE_INTS, revision=st.none() | HUGE_INTS)
def test_trusted_model_builds_the_events_the_call_path_sends(
    args: UpdatePlanArgs, ids: tuple[str, str, str | None], seq: int, revision: int | None
) -> None:
    """The two models the call path builds this way: a plan event and the bus's envelope."""
    msg = PlanUpdate.from_args(args)
    assert_same(msg, PlanUpdate(explanation=args.explanation, plan=list(args.plan)))
    event_id, thread_id, turn_id = ids
    envelope = {
        "id": event_id,
        "msg": msg,
        "thread_id": thread_id,
        "turn_id": turn_id,
        "seq": seq,
        "revision": revision,
    }
    assert_same(_fast.trusted_model(Event, dict(envelope)), Event(**envelope))
    hashable = {**envelope, "msg": WarningEvent(message=event_id)}  # a plan holds a list: no hash to compare
    assert_same(_fast.trusted_model(Event, dict(hashable)), Event(**hashable))


# --- slot_setters: what a frozen dataclass's generated __init__ builds ---


@dataclasses.dataclass(frozen=True, slots=True)
class Generated:
    name: str
    number: int
    extra: Any = None


@dataclasses.dataclass(frozen=True, slots=True, init=False)
class WrittenOut:
    name: str
    number: int
    extra: Any = None

    def __init__(self, name: str, number: int, extra: Any = None) -> None:
        _SET_NAME(self, name)
        _SET_NUMBER(self, number)
        _SET_EXTRA(self, extra)


_SET_NAME, _SET_NUMBER, _SET_EXTRA = _fast.slot_setters(WrittenOut, "name", "number", "extra")


def assert_same_dataclass(ours: Any, theirs: Any) -> None:
    assert [getattr(ours, f.name) for f in dataclasses.fields(ours)] == [
        getattr(theirs, f.name) for f in dataclasses.fields(theirs)
    ]
    assert repr(ours).partition("(")[2] == repr(theirs).partition("(")[2]
    for view in (
        hash,  # both hash alike, or both refuse (a field holds a list)
        lambda d: repr(dataclasses.replace(d)),
        lambda d: repr(copy.deepcopy(d)),
        lambda d: repr(pickle.loads(pickle.dumps(d))),  # by repr: a NaN inside equals no copy of itself
    ):
        ours_view, theirs_view = outcome(view, ours), outcome(view, theirs)
        assert ours_view[0] == theirs_view[0]
        if ours_view[0] == "value" and isinstance(ours_view[1], str):
            assert ours_view[1].partition("(")[2] == theirs_view[1].partition("(")[2]
        else:
            assert ours_view == theirs_view
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.name = "changed"
    assert not hasattr(ours, "__dict__")


@SETTINGS
@given(name=TEXT, number=HUGE_INTS, extra=st.none() | JSON_VALUES)
def test_slot_setters_build_what_the_generated_init_builds(name: str, number: int, extra: Any) -> None:
    assert_same_dataclass(WrittenOut(name, number, extra), Generated(name, number, extra))
    assert_same_dataclass(WrittenOut(name, number), Generated(name, number))


@SETTINGS
@given(name=TEXT, call_id=TEXT, text=TEXT, cell=st.none() | TEXT)
def test_a_routed_call_built_through_the_slot_setters(name: str, call_id: str, text: str, cell: str | None) -> None:
    """``Payload`` and ``ToolCall``, the classes the call path builds this way."""
    payload = Payload("custom", text)
    call = ToolCall(tool_name=ToolName.of(name), call_id=call_id, payload=payload, cell_id=cell)
    assert (payload.kind, payload.text) == ("custom", text)
    assert (call.tool_name, call.call_id, call.payload, call.source, call.cell_id) == (
        ToolName.of(name),
        call_id,
        payload,
        "direct",
        cell,
    )
    assert call == dataclasses.replace(call) and hash(call) == hash(dataclasses.replace(call))
    assert pickle.loads(pickle.dumps(call)) == call
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.call_id = "other"  # type: ignore[misc]


@SETTINGS
@given(TEXT, st.sampled_from(list(StepStatus)))
def test_plan_step_builds_the_validated_step(step: str, status: StepStatus) -> None:
    from pydantic import TypeAdapter

    fast, public = _fast.plan_step(step, status), PlanItemArg(step=step, status=status)
    assert fast == public and hash(fast) == hash(public) and repr(fast) == repr(public)
    assert dataclasses.asdict(fast) == dataclasses.asdict(public)
    assert TypeAdapter(PlanItemArg).dump_python(fast) == TypeAdapter(PlanItemArg).dump_python(public)
    assert pickle.loads(pickle.dumps(fast)) == public and copy.deepcopy(fast) == public
    assert UpdatePlanArgs(plan=[fast]) == UpdatePlanArgs(plan=[public])
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.step = "changed"  # type: ignore[misc]
