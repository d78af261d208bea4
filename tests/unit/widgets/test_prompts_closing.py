"""Closing the only rendered prompts widget never leaves a request waiting forever: it falls back
to the headless policy (``CODEX_NB_ANSWER_POLICY``) or the fail-fast message, as the README says."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.frontend.answer_policy import ENV_VAR
from codex_nb.runtime.session import CallToolResult
from codex_nb.widgets.prompts import PromptsWidget

QUESTION = {
    "id": "confirm",
    "header": "Confirm",
    "question": "Proceed?",
    "options": [{"label": "Yes (Recommended)", "description": "Continue."}, {"label": "No", "description": "Stop."}],
}


def asked(session: cx.Session) -> asyncio.Event:
    """Set once the request event is out; by the time a waiter resumes, the tool has routed the
    request to the widget and is waiting for an answer."""
    seen = asyncio.Event()
    session.subscribe(lambda e: seen.set() if e.msg.type in ("request_user_input", "request_permissions") else None)
    return seen


def rendered(session: cx.Session) -> PromptsWidget:
    widget = cx.PromptsWidget(session)
    widget.handle_message({"id": "view-1", "kind": "ready"})
    assert session.frontend_requests.frontend_state() == "ready"
    return widget


async def ask_a_person(session: cx.Session) -> asyncio.Future[CallToolResult]:
    """Start a request_user_input call and return once it waits for a person."""
    seen = asked(session)
    task = asyncio.ensure_future(session.call_tool("request_user_input", {"questions": [QUESTION]}, mode="plan"))
    await seen.wait()
    await asyncio.sleep(0)
    assert not task.done() and len(session.frontend_requests.pending) == 1  # waiting for a person
    return task


async def test_closing_the_only_widget_gives_the_fail_fast_message():
    session = cx.Session()
    widget = rendered(session)
    task = await ask_a_person(session)
    widget.close()
    result = await asyncio.wait_for(task, 10)
    assert "CODEX_NB_ANSWER_POLICY" in result.output and "prompts" in result.output
    assert session.frontend_requests.pending == []


async def test_closing_the_only_widget_falls_back_to_the_env_policy(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(ENV_VAR, "recommended")
    session = cx.Session()
    widget = rendered(session)
    task = await ask_a_person(session)
    widget.close()
    result = await asyncio.wait_for(task, 10)
    assert result.output == '{"answers":{"confirm":{"answers":["Yes (Recommended)"]}}}'


async def test_another_rendered_widget_keeps_the_request_for_a_person():
    session = cx.Session()
    first, second = rendered(session), rendered(session)
    task = await ask_a_person(session)
    first.close()
    await asyncio.sleep(0)
    assert not task.done() and len(session.frontend_requests.pending) == 1
    second.receive(
        {
            "id": session.frontend_requests.pending[0].id,
            "kind": "answer_user_input",
            "answers": {"confirm": {"answers": ["No"]}},
        }
    )
    assert (await task).output == '{"answers":{"confirm":{"answers":["No"]}}}'
    second.close()
