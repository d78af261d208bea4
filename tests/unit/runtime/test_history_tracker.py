"""The incremental pairing check is sound: when it says "paired", the full repair changes nothing.

It may say "not paired" for odd-but-repairable orders (an output before its call);
then the full repair runs, so the items sent are always exactly ``repair_history``'s.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from codex_nb.runtime.history import PairingTracker, repair_history, repaired

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


ids = st.sampled_from(["a", "b", "c", "d"])
items = st.one_of(
    ids.map(lambda i: {"type": "function_call", "name": "t", "arguments": "{}", "call_id": i}),
    ids.map(lambda i: {"type": "custom_tool_call", "name": "exec", "input": "", "call_id": i}),
    ids.map(lambda i: {"type": "function_call_output", "call_id": i, "output": "ok"}),
    ids.map(lambda i: {"type": "custom_tool_call_output", "call_id": i, "name": "exec", "output": "note"}),
    st.just({"type": "message", "role": "user", "content": []}),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(items, max_size=12), st.integers(min_value=0, max_value=12))
def test_tracker_agrees_with_full_repair(history, split) -> None:
    tracker = PairingTracker()
    grown = history[:split]
    tracker.is_paired(grown)  # scanned in two increments, as a growing history is
    grown.extend(history[split:])
    if tracker.is_paired(grown):
        assert repair_history(grown) == grown
    assert repaired(grown, PairingTracker()) == repair_history(grown)


def test_calls_then_outputs_are_recognised_as_paired() -> None:
    tracker = PairingTracker()
    history = [{"type": "function_call", "name": "t", "arguments": "{}", "call_id": c} for c in "ab"]
    assert not tracker.is_paired(history)
    history += [{"type": "function_call_output", "call_id": c, "output": "ok"} for c in "ab"]
    assert tracker.is_paired(history)


def test_replaced_history_is_rescanned() -> None:
    tracker = PairingTracker()
    first = [{"type": "function_call", "name": "t", "arguments": "{}", "call_id": "a"}]
    assert not tracker.is_paired(first)
    second = [{"type": "message", "role": "user", "content": []}]
    assert tracker.is_paired(second)
