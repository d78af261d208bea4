"""The prompts widget of the module's ``session``, its view ready (the prompts tests)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import codex_nb as cx
from codex_nb.widgets.prompts import PromptsWidget


@pytest.fixture
def widget(session) -> Iterator[PromptsWidget]:
    w = cx.PromptsWidget(session)
    w.handle_message({"id": "view-1", "kind": "ready"})
    yield w
    w.close()
