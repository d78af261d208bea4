"""The parts of asking the user that need no server: a permission subset granted from the
widget with its scope, elicitation schemas read whole or declined naming the field, answers
checked field by field, and the approvals record (who answered, when, saved in a notebook)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.frontend.elicitation import UnsupportedSchema, event_from_params, normalize_elicitation_answer
from codex_nb.frontend.elicitation import ContentError, read_schema
from codex_nb.frontend.record import Approvals
from codex_nb.protocol.frontend import ElicitationRequestEvent
from helpers.frontend_waits import first_pending

REQUEST = {
    "permissions": {
        "network": {"enabled": True},
        "file_system": {"read": ["/work/project/data"], "write": ["/work/project/out"]},
    }
}


@pytest.fixture
def session() -> cx.Session:
    return cx.Session(cx.Config(request_permissions_tool=True), cwd="/work/project")


async def test_the_widget_grants_the_ticked_subset_with_its_scope_and_the_record_says_so(session) -> None:
    prompts = cx.PromptsWidget(session)
    prompts.receive({"kind": "ready", "id": "view"})
    task = asyncio.ensure_future(session.call_tool("request_permissions", REQUEST, call_id="c1"))
    pending = await first_pending(session)
    subset = {"file_system": {"entries": [{"path": {"type": "path", "path": "/work/project/out"}, "access": "write"}]}}
    grant = {"kind": "answer_permissions", "id": pending.id, "decision": {"permissions": subset, "scope": "session"}}
    assert prompts.receive(grant), prompts.error
    assert (
        await task
    ).output == '{"permissions":{"network":null,"file_system":{"write":["/work/project/out"]}},"scope":"session"}'
    (record,) = session.approvals
    assert (record.kind, record.answered_by, record.outcome, record.policy) == (
        "permissions",
        "widget",
        "answered",
        None,
    )
    assert record.answer["scope"] == "session"
    assert "granted" in record.line() and "(widget)" in record.line()
    prompts.close()


async def test_who_answered_is_recorded_for_policy_timeout_and_nobody(session) -> None:
    session.answer_policy = cx.AnswerPolicy.deny()
    await session.call_tool("request_permissions", REQUEST, call_id="p")
    session.answer_policy = None
    output = await session.call_tool("request_permissions", REQUEST, call_id="n")  # no widget, no policy
    assert "could not be answered" in output.output
    assert [(r.call_id, r.answered_by, r.outcome, r.policy) for r in session.approvals] == [
        ("p", "policy", "policy", "AnswerPolicy.deny()"),
        ("n", "nobody", "unanswerable", None),
    ]
    assert repr(session.approvals).startswith("Approvals: 2\n  permissions: read /work/project/data; write")


def test_the_record_is_saved_in_a_notebooks_metadata(tmp_path: Path, session) -> None:
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4}))
    approvals = Approvals()
    assert approvals.save(notebook) == notebook
    saved = json.loads(notebook.read_text())
    assert saved["metadata"] == {"kernelspec": {"name": "python3"}, "codex_nb": {"approvals": []}}
    (tmp_path / "x.txt").write_text("not json")
    with pytest.raises(ValueError, match="cannot read the notebook"):
        approvals.save(tmp_path / "x.txt")
    (tmp_path / "y.ipynb").write_text("{}")
    with pytest.raises(ValueError, match="is not a Jupyter notebook"):
        approvals.save(tmp_path / "y.ipynb")


FORM = {
    "type": "object",
    "properties": {
        "email": {"type": "string", "format": "email"},
        "when": {"type": "string", "format": "date"},
        "n": {"type": "number", "minimum": 0.5, "maximum": 2},
        "plan": {"type": "string", "oneOf": [{"const": "f", "title": "Free"}, {"const": "p", "title": "Pro"}]},
        "ok": {"type": "boolean", "default": True},
        "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
    },
    "required": ["email"],
}


def _form(schema: object = FORM) -> ElicitationRequestEvent:
    params = {"mode": "form", "message": "m", "requestedSchema": schema}
    return event_from_params(params, call_id="c", turn_id="t", server_name="s")


def test_every_primitive_field_is_read() -> None:
    fields = _form().fields
    assert [(f.name, f.type) for f in fields] == [
        ("email", "string"),
        ("when", "string"),
        ("n", "number"),
        ("plan", "enum"),
        ("ok", "boolean"),
        ("tags", "multi_enum"),
    ]
    assert [o.label for o in fields[3].options or []] == ["Free", "Pro"]


@pytest.mark.parametrize(
    ("schema", "error"),
    [
        ({"type": "object", "properties": {"a": {"type": "object"}}}, "field 'a' has type 'object'"),
        (
            {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}},
            "field 'a' is an array of 'integer'",
        ),
        ({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}, "field 'a' has format 'ipv4'"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "enum": []}}},
            "field 'a': enum must be a non-empty",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "integer", "minimum": "1"}}},
            "field 'a': minimum must be a finite number",
        ),
        ({"type": "object", "properties": {}, "required": ["x"]}, "required field 'x' is not in"),
        ({"type": "array"}, "requestedSchema must be a JSON Schema object"),
        ({"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(51)}}, "has 51 fields"),
    ],
)
def test_a_schema_that_cannot_be_shown_whole_names_the_field(schema: dict, error: str) -> None:
    with pytest.raises(UnsupportedSchema) as caught:
        read_schema(schema)
    assert error in str(caught.value)


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ({}, "field 'email' is required"),
        ({"email": "nope"}, "field 'email' must be an email address"),
        ({"email": "a@b.co", "when": "tomorrow"}, "field 'when' must be an ISO date"),
        ({"email": "a@b.co", "n": 3}, "field 'n' must be at most 2"),
        ({"email": "a@b.co", "n": True}, "field 'n' must be a number"),
        ({"email": "a@b.co", "plan": "x"}, "field 'plan' must be one of ['f', 'p']"),
        ({"email": "a@b.co", "ok": "yes"}, "field 'ok' must be true or false"),
        ({"email": "a@b.co", "extra": 1}, "unknown field 'extra'"),
    ],
)
def test_accepted_content_is_checked_naming_the_field(content: dict, error: str) -> None:
    with pytest.raises(ContentError) as caught:
        normalize_elicitation_answer(_form(), {"action": "accept", "content": content})
    assert error in str(caught.value)


def test_answers_and_the_recommended_policy() -> None:
    msg = _form()
    good = {"email": "a@b.co", "when": "2026-12-02", "n": 1, "plan": "p", "ok": False, "tags": ["a"]}
    assert normalize_elicitation_answer(msg, good) == {"action": "accept", "content": good}  # content alone: accept
    assert normalize_elicitation_answer(msg, "cancel") == {"action": "cancel"}
    url = event_from_params(
        {"mode": "url", "message": "m", "url": "https://a.example/x", "elicitationId": "e"},
        call_id="c",
        turn_id="",
        server_name="s",
    )
    assert (url.domain, normalize_elicitation_answer(url, "accept")) == ("a.example", {"action": "accept"})
    with pytest.raises(ContentError, match="accepted without content"):
        normalize_elicitation_answer(url, {"action": "accept", "content": {"a": 1}})


def test_an_mcp_tool_approval_takes_only_the_longer_approvals_codex_offers() -> None:
    meta = {"codex_approval_kind": "mcp_tool_call", "persist": ["session"], "tool_name": "run", "tool_params": {"a": 1}}
    params = {"mode": "form", "message": "Allow?", "requestedSchema": {"type": "object", "properties": {}}}
    msg = event_from_params({**params, "_meta": meta}, call_id="c", turn_id="t", server_name="s")
    assert msg.tool_approval is not None and msg.tool_approval.tool_params == '{"a": 1}'
    session = {"action": "accept", "content": {}, "_meta": {"persist": "session"}}
    assert normalize_elicitation_answer(msg, "accept_for_session") == session
    assert normalize_elicitation_answer(msg, {"action": "accept", "content": None, "persist": "session"}) == session
    assert normalize_elicitation_answer(msg, {"action": "accept", "persist": None}) == {
        "action": "accept",
        "content": {},
    }
    with pytest.raises(ContentError, match="'accept_always' is not offered for this request"):
        normalize_elicitation_answer(msg, "accept_always")
    with pytest.raises(ContentError, match="'persist' must be 'session' or 'always', got 'forever'"):
        normalize_elicitation_answer(msg, {"action": "accept", "persist": "forever"})
    plain = event_from_params(params, call_id="c", turn_id="t", server_name="s")
    assert plain.tool_approval is None
    with pytest.raises(ContentError, match="not offered"):
        normalize_elicitation_answer(plain, "accept_for_session")


def test_a_view_of_an_earlier_release_may_leave_out_persist() -> None:
    from codex_nb.widgets.browser_messages import ProtocolError, validate_to_kernel as validate_message_for

    message = {"id": "req-1", "kind": "answer_elicitation", "action": "decline", "content": None}
    assert validate_message_for("prompts", message) == message
    with pytest.raises(ProtocolError, match=re.escape("field 'persist' must be string|null|absent, got int")):
        validate_message_for("prompts", {**message, "persist": 3})
