"""Prompts widget: an error does not outlive the requests it came with (an earlier demo's error
disappears once a request is settled, by the widget or anyone else)."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from test_prompts_widget import until
from codex_nb.frontend.requests import FrontendRequests
from codex_nb.widgets.prompts import PromptsWidget

QUESTION = {
    "id": "confirm",
    "header": "Confirm",
    "question": "Proceed?",
    "options": [{"label": "Yes (Recommended)", "description": "Continue."}],
}


@pytest.fixture
def session() -> cx.Session:
    s = cx.Session()
    s.frontend_requests = FrontendRequests(timer=lambda delay, fn: lambda: None)
    return s


@pytest.fixture
def widget(session) -> PromptsWidget:
    w = cx.PromptsWidget(session)
    w.handle_message({"id": "view-1", "kind": "ready"})
    yield w
    w.close()


async def test_an_old_error_is_cleared_when_a_request_is_settled_elsewhere(session, widget):
    task = asyncio.ensure_future(session.call_tool("request_user_input", {"questions": [QUESTION]}, mode="plan"))
    await until(widget, lambda: widget.requests)
    widget._on_view_msg(widget, {"id": "req-404", "kind": "answer_user_input", "answers": {}}, [])
    assert widget.error.startswith("unknown request id 'req-404'")
    session.frontend_requests.answer(widget.requests[0]["id"], {"confirm": "Yes (Recommended)"})  # e.g. a policy
    await task
    await until(widget, lambda: not widget.requests)
    assert widget.error == ""
