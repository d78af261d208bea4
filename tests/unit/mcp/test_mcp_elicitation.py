"""codex_nb's own MCP client answers elicitations (form and URL) of a real MCP server
(tests/mcp_servers/elicit_server.py, the official SDK) through the session's prompts: the
widget, an answer policy, or nobody (declined); a form it cannot show whole is declined
with a warning naming the field. Every one lands in ``session.approvals``."""

from __future__ import annotations

import json
import sys

import codex_nb as cx
from codex_nb.mcp.manager import McpServers
from codex_nb.testing import RecordingSubscriber
from helpers.paths import TESTS

SERVER = str(TESTS / "mcp_servers" / "elicit_server.py")


def forms_session() -> tuple[cx.Session, McpServers]:
    config = {"command": sys.executable, "args": [SERVER], "startup_timeout_sec": 30, "tool_timeout_sec": 60}
    session = cx.Session(cx.Config(extra={"mcp_servers": {"forms": config}}))
    return session, McpServers.attach(session)


def call(name: str, call_id: str) -> dict:
    return {"type": "function_call", "namespace": "mcp__forms", "name": name, "arguments": "{}", "call_id": call_id}


async def run(session: cx.Session, *names: str) -> dict:
    script = [[call(n, f"c{i}") for i, n in enumerate(names)], [cx.assistant_message("done")]]
    result = await session.run_turn("go", model=cx.ScriptedModel(script))
    assert result.status == "completed", result.error
    return result.outputs()


def answered(output: object) -> dict:
    text = output if isinstance(output, str) else "".join(p.get("text", "") for p in output)  # type: ignore[union-attr]
    data = json.loads(text[text.index("{") : text.rindex("}") + 1])
    return json.loads(data["result"]) if set(data) == {"result"} else data  # structured content wraps the text


async def test_a_form_is_answered_in_the_widget_with_validation_naming_the_field() -> None:
    session, servers = forms_session()
    async with servers:
        prompts = cx.PromptsWidget(session)
        prompts.receive({"kind": "ready", "id": "view"})
        bad = {"email": "ada@example.com", "plan": "pro", "age": 7}
        good = {"email": "ada@example.com", "plan": "pro", "age": 36, "newsletter": True, "topics": ["python"]}

        def person(event: cx.events.Event) -> None:
            if event.msg.type == "elicitation_request":
                request_id = session.frontend_requests.pending[0].id
                message = {"kind": "answer_elicitation", "id": request_id, "action": "accept"}
                assert not prompts.receive({**message, "content": bad})  # age below its minimum: stays open
                assert "field 'age' must be at least 13" in prompts.error
                assert prompts.receive({**message, "content": good})

        session.subscribe(person)
        log = RecordingSubscriber(session)
        outputs = await run(session, "sign_up")
    assert answered(outputs["c0"]) == {"action": "accept", "content": good}
    asked = log.of_type("elicitation_request")[0].msg
    assert (asked.server_name, asked.mode, asked.message) == ("forms", "form", "Sign up for the newsletter service")
    assert [(f.name, f.type, f.required) for f in asked.fields] == [
        ("email", "string", True),
        ("age", "integer", False),
        ("plan", "enum", True),
        ("newsletter", "boolean", False),
        ("topics", "multi_enum", False),
    ]
    assert [o.label for o in asked.fields[2].options or []] == ["Free", "Pro"]
    (record,) = session.approvals
    assert (record.kind, record.answered_by, record.outcome) == ("elicitation", "widget", "answered")
    assert record.answer == {"action": "accept", "content": good}
    assert record.summary == "forms: Sign up for the newsletter service"
    assert record.asked_at <= record.answered_at
    assert prompts.record[-1]["answered_by"] == "widget"  # saved with the widget state


async def test_url_elicitations_show_the_domain_and_policies_answer_them() -> None:
    session, servers = forms_session()
    async with servers:
        session.answer_policy = cx.AnswerPolicy.recommended()  # nobody can visit a URL: declined
        log = RecordingSubscriber(session)
        first = await run(session, "log_in")
        session.answer_policy = cx.AnswerPolicy.scripted(["accept", {"email": "a@b.co", "plan": "free"}])
        second = await run(session, "log_in", "sign_up")
    assert answered(first["c0"]) == {"action": "decline", "content": None}
    assert answered(second["c0"]) == {"action": "accept", "content": None}
    assert answered(second["c1"]) == {"action": "accept", "content": {"email": "a@b.co", "plan": "free"}}
    url = log.of_type("elicitation_request")[0].msg
    assert (url.mode, url.url, url.domain) == (
        "url",
        "https://login.example.com/authorize?client=codex_nb",
        "login.example.com",
    )
    assert [(r.answered_by, r.policy) for r in session.approvals] == [
        ("policy", "AnswerPolicy.recommended()"),
        ("policy", "AnswerPolicy.scripted(2 answers)"),
        ("policy", "AnswerPolicy.scripted(2 answers)"),
    ]


async def test_a_form_with_an_unsupported_field_is_declined_naming_it_and_nobody_declines_the_rest() -> None:
    session, servers = forms_session()
    async with servers:
        log = RecordingSubscriber(session)
        outputs = await run(session, "bad_form", "sign_up")  # no widget, no policy
    assert answered(outputs["c0"]) == {"action": "decline", "content": None}
    assert answered(outputs["c1"]) == {"action": "decline", "content": None}
    warnings = [e.msg.message for e in log.of_type("warning")]
    assert any("field 'address' has type 'object'" in w and "`forms`" in w for w in warnings), warnings
    assert any("could not be answered" in w for w in warnings), warnings
    assert [e.msg.type for e in log.events if e.msg.type == "elicitation_request"] == ["elicitation_request"]
    by = sorted((r.answered_by, r.outcome) for r in session.approvals)
    assert by == [("codex_nb", "unanswerable"), ("nobody", "unanswerable")]
    shown = next(r for r in session.approvals if r.answered_by == "codex_nb")
    assert "field 'address'" in shown.summary and shown.answer == {"action": "decline"}
