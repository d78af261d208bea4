"""``wire.dumps`` keeps its encoders built once: the same bytes and the same errors as ``json`` gives."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from codex_nb.protocol.wire import dumps

REFERENCE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1, "b": [1.5, 1e16, -0.0, 2**70, True, None, 'é\u2028\ud800\n"\\']},
        [],
        {},
        {"x": {"y": [{"z": "q"}]}},
        [float("nan"), float("inf"), float("-inf")],
        {1: 2, None: 3, 1.5: 4},
        "text",
        5,
        None,
    ],
)
def test_the_same_text_as_json(value: Any) -> None:
    assert dumps(value) == REFERENCE.encode(value)


def _cycle() -> list[Any]:
    cycle: list[Any] = []
    cycle.append(cycle)
    return cycle


@pytest.mark.parametrize("make", [_cycle, lambda: {"s": {1, 2}}, lambda: {"b": b"x"}, lambda: {(1, 2): 3}])
def test_the_same_errors_as_json_and_no_state_left_behind(make: Any) -> None:
    with pytest.raises(Exception) as ours:
        dumps(make())
    with pytest.raises(Exception) as theirs:
        REFERENCE.encode(make())
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
    assert dumps({"after": [1, 2]}) == '{"after":[1,2]}'  # a failed call leaves nothing behind


def test_threads_share_the_encoder_safely() -> None:
    value = {"plan": [{"step": str(i), "status": "pending"} for i in range(50)]}
    expected = REFERENCE.encode(value)
    wrong: list[str] = []

    def work() -> None:
        for _ in range(300):
            if dumps(value) != expected:
                wrong.append("mismatch")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
