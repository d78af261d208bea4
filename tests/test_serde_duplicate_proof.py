"""The key-count proof lets most texts skip the exact duplicate-key check, never a real duplicate."""

from __future__ import annotations

import pytest

from codex_nb.protocol.plan import UpdatePlanArgs
from codex_nb.protocol.serde import SerdeError, parse_strict, provably_no_duplicate_keys


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
