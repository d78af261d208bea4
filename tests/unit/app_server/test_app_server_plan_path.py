"""The app-server's plan path: the line parser and the plan mapping build exactly what the public way builds.

Both take a cheaper way than the obvious one (pydantic-core's JSON parser, a plan event built
without pydantic's second pass) because a plan notification's kernel cost is what a person
watching a real Codex turn waits for. Each is held equal to the obvious way on generated input,
awkward input included, and hostile plans get a clear error.
"""

from __future__ import annotations

import copy
import json
import math
import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import PlanItemArg
from codex_nb.app_server.notifications import _STEP_STATUS, PlanNotificationError, plan_update
from codex_nb.protocol.wire import loads as _parse

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHARS = st.one_of(st.characters(), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()))
TEXT = st.text(CHARS, max_size=12)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.just(10**400),
    st.floats(),
    st.sampled_from([1e400, -1e400, 5e-324, -0.0, 0.1, 1 / 3]),
    TEXT,
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=25,
)


def same(a: object, b: object) -> bool:
    """Equal, NaN included, floats bit for bit (json.loads is the reference)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@SETTINGS
@given(VALUES, st.booleans())
def test_lines_parse_as_json_loads_reads_them(value: object, ascii_only: bool) -> None:
    line = (json.dumps(value, ensure_ascii=ascii_only) + "\n").encode("utf-8", "surrogatepass")
    try:
        expected = json.loads(line)
    except ValueError:
        with pytest.raises(ValueError):
            _parse(line)
        return
    assert same(_parse(line), expected)


@pytest.mark.parametrize(
    "line",
    [b'\xef\xbb\xbf{"a": 1}', b'{"a": "\\ud800"}', b'{"a": NaN}', b'{"a": 1, "a": 2}', b"  [1]  \n"],
)
def test_texts_the_fast_parser_refuses_read_the_standard_way(line: bytes) -> None:
    assert same(_parse(line), json.loads(line))


@pytest.mark.parametrize("line", [b'{"a": "\xff"}', b'{"a": 1,}', b'{"a": 1} x', b'{"a": "x\x01"}'])
def test_what_json_loads_refuses_stays_refused(line: bytes) -> None:
    with pytest.raises(ValueError):
        _parse(line)


def dumped(event: PlanUpdate) -> str:
    try:
        return event.model_dump_json()
    except ValueError as err:  # a lone surrogate cannot be UTF-8: both ways must refuse alike
        return type(err).__name__


STEPS = st.lists(st.fixed_dictionaries({"step": TEXT, "status": st.sampled_from(sorted(_STEP_STATUS))}), max_size=10)


@SETTINGS
@given(STEPS, st.one_of(st.none(), TEXT))
def test_plan_event_equals_the_validated_one(steps: list[dict[str, str]], explanation: str | None) -> None:
    params = {"threadId": "t", "turnId": "u", "explanation": explanation, "plan": steps}
    public = PlanUpdate(
        explanation=explanation, plan=[PlanItemArg(step=s["step"], status=_STEP_STATUS[s["status"]]) for s in steps]
    )
    fast = plan_update(params)
    assert fast == public
    assert fast.model_dump() == public.model_dump()
    assert dumped(fast) == dumped(public)
    assert fast.model_fields_set == public.model_fields_set | {"type"}
    assert [hash(i) for i in fast.plan] == [hash(i) for i in public.plan]
    assert pickle.loads(pickle.dumps(fast)) == public
    assert copy.deepcopy(fast) == public
    if fast.plan:  # frozen steps stay frozen
        with pytest.raises((AttributeError, TypeError)):
            fast.plan[0].step = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    "params, words",
    [
        ({"plan": None}, "needs a list `plan`"),
        ({"plan": [], "explanation": 3}, "needs a list `plan`"),
        ({"plan": ["x"]}, "step 0 is not"),
        ({"plan": [{"step": "a", "status": "done"}]}, "step 0 is not"),
        ({"plan": [{"step": "a", "status": "pending"}, {"step": 7, "status": "pending"}]}, "step 1 is not"),
        ({"plan": [{"step": "a", "status": ["pending"]}]}, "step 0 is not"),
    ],
)
def test_hostile_plans_are_refused_with_the_step_named(params: dict[str, object], words: str) -> None:
    with pytest.raises(PlanNotificationError, match=words):
        plan_update(params)
