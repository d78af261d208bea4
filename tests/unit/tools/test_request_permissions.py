"""request_permissions: gate, spec bytes, check order, path resolution,
grant/deny shapes and scopes, what a grant changes later, interrupt."""

from __future__ import annotations

import asyncio
import os

import pytest

import codex_nb as cx
from codex_nb.protocol.wire import dumps
from codex_nb.frontend.answer_policy import ENV_VAR
from codex_nb.errors import AnswerError
from codex_nb.frontend.requests import Outcome
from codex_nb.tools.handlers.request_permissions import CANCELLED, granted_permissions
from helpers.frontend_waits import first_pending as wait_pending

SPEC = (
    '{"type":"function","name":"request_permissions","description":"Request additional filesystem or network '
    "permissions from the user and wait for the client to grant a subset of the requested permission profile. Use "
    "environment_id to target a specific attached environment; omit it to use the primary environment. Relative "
    "filesystem paths resolve against the selected environment cwd. Granted permissions apply automatically to later "
    "shell-like commands in the current turn, or for the rest of the session if the client approves them at session "
    'scope.","strict":false,"parameters":{"type":"object","properties":{"environment_id":{"type":"string",'
    '"description":"Environment id from <environment_context>. Omit to use the primary environment."},"permissions":'
    '{"type":"object","description":"Filesystem or network access request.","properties":{"file_system":{"type":'
    '"object","description":"Filesystem access request.","properties":{"read":{"type":"array","description":'
    '"Absolute paths to grant read access; omit when none are needed.","items":{"type":"string"}},"write":{"type":'
    '"array","description":"Absolute paths to grant write access; omit when none are needed.","items":{"type":'
    '"string"}}},"additionalProperties":false},"network":{"type":"object","description":"Network access request.",'
    '"properties":{"enabled":{"type":"boolean","description":"True requests network access; false or omitted '
    'requests none."}},"additionalProperties":false}},"additionalProperties":false},"reason":{"type":"string",'
    '"description":"Optional short explanation for why additional permissions are needed."}},"required":'
    '["permissions"],"additionalProperties":false}}'
)

WRITE = {"permissions": {"file_system": {"write": ["/work/project", "/work/shared"]}}, "reason": "Select a root"}


@pytest.fixture
def session(rendered_frontend) -> cx.Session:
    s = cx.Session(cx.Config(request_permissions_tool=True), cwd="/work/project")
    s.frontend_requests.attach(rendered_frontend)
    return s


async def ask(session, args, response, **kw):
    task = asyncio.ensure_future(session.call_tool("request_permissions", args, **kw))
    pending = await wait_pending(session)
    session.frontend_requests.answer(pending.id, response)
    return await task, pending


def test_gate_spec_and_exposure():
    assert "request_permissions" not in [s["name"] for s in cx.Session().tool_plan().specs]
    assert cx.Config.from_toml("[features]\nrequest_permissions_tool = true\n").request_permissions_tool
    s = cx.Session(cx.Config(request_permissions_tool=True))
    plan = s.tool_plan()
    assert [x["name"] for x in plan.specs][:3] == ["update_plan", "request_user_input", "request_permissions"]
    assert dumps(next(x for x in plan.specs if x["name"] == "request_permissions")) == SPEC
    assert plan.exposure("request_permissions") is cx.tools.ToolExposure.Direct


async def test_grant_for_turn_event_and_output(session):
    rec = cx.testing.RecordingSubscriber(session)
    res, pending = await ask(session, WRITE, "allow_turn", call_id="call_123")
    assert (
        res.output == '{"permissions":{"network":null,"file_system":{"write":["/work/project","/work/shared"]}},'
        '"scope":"turn"}'
    )
    assert res.success is True
    event = rec.of_type("request_permissions")[0].msg.to_wire()
    assert event == {
        "type": "request_permissions",
        "call_id": "call_123",
        "turn_id": pending.turn_id,
        "environment_id": "local",
        "started_at_ms": event["started_at_ms"],
        "reason": "Select a root",
        "permissions": {"network": None, "file_system": {"write": ["/work/project", "/work/shared"]}},
        "cwd": "/work/project",
    }
    assert rec.types == ["request_permissions", "frontend_request_resolved"]


async def test_deny_gives_empty_grant(session):
    res, _ = await ask(session, WRITE, "deny")
    assert res.output == '{"permissions":{"network":null,"file_system":null},"scope":"turn"}'


async def test_partial_grant_is_intersected_with_request(session):
    response = {
        "scope": "session",
        "permissions": {"file_system": {"write": ["/work/project", "/etc"]}, "network": {"enabled": True}},
    }
    res, _ = await ask(session, WRITE, response)
    assert res.output == '{"permissions":{"network":null,"file_system":{"write":["/work/project"]}},"scope":"session"}'


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ("maybe", "a permissions answer must be 'allow_turn', 'allow_session', 'deny'"),
        ({"scope": "forever", "permissions": {}}, "scope must be 'turn' or 'session'"),
        ({"permissions": {"disk": 1}}, "'permissions' must be {'network'?, 'file_system'?"),
        ({"grant": True}, "a permissions answer needs 'permissions'"),
    ],
)
async def test_malformed_permission_answers(session, response, message):
    task = asyncio.ensure_future(session.call_tool("request_permissions", WRITE))
    pending = await wait_pending(session)
    with pytest.raises(AnswerError, match=message.replace("{", r"\{").replace("?", r"\?")):
        session.frontend_requests.answer(pending.id, response)
    session.frontend_requests.answer_permissions(pending.call_id, "deny")
    await task


async def test_paths_resolve_against_cwd(session):
    args = {"permissions": {"file_system": {"read": ["src", "./a/../b", "~/notes"], "write": ["/abs/./x/"]}}}
    res, pending = await ask(session, args, "allow_turn")
    fs = pending.msg.to_wire()["permissions"]["file_system"]
    assert fs == {"read": ["/work/project/src", "/work/project/b", os.path.expanduser("~/notes")], "write": ["/abs/x"]}  # noqa: ASYNC240  a string op on $HOME


async def test_dedupe_and_network_normalization(session):
    args = {"permissions": {"file_system": {"read": ["a", "a", "./a"]}, "network": {}}}
    res, pending = await ask(session, args, "allow_turn")
    assert pending.msg.to_wire()["permissions"] == {"network": None, "file_system": {"read": ["/work/project/a"]}}


async def test_canonical_entries_and_globs(session):
    args = {
        "permissions": {
            "file_system": {
                "entries": [
                    {"path": {"type": "glob_pattern", "pattern": "**/*.env"}, "access": "none"},
                    {"path": {"type": "path", "path": "data"}, "access": "read"},
                ],
                "glob_scan_max_depth": 2,
            }
        }
    }
    res, pending = await ask(session, args, "allow_turn")
    assert pending.msg.to_wire()["permissions"]["file_system"] == {
        "entries": [
            {"path": {"type": "glob_pattern", "pattern": "**/*.env"}, "access": "none"},
            {"path": {"type": "path", "path": "/work/project/data"}, "access": "read"},
        ],
        "glob_scan_max_depth": 2,
    }
    bad = {
        "permissions": {
            "file_system": {"entries": [{"path": {"type": "glob_pattern", "pattern": "*.pem"}, "access": "read"}]}
        }
    }
    out = await session.call_tool("request_permissions", bad)
    assert out.output == "glob file system permissions only support deny-read entries"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"environment_id": "remote", "permissions": {}}, "unknown turn environment id `remote`"),
        ({"environmentId": "gpu", "permissions": "x"}, "unknown turn environment id `gpu`"),
        ({"permissions": {}}, "request_permissions requires at least one permission"),
        ({"permissions": {"network": {}}}, "request_permissions requires at least one permission"),
        ({"permissions": {"file_system": {}}}, "request_permissions requires at least one permission"),
        ({}, "failed to parse function arguments: missing field `permissions`"),
        (
            {"permissions": {"disk": {}}},
            "failed to parse function arguments: unknown field `disk`, expected `network` or `file_system`",
        ),
        (
            {"permissions": {"file_system": {"read": ["a"], "exec": []}}},
            "failed to parse function arguments: unknown field `exec`, expected `read` or `write`",
        ),
        (
            {"permissions": {"network": {"enabled": "yes"}}},
            'failed to parse function arguments: invalid type: string "yes", expected a boolean',
        ),
        (
            {"permissions": {"file_system": {"entries": [{"path": {"type": "special"}, "access": "read"}]}}},
            "failed to parse function arguments: unknown variant `special`, expected `path` or `glob_pattern`",
        ),
        (
            {"permissions": {"file_system": {"entries": [{"path": {"type": "path", "path": "a"}, "access": "exec"}]}}},
            "failed to parse function arguments: unknown variant `exec`, expected one of `read`, `write`, `none`",
        ),
    ],
)
async def test_checks_and_messages(session, args, message):
    res = await session.call_tool("request_permissions", args)
    assert res.output.startswith(message), res.output
    assert res.success is False and session.frontend_requests.pending == []


async def test_environment_local_is_the_primary(session):
    res, _ = await ask(session, {**WRITE, "environment_id": "local"}, "allow_turn")
    assert res.success is True


async def test_approval_policy_never_grants_nothing_without_asking():
    s = cx.Session(cx.Config(request_permissions_tool=True, approval_policy="never"), cwd="/w")
    res = await s.call_tool("request_permissions", WRITE)
    assert res.output == '{"permissions":{"network":null,"file_system":null},"scope":"turn"}'
    assert res.events == []
    assert cx.Config.from_toml('approval_policy = "never"\n').approval_policy == "never"


async def test_turn_grant_applies_to_later_calls_of_the_turn_only(session):

    session.answer_policy = ["allow_turn"]
    model = cx.ScriptedModel(
        [
            [cx.function_call("request_permissions", WRITE, call_id="p1")],
            [cx.assistant_message("ok")],
        ]
    )
    handle = session.start_turn("go", model=model)
    result = await handle
    assert result.outputs()["p1"].endswith('"scope":"turn"}')
    granted = handle.turn.permission_grants
    assert granted.model_dump(mode="json") == {
        "network": None,
        "file_system": {"write": ["/work/project", "/work/shared"]},
    }
    assert granted_permissions(handle.turn).file_system is not None
    other = session._new_turn(cx.tools.ModeKind.DEFAULT)
    assert granted_permissions(other).is_empty()  # a later turn does not inherit a turn grant


async def test_session_grant_applies_to_later_turns(session):
    res, _ = await ask(session, {"permissions": {"network": {"enabled": True}}}, "allow_session")
    assert res.output == '{"permissions":{"network":{"enabled":true},"file_system":null},"scope":"session"}'
    later = session._new_turn(cx.tools.ModeKind.DEFAULT)
    assert granted_permissions(later).model_dump(mode="json") == {"network": {"enabled": True}, "file_system": None}


async def test_interrupt_aborts_permission_request(session, no_leaked_tasks):
    model = cx.ScriptedModel([[cx.function_call("request_permissions", WRITE, call_id="p1")]])
    handle = session.start_turn("go", model=model)
    pending = await wait_pending(session)
    handle.interrupt()
    result = await handle
    assert result.outputs()["p1"].startswith("aborted by user after ")
    assert session.frontend_requests.outcome(pending.id) is Outcome.CANCELLED
    with pytest.raises(AnswerError, match="already settled"):
        session.frontend_requests.answer(pending.id, "allow_turn")
    assert granted_permissions(handle.turn).is_empty()


async def test_cancel_without_abort(session):
    task = asyncio.ensure_future(session.call_tool("request_permissions", WRITE))
    pending = await wait_pending(session)
    session.frontend_requests.cancel(pending.id)
    assert (await task).output == CANCELLED


async def test_policies_for_permissions(monkeypatch):
    s = cx.Session(cx.Config(request_permissions_tool=True), cwd="/w")
    assert (await s.call_tool("request_permissions", WRITE)).output.startswith(
        "request_permissions could not be answered"
    )
    monkeypatch.setenv(ENV_VAR, "deny")
    assert (await s.call_tool("request_permissions", WRITE)).output.endswith('"file_system":null},"scope":"turn"}')
    monkeypatch.setenv(ENV_VAR, "recommended")
    assert '"write":["/work/project","/work/shared"]' in (await s.call_tool("request_permissions", WRITE)).output
