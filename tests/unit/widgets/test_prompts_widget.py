"""PromptsWidget (Python side): synced pending requests, answers by id, bad messages,
frontend detection, stable reprs. The DOM is covered by tests/browser/test_prompts_browser.py."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.frontend.requests import FrontendRequests
from codex_nb.widgets._static import load_json
from codex_nb.widgets.prompts import PromptsWidget, validate_message
from helpers.frontend_waits import until

QUESTION = {
    "id": "confirm_path",
    "header": "Confirm",
    "question": "Proceed with the plan?",
    "options": [{"label": "Yes (Recommended)", "description": "Continue."}, {"label": "No", "description": "Stop."}],
}
ARGS = {"questions": [QUESTION], "autoResolutionMs": 60000}
WRITE = {"permissions": {"file_system": {"write": ["out"]}}, "reason": "Save the report"}


@pytest.fixture
def session() -> cx.Session:
    s = cx.Session(cx.Config(request_permissions_tool=True), cwd="/w")
    s.frontend_requests = FrontendRequests(timer=lambda delay, fn: lambda: None)  # timers never fire here
    return s


def send(widget: PromptsWidget, content) -> None:
    widget._on_view_msg(widget, content, [])


async def test_question_flow_through_traits(session, widget, no_leaked_tasks):
    task = asyncio.ensure_future(session.call_tool("request_user_input", ARGS, mode="plan", call_id="q1"))
    await until(widget, lambda: widget.requests)
    (entry,) = widget.requests
    assert entry["id"] == "req-1" and entry["kind"] == "user_input" and entry["call_id"] == "q1"
    assert entry["request"]["questions"][0]["isOther"] is True
    assert entry["deadline_ms"] is not None
    assert widget.text() == "Prompts: 1 pending\n  [user_input] Confirm: Proceed with the plan?"
    send(
        widget,
        {
            "id": "req-1",
            "kind": "answer_user_input",
            "answers": {"confirm_path": {"answers": ["None of the above", "user_note: later"]}},
        },
    )
    res = await task
    assert res.output == '{"answers":{"confirm_path":{"answers":["None of the above","user_note: later"]}}}'
    assert widget.requests == [] and widget.error == ""
    assert widget.resolved == [{"id": "req-1", "kind": "user_input", "call_id": "q1", "outcome": "answered"}]
    assert widget.text() == "Prompts: no pending requests"


async def test_permission_grant_and_two_pending(session, widget):
    t1 = asyncio.ensure_future(session.call_tool("request_permissions", WRITE, call_id="p1"))
    t2 = asyncio.ensure_future(session.call_tool("request_user_input", ARGS, mode="plan", call_id="q1"))
    await until(widget, lambda: len(widget.requests) == 2)
    assert [r["kind"] for r in widget.requests] == ["permissions", "user_input"]
    assert widget.text().splitlines()[1] == "  [permissions] write /w/out"
    send(widget, {"id": "req-2", "kind": "answer_user_input", "answers": {"confirm_path": "No"}})
    await until(widget, lambda: len(widget.requests) == 1)
    send(widget, {"id": "req-1", "kind": "answer_permissions", "decision": "allow_session"})
    assert (await t1).output == '{"permissions":{"network":null,"file_system":{"write":["/w/out"]}},"scope":"session"}'
    assert (await t2).output == '{"answers":{"confirm_path":{"answers":["No"]}}}'
    assert widget.requests == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("hello", "expected a JSON object {id, kind, ...}, got str"),
        ({"id": "req-1", "kind": "explode"}, "unknown message kind 'explode'"),
        ({"id": "req-1", "kind": "answer_permissions"}, "answer_permissions: missing field 'decision'"),
        (
            {"id": 5, "kind": "answer_permissions", "decision": "deny"},
            "answer_permissions: 'id' must be a non-empty string",
        ),
        ({"id": "req-1", "kind": "answer_permissions", "decision": "deny", "x": 1}, "unexpected field(s) ['x']"),
        (
            {"id": "req-1", "kind": "answer_user_input", "answers": {}},
            "request req-1 is a permissions request; answer it with answer_permissions",
        ),
        (
            {"id": "req-1", "kind": "answer_permissions", "decision": "maybe"},
            "a permissions answer must be 'allow_turn', 'allow_session', 'deny'",
        ),
        ({"id": "req-77", "kind": "answer_permissions", "decision": "deny"}, "unknown request id 'req-77'"),
    ],
)
async def test_bad_messages_are_shown_and_kernel_keeps_running(session, widget, content, message):
    task = asyncio.ensure_future(session.call_tool("request_permissions", WRITE))
    await until(widget, lambda: widget.requests)
    send(widget, content)
    assert message in widget.error
    assert widget.rejected[-1] == widget.error
    assert len(widget.requests) == 1  # still pending, still answerable
    send(widget, {"id": "req-1", "kind": "answer_permissions", "decision": "deny"})
    assert (await task).output.endswith('"file_system":null},"scope":"turn"}')
    assert widget.error == ""


async def test_settled_and_after_interrupt_answers_are_rejected(session, widget):
    model = cx.ScriptedModel([[cx.function_call("request_user_input", ARGS, call_id="q1")]])
    handle = session.start_turn("ask", model=model, mode="plan")
    await until(widget, lambda: widget.requests)
    handle.interrupt()
    result = await handle
    assert result.outputs()["q1"].startswith("aborted by user after ")
    assert widget.requests == []
    assert widget.resolved[-1]["outcome"] == "cancelled"
    send(widget, {"id": "req-1", "kind": "answer_user_input", "answers": {"confirm_path": "No"}})
    assert widget.error == "request req-1 was already settled (cancelled); this answer is ignored"


async def test_auto_resolution_removes_card(session, widget):
    task = asyncio.ensure_future(session.call_tool("request_user_input", ARGS, mode="plan"))
    await until(widget, lambda: widget.requests)
    session.frontend_requests.auto_resolve("req-1")
    assert (await task).output == '{"answers":{}}'
    assert widget.requests == [] and widget.resolved[-1]["outcome"] == "auto_resolved"


async def test_frontend_state_follows_widget(session):
    broker = session.frontend_requests
    assert broker.frontend_state() == "none"
    w = PromptsWidget(session)
    assert broker.frontend_state() == "displayed"
    w.handle_message({"id": "v", "kind": "ready"})
    assert broker.frontend_state() == "ready"
    w.close()
    assert broker.frontend_state() == "none"


def test_reprs_are_stable(session):
    w = PromptsWidget(session)
    bundle, _ = w._repr_mimebundle_()
    assert bundle["text/plain"] == "Prompts: no pending requests"
    assert bundle["text/html"] == '<div class="cx-prompts-static"><b>Prompts: no pending requests</b></div>'
    assert repr(w) == "Prompts: no pending requests"
    w.close()


def test_rejects_non_sessions():
    with pytest.raises(TypeError, match="PromptsWidget needs a source that asks a person"):
        PromptsWidget(object())


@pytest.mark.slow
def test_protocol_and_bundle():
    spec = load_json("protocol.json")["widgets"]["prompts"]
    assert sorted(spec["to_kernel"]) == [
        "answer_approval",
        "answer_elicitation",
        "answer_permissions",
        "answer_user_input",
        "ready",
    ]
    assert spec["decisions"] == ["allow_turn", "allow_session", "deny"]
    from codex_nb.protocol.frontend import ApprovalDecision

    assert spec["approval_decisions"] == [d.value for d in ApprovalDecision]
    from codex_nb.frontend.requests import NOTE_PREFIX, OTHER_LABEL

    assert (spec["other_label"], spec["note_prefix"]) == (OTHER_LABEL, NOTE_PREFIX)
    assert validate_message({"id": "a", "kind": "ready"}) == {"id": "a", "kind": "ready"}


async def test_an_acp_agents_form_question_refuses_an_answer_that_does_not_fit_and_waits(session, widget):
    """An ACP agent's form elicitation is a question card whose answer is checked against the form
    (``codex_nb.acp.form_questions``): the widget shows why a wrong answer was refused, and the
    question stays for the right one."""
    from codex_nb.acp.form_questions import form_questions
    from codex_nb.frontend.requests import RequestKind

    schema = {"type": "object", "properties": {"count": {"type": "integer", "maximum": 5}}, "required": ["count"]}
    form = form_questions("How many?", schema, call_id="c1", turn_id="t1")
    request = session.frontend_requests.open(RequestKind.USER_INPUT, turn_id="t1#q", call_id="c1", msg=form.event)
    request.check = form.check
    await until(widget, lambda: widget.requests)
    assert widget.requests[0]["request"]["questions"][0]["question"] == "How many? (a whole number, at most 5)"
    send(widget, {"id": request.id, "kind": "answer_user_input", "answers": {"count": "9"}})
    assert widget.error.startswith("this answer does not fit the agent's form: field 'count' must be at most 5")
    assert request.settled is None and [r["id"] for r in widget.requests] == [request.id]
    send(widget, {"id": request.id, "kind": "answer_user_input", "answers": {"count": "4"}})
    settlement = await session.frontend_requests.wait(request)
    assert widget.error == "" and form.content(settlement.response) == {"count": 4}
