"""``RequestMsg`` is built on first use (importing the broker creates no request model); the answer
checks that once lived in ``frontend.requests`` are ``frontend.normalize``'s alone since 0.2.0."""

from __future__ import annotations

import pytest

from codex_nb.frontend import requests
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
def test_the_moved_answer_checks_are_gone_from_the_broker(name: str) -> None:
    with pytest.raises(AttributeError, match=f"no attribute '{name}'"):
        getattr(requests, name)


def test_request_msg_is_the_union_of_the_request_events_without_a_warning(recwarn: pytest.WarningsRecorder) -> None:
    assert RequestUserInputEvent in requests.RequestMsg.__args__
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        requests.nothing  # noqa: B018
