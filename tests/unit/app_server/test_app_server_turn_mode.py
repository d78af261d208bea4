"""A turn's collaboration mode is known to its first notification, however the server's lines
arrive; and a turn runs in the mode it asks for, on a resumed thread too.

Codex answers ``turn/start`` and sends ``turn/started`` right after; when both lines arrive in
one read, the connection dispatches the notification before the coroutine awaiting the
response runs. The ``turn_started`` event must still say the turn's mode (Plan mode here).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.testing import RecordingSubscriber

from helpers.app_server_helpers import real_codex
from helpers.app_server_peer import connected, line, receive, started_thread


# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


async def test_turn_started_in_the_same_read_as_the_response_has_the_turns_mode(tmp_path: Path) -> None:
    server = cx.CodexAppServer(codex_home=tmp_path)
    server._loop = asyncio.get_running_loop()
    async with connected(server) as (peer_reader, peer_writer, _connection):
        thread = await started_thread(server, (peer_reader, peer_writer), tmp_path)
        log = RecordingSubscriber(thread)
        handle = thread.start_turn("plan it", mode="plan")
        request = await receive(peer_reader)
        assert request["params"]["collaborationMode"]["mode"] == "plan"
        turn = {"id": "t1", "items": [], "status": "inProgress"}
        # the response and the notification in one write: one read on our side
        peer_writer.write(
            line({"id": request["id"], "result": {"turn": turn}})
            + line({"method": "turn/started", "params": {"threadId": "th", "turn": turn}})
            + line({"method": "turn/completed", "params": {"threadId": "th", "turn": {**turn, "status": "completed"}}})
        )
        result = await handle
    assert result.status == "completed"
    assert [e.msg.collaboration_mode_kind for e in log.of_type("turn_started")] == ["plan"]


@pytest.mark.requires_codex
async def test_a_default_turn_on_a_thread_resumed_in_plan_mode_runs_in_default_mode(tmp_path: Path) -> None:
    """Codex keeps a thread's collaboration mode across restarts and its resume answer does not
    say it: a resumed thread does not know its mode, so its next turn says the one it asks for
    (before, a Default turn on a thread left in Plan mode ran in Plan mode)."""
    home = tmp_path / "home"
    async with real_codex([[cx.assistant_message("planned")]], home) as (server, _srv):
        planned = await server.start_thread(cwd=tmp_path)
        assert planned.collaboration_mode == "default"
        assert (await planned.run_turn("plan it", mode="plan")).status == "completed"
        assert planned.collaboration_mode == "plan"
    async with real_codex([[cx.assistant_message("done")]], home) as (server, srv):
        resumed = await server.resume_thread(planned.thread_id)
        assert resumed.collaboration_mode is None  # the answer does not say
        assert (await resumed.run_turn("now do it")).status == "completed"
        assert resumed.collaboration_mode == "default"
    said = str(srv.requests[-1]["input"])
    assert said.rindex("# Collaboration Mode: Default") > said.rindex("# Plan Mode")
