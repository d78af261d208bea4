"""The answer checks moved from ``frontend.requests`` to ``frontend.normalize``: the old names
still work for one release, with a warning naming the new place; ``RequestMsg`` did not move."""

from __future__ import annotations

import pytest

from codex_nb.frontend import normalize, requests
from codex_nb.protocol.frontend import RequestUserInputEvent


@pytest.mark.parametrize(
    "name",
    [
        "normalize_answer",
        "normalize_approval_answer",
        "normalize_user_input_answer",
        "normalize_permissions_answer",
        "MAX_ANSWER_TEXT",
    ],
)
def test_a_moved_name_still_works_and_says_where_it_went(name: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"codex_nb.frontend.normalize.{name}"):
        value = getattr(requests, name)
    assert value is getattr(normalize, name)


def test_request_msg_is_the_union_of_the_request_events_without_a_warning(recwarn: pytest.WarningsRecorder) -> None:
    assert RequestUserInputEvent in requests.RequestMsg.__args__
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        requests.nothing  # noqa: B018
