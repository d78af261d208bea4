"""Property: the fast front (``protocol/serde.py``) reads every text as the serde_json emulation does.

The front lets a faster parser (pydantic's, or ``json``) read a text only when that parser reads it
exactly as serde_json would; every error text comes from the emulation. So on any input the two
agree: both accept with the same value, or both refuse with the same text. Inputs are JSON texts,
JSON with one or two characters changed, and the numbers, escapes and nesting where Python's
parsers read more than serde_json.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
import pytest

from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.protocol.serde import SerdeError, loads, parse_exact, parse_strict, typed_loads
from codex_nb.protocol.serde_json import NUMBERS_AS_F64, SerdeJsonError, from_str, value_from_str

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


ODD_TOKENS = [
    "NaN",
    "-Infinity",
    "1e400",
    "-1e400",
    "1e-400",
    "9" * 320,
    "9" * 309,
    "-" + "9" * 309,
    "18446744073709551616",
    "-9223372036854775809",
    "1.0",
    "-0",
    "01",
    "1.",
    ".5",
    '"\\ud800"',
    '"\\udc00"',
    '"\\ud83d\\ude00"',
    '"\\ud83dx"',
    '"\ud800"',
    '"a\\x"',
    '"\t"',
    "\ufeff",
    "[" * 127 + "]" * 127,
    "[" * 128 + "]" * 128,
    '{"a":' * 127 + "1" + "}" * 127,
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=12,
)
plans = st.fixed_dictionaries(
    {
        "plan": st.lists(
            st.fixed_dictionaries(
                {"step": st.text(max_size=10), "status": st.sampled_from(["pending", "in_progress", "completed", "x"])}
            ),
            max_size=3,
        )
    },
    optional={"explanation": st.none() | st.text(max_size=10) | st.integers()},
)
separators = st.sampled_from([(",", ":"), (", ", ": "), (" ,\n", " :\t")])
ALPHABET = '{}[]":, \n-0123456789.eE+ntrufalsNaIy\\ué\ud800'


@st.composite
def texts(draw: st.DrawFn) -> str:
    value = draw(plans | values)
    text = json.dumps(value, separators=draw(separators), ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):  # an odd token where a value could go
        token = draw(st.sampled_from(ODD_TOKENS))
        at = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + token + text[at:]
    for _ in range(draw(st.integers(min_value=0, max_value=2))):  # one or two characters changed
        at = draw(st.integers(min_value=0, max_value=len(text)))
        cut = draw(st.integers(min_value=0, max_value=1))
        text = text[:at] + draw(st.text(alphabet=ALPHABET, max_size=1)) + text[at + cut :]
    return text


def _outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return ("ok", parse(text))
    except (SerdeError, SerdeJsonError) as err:
        return ("error", str(err))


PROPERTY = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(text=texts())
@example(text='{"plan":[] "x":1}')
@example(text='{"a" 1}')
@example(text="[" * 128 + "]" * 128)
@example(text='{"plan":[{"step":"\ud800","status":"pending"}]}')
@example(text="[" + "9" * 309 + "]")  # 309 digits, past f64's largest value (found by CI under load)
@example(text="[1" + "0" * 308 + "]")  # 309 digits, within it
def test_typed_loads_reads_like_the_deserializer(text: str) -> None:
    assert _outcome(typed_loads, text) == _outcome(lambda t: from_str(NUMBERS_AS_F64, t), text)


@PROPERTY
@given(text=texts())
@example(text="[" * 128 + "]" * 128)
@example(text='["\ud800"]')
def test_loads_reads_like_the_deserializer(text: str) -> None:
    assert _outcome(loads, text) == _outcome(value_from_str, text)


@PROPERTY
@given(text=texts())
@example(text='{"plan":[],"explanation":"\\ud83d\\ude00"}')
@example(text='{"plan":[],"plan":[]}')
def test_parse_strict_reads_like_the_deserializer(text: str) -> None:
    assert _outcome(lambda t: parse_strict(UpdatePlanArgs, t), text) == _outcome(
        lambda t: parse_exact(UpdatePlanArgs, t), text
    )


def test_wait_arguments_are_read_by_the_same_deserializer() -> None:
    """Code Mode's ``wait`` reads its arguments with serde_json's shape, so errors come in document
    order (a bad value before a missing field) and a repeated key is serde's ``duplicate field``."""
    from codex_nb.code_mode.exec_wait import _wait_args
    from codex_nb.tools.tool_errors import RespondToModel

    def error(text: str) -> str:
        try:
            _wait_args(text)
        except RespondToModel as err:
            return str(err).removeprefix("failed to parse function arguments: ")
        raise AssertionError(f"{text!r} was accepted")

    assert error('{"yield_time_ms":-1}') == "invalid value: integer `-1`, expected u64 at line 1 column 19"
    assert error('{"cell_id":"1","cell_id":"2"}') == "duplicate field `cell_id` at line 1 column 24"
    assert error('{"cell_id":"1","max_tokens":1e20}') == (
        "invalid type: floating point `100000000000000000000.0`, expected u64 at line 1 column 32"
    )
    assert error("") == "missing field `cell_id` at line 1 column 0"
    assert error("[]") == "invalid length 0, expected struct WaitArgs with 4 elements at line 1 column 2"
    assert _wait_args('{"cell_id":"1","terminate":null,"other":[1]}') == {"cell_id": "1"}
