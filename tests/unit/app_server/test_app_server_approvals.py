"""Every approval decision and both elicitation kinds of the real Codex (``codex app-server``
0.169.0), answered through the prompts widget and the answer policies, and recorded in
``thread.approvals``; plus what a hostile server could send (decisions and schemas codex_nb
cannot read), against a stand-in server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import RecordingSubscriber

from helpers.app_server_helpers import Waiter, forms_codex, of_type, real_codex
from helpers.app_server_peer import StandInThread


ESCALATED = {"cmd": "touch approved.txt", "sandbox_permissions": "require_escalated", "justification": "make a file"}
RULE = ["touch", "approved.txt"]


async def _approve_with(tmp_path: Path, decision: str) -> tuple[Any, list, RecordingSubscriber, cx.PromptsWidget]:
    """One escalated command; a person presses ``decision`` in the widget."""
    script = [[cx.function_call("exec_command", ESCALATED, call_id="e1")], [cx.assistant_message("ok")]]
    home = tmp_path / "home"  # a cancelled turn asks the model nothing more: the last response stays
    async with real_codex(
        script, home, allow_leftover=True, approval_policy="on-request", sandbox_mode="workspace-write"
    ) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})
        log = RecordingSubscriber(thread)

        def person(event: cx.events.Event) -> None:
            if event.msg.type == "exec_approval_request":
                request = thread.frontend_requests.pending[0]
                assert not prompts.receive(
                    {"kind": "answer_approval", "id": request.id, "decision": "approve_for_session"}
                )
                assert "one of the offered decisions 'approve', 'approve_with_execpolicy_amendment', 'cancel'" in (
                    prompts.error
                )
                assert prompts.receive({"kind": "answer_approval", "id": request.id, "decision": decision})

        thread.subscribe(person)
        result = await thread.start_turn("make the file")
        assert server.connection.schema_errors == []
        return result, thread.server_requests.answered, log, prompts


@pytest.mark.requires_codex
async def test_the_decisions_codex_offers_are_shown_each_with_its_label_and_rule(tmp_path: Path) -> None:
    result, answered, log, prompts = await _approve_with(tmp_path, "approve_with_execpolicy_amendment")
    asked = log.of_type("exec_approval_request")[0].msg
    assert [(o.key, o.label) for o in asked.available_decisions] == [
        ("approve", "Yes, run it once"),
        (
            "approve_with_execpolicy_amendment",
            "Yes, and don't ask again for commands starting with `touch approved.txt`",
        ),
        ("cancel", "No, and stop the turn"),
    ]
    assert asked.available_decisions[1].execpolicy_amendment == RULE
    assert asked.cwd == str(tmp_path) and asked.reason == "make a file"
    rule = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": RULE}}
    assert answered == [("item/commandExecution/requestApproval", {"decision": rule})]
    assert result.status == "completed" and (tmp_path / "approved.txt").exists()
    rules = "".join(p.read_text() for p in (tmp_path / "home").rglob("*.rules"))
    assert 'prefix_rule(pattern=["touch", "approved.txt"]' in rules  # Codex saved the rule
    record = prompts.record[-1]
    assert (record["kind"], record["answered_by"], record["answer"]) == (
        "approval",
        "widget",
        {"decision": "approve_with_execpolicy_amendment"},
    )


@pytest.mark.requires_codex
async def test_cancel_stops_the_turn_where_decline_only_rejects_the_call(tmp_path: Path) -> None:
    cancelled, answered, _log, _prompts = await _approve_with(tmp_path / "cancel", "cancel")
    assert answered == [("item/commandExecution/requestApproval", {"decision": "cancel"})]
    assert cancelled.status == "interrupted"
    assert not (tmp_path / "cancel" / "approved.txt").exists()

    declined, answered, _log, _prompts = await _approve_with(tmp_path / "decline", "decline")
    assert answered == [("item/commandExecution/requestApproval", {"decision": "decline"})]
    assert declined.status == "completed"  # the model was told and the turn went on
    assert not (tmp_path / "decline" / "approved.txt").exists()


@pytest.mark.requires_codex
async def test_elicitations_of_an_mcp_server_through_the_real_codex(tmp_path: Path) -> None:
    async with forms_codex(tmp_path / "home", "sign_up", "log_in") as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})
        log = RecordingSubscriber(thread)
        content = {"email": "ada@example.com", "plan": "pro", "age": 36, "topics": ["rust"]}

        def person(event: cx.events.Event) -> None:
            if event.msg.type != "elicitation_request":
                return
            request = next(r for r in thread.frontend_requests.pending if r.call_id == event.msg.call_id)
            answer: dict[str, Any] = {"kind": "answer_elicitation", "id": request.id}
            if event.msg.mode == "form":
                assert not prompts.receive({**answer, "action": "accept", "content": {"plan": "pro"}})
                assert "field 'email' is required" in prompts.error
                assert prompts.receive({**answer, "action": "accept", "content": content})
            else:
                assert prompts.receive({**answer, "action": "decline", "content": None})

        thread.subscribe(person)
        result = await thread.start_turn("sign me up and log me in")
        assert server.connection.schema_errors == []
    assert result.status == "completed"
    sent = [answer for _method, answer in thread.server_requests.answered]  # each answered once
    assert sorted(a["action"] for a in sent) == ["accept", "decline"]
    assert {"action": "accept", "content": content} in sent
    kinds = sorted((e.msg.mode, e.msg.server_name) for e in log.of_type("elicitation_request"))
    assert kinds == [("form", "forms"), ("url", "forms")]
    url = next(e.msg for e in log.of_type("elicitation_request") if e.msg.mode == "url")
    assert url.domain == "login.example.com"
    assert sorted((r.kind, r.answered_by, r.outcome) for r in thread.approvals) == [
        ("elicitation", "widget", "answered"),
        ("elicitation", "widget", "answered"),
    ]
    outputs = [i["output"] for i in srv.requests[-1]["input"] if i.get("type") == "function_call_output"]
    assert any('\\"action\\": \\"accept\\"' in o and "ada@example.com" in o for o in outputs), outputs


@pytest.mark.requires_codex
async def test_an_mcp_tool_approval_offers_codex_s_longer_approvals_and_codex_keeps_them(tmp_path: Path) -> None:
    async with forms_codex(tmp_path / "home", "sign_up", approve_tools=False) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        prompts = cx.PromptsWidget(thread)
        prompts.receive({"kind": "ready", "id": "view"})
        log = RecordingSubscriber(thread)

        def person(event: cx.events.Event) -> None:
            if event.msg.type != "elicitation_request":
                return
            request = next(r for r in thread.frontend_requests.pending if r.call_id == event.msg.call_id)
            answer = {"kind": "answer_elicitation", "id": request.id, "content": None}
            if event.msg.tool_approval is not None:
                assert not prompts.receive({**answer, "action": "accept", "persist": "forever"})
                assert prompts.receive({**answer, "action": "accept", "content": {}, "persist": "session"})
            else:
                assert prompts.receive({**answer, "action": "decline", "persist": None})

        thread.subscribe(person)
        first = await thread.start_turn("sign me up")
        second = await thread.start_turn("sign me up again")
        assert server.connection.schema_errors == []
    assert first.status == second.status == "completed"
    asked = [e.msg for e in log.of_type("elicitation_request")]
    approval = asked[0].tool_approval
    assert approval is not None and (approval.tool_name, approval.persist) == ("sign_up", ["session", "always"])
    assert asked[0].message == 'Allow the forms MCP server to run tool "sign_up"?' and asked[0].fields == []
    # the second turn asks only the server's own form: Codex kept the session-wide approval
    assert [m.tool_approval is not None for m in asked] == [True, False, False]
    sent = [answer for _method, answer in thread.server_requests.answered]
    assert sent == [
        {"action": "accept", "content": {}, "_meta": {"persist": "session"}},
        {"action": "decline"},
        {"action": "decline"},
    ]


# -- what a hostile server could send (a stand-in for the connection) --------------------------
def _command(decisions: Any, **extra: Any) -> dict[str, Any]:
    return {
        "threadId": "th",
        "turnId": "t",
        "itemId": "e1",
        "startedAtMs": 1,
        "command": "curl https://example.com",
        "cwd": "/w",
        "availableDecisions": decisions,
        **extra,
    }


async def test_network_policy_amendments_are_offered_with_host_and_rule_and_answered() -> None:
    from codex_nb.app_server.server_requests import ServerRequests

    thread = StandInThread()
    requests = ServerRequests(thread)  # type: ignore[arg-type]
    allow = {"applyNetworkPolicyAmendment": {"network_policy_amendment": {"host": "example.com", "action": "allow"}}}
    deny = {"applyNetworkPolicyAmendment": {"network_policy_amendment": {"host": "example.com", "action": "deny"}}}
    thread.frontend_requests.answer_policy = cx.AnswerPolicy.scripted(["apply_network_policy_amendment:2", "decline"])
    context = {"host": "example.com", "protocol": "https"}
    requests.handle(
        1,
        "item/commandExecution/requestApproval",
        _command(["accept", allow, deny, "decline"], networkApprovalContext=context),
    )
    requests.handle(2, "item/commandExecution/requestApproval", _command(None))  # none listed: Codex's four
    await asyncio.gather(*requests.tasks)
    assert sorted(thread.server.sent, key=lambda s: s[0]) == [(1, {"decision": deny}), (2, {"decision": "decline"})]
    first, second = [m for m in thread.events if m.type == "exec_approval_request"]
    assert [(o.key, o.label) for o in first.available_decisions] == [
        ("approve", "Yes, run it once"),
        ("apply_network_policy_amendment", "Yes, and always allow example.com (a saved rule)"),
        ("apply_network_policy_amendment:2", "No, and always block example.com (a saved rule)"),
        ("decline", "No, skip this call (the turn goes on)"),
    ]
    assert first.network_approval_context is not None and first.network_approval_context.host == "example.com"
    assert [o.key for o in second.available_decisions] == ["approve", "approve_for_session", "decline", "cancel"]


async def test_unreadable_decisions_and_unsupported_elicitations_are_declined_naming_what() -> None:
    from codex_nb.app_server.server_requests import ServerRequests

    thread = StandInThread()
    requests = ServerRequests(thread)  # type: ignore[arg-type]
    thread.frontend_requests.answer_policy = cx.AnswerPolicy.recommended()
    requests.handle(1, "item/commandExecution/requestApproval", _command([{"launchRockets": {}}]))
    nested = {"type": "object", "properties": {"name": {"type": "string"}, "address": {"type": "object"}}}
    form = {"threadId": "th", "turnId": "t", "serverName": "evil", "mode": "form", "message": "m"}
    requests.handle(2, "mcpServer/elicitation/request", {**form, "requestedSchema": nested})
    requests.handle(3, "mcpServer/elicitation/request", {**form, "mode": "openai/form", "requestedSchema": True})
    requests.handle(4, "mcpServer/elicitation/request", {**form, "mode": "url", "url": "javascript:alert(1)"})
    await asyncio.gather(*requests.tasks)
    assert sorted(thread.server.sent, key=lambda s: s[0]) == [
        (1, {"decision": "decline"}),
        (2, {"action": "decline"}),
        (3, {"action": "decline"}),
        (4, {"action": "decline"}),
    ]
    warnings = [m.message for m in thread.events if m.type == "warning"]
    assert any("unknown decision 'launchRockets'" in w for w in warnings), warnings
    assert any("`evil`" in w and "field 'address' has type 'object'" in w for w in warnings), warnings
    assert any("mode 'openai/form' is not supported" in w for w in warnings), warnings
    assert any("is not an http(s) URL" in w for w in warnings), warnings
    assert not [m for m in thread.events if m.type == "elicitation_request"]  # never shown half-way
    records = thread.frontend_requests.approvals
    assert [(r.kind, r.answered_by) for r in records] == [("approval", "codex_nb")] + [("elicitation", "codex_nb")] * 3


@pytest.mark.requires_codex
async def test_is_blocking_is_what_codex_sends(tmp_path: Path) -> None:
    question = {
        "questions": [
            {"id": "q", "header": "Pick", "question": "Which?", "options": [{"label": "A", "description": "a"}]}
        ]
    }
    script = [[cx.function_call("request_user_input", question, call_id="q1")], [cx.assistant_message("ok")]] * 2
    extra = "\n[features]\ndefault_mode_request_user_input = true\n"
    async with real_codex(script, tmp_path / "home", extra_toml=extra) as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        thread.answer_policy = "recommended"
        log = RecordingSubscriber(thread)
        asked = Waiter(thread, of_type("request_user_input"))
        await thread.start_turn("ask", mode="plan")
        await asked.wait()
        await thread.start_turn("ask", mode="default")
    assert [e.msg.isBlocking for e in log.of_type("request_user_input")] == [True, False]
