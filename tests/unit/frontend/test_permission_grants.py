"""Permission grants from a frontend are checked strictly (never coerced), in core's shape or the
app-server's camelCase one (``codex app-server``'s PermissionsRequestApprovalResponse)."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx
from codex_nb.errors import AnswerError
from helpers.frontend_waits import first_pending as pending_request

REQUEST = {
    "permissions": {
        "network": {"enabled": True},
        "file_system": {"read": ["/work/project/data"], "write": ["/work/project/out"]},
    }
}


@pytest.fixture
def session(rendered_frontend) -> cx.Session:
    s = cx.Session(cx.Config(request_permissions_tool=True), cwd="/work/project")
    s.frontend_requests.attach(rendered_frontend)
    return s


@pytest.mark.parametrize(
    ("grant", "error"),
    [
        ({"network": {"enabled": "yes"}}, "granted network must be {'enabled': true | false}, got {'enabled': 'yes'}"),
        ({"network": True}, "granted network must be {'enabled': true | false}, got True"),
        (
            {"file_system": {"read": "notalist"}},
            "granted file_system.read must be a list of path strings, got 'notalist'",
        ),
        (
            {"file_system": {"read": ["/work/project/data"], "execute": ["/bin"]}},
            "granted file_system has unknown keys ['execute']; known: ['entries', 'globScanMaxDepth', "
            "'glob_scan_max_depth', 'read', 'write']",
        ),
        ({"file_system": {}, "fileSystem": {}}, "'permissions' must be {'network'?, 'file_system'? (or 'fileSystem')}"),
    ],
)
async def test_malformed_grants_are_refused_and_the_request_stays_pending(session, grant, error):
    task = asyncio.ensure_future(session.call_tool("request_permissions", REQUEST, call_id="c1"))
    pending = await pending_request(session)
    with pytest.raises(AnswerError) as caught:
        session.frontend_requests.answer(pending.id, {"permissions": grant, "scope": "turn"})
    assert str(caught.value).startswith(error)
    assert not task.done() and session.frontend_requests.pending == [pending]
    session.frontend_requests.answer(pending.id, "deny")
    assert (await task).output == '{"permissions":{"network":null,"file_system":null},"scope":"turn"}'


async def test_the_app_server_camel_case_answer_is_accepted(session):
    task = asyncio.ensure_future(session.call_tool("request_permissions", REQUEST, call_id="c1"))
    pending = await pending_request(session)
    session.frontend_requests.answer(
        pending.id,
        {
            "scope": "session",
            "permissions": {"fileSystem": {"read": ["/work/project/data"]}, "network": {"enabled": True}},
        },
    )
    assert (await task).output == (
        '{"permissions":{"network":{"enabled":true},"file_system":{"read":["/work/project/data"]}},"scope":"session"}'
    )
