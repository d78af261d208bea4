"""A turn's collaboration mode is known to its first notification, however the server's lines arrive.

Codex answers ``turn/start`` and sends ``turn/started`` right after; when both lines arrive in
one read, the connection dispatches the notification before the coroutine awaiting the
response runs. The ``turn_started`` event must still say the turn's mode (Plan mode here).
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import codex_nb as cx
from codex_nb.sources.app_server.rpc import JsonRpcConnection
from codex_nb.testing import RecordingSubscriber


def _line(message: dict[str, Any]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode()


async def _request(reader: asyncio.StreamReader) -> dict[str, Any]:
    line = await asyncio.wait_for(reader.readline(), 30)
    assert line, "the connection closed without a request"
    parsed: dict[str, Any] = json.loads(line)
    return parsed


async def test_turn_started_in_the_same_read_as_the_response_has_the_turns_mode(tmp_path: Path) -> None:
    server = cx.CodexAppServer(codex_home=tmp_path)
    server._loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    conn_reader, conn_writer = await asyncio.open_connection(sock=ours)
    peer_reader, peer_writer = await asyncio.open_connection(sock=theirs)
    closed = asyncio.Event()
    server.connection = JsonRpcConnection(
        conn_reader,
        conn_writer,
        on_notification=server._on_notification,
        on_request=server._on_request,
        on_closed=closed.set,
        stderr_tail=lambda: "",
        returncode=lambda: None,
    )
    try:
        starting = asyncio.ensure_future(server.start_thread(cwd=tmp_path))
        request = await _request(peer_reader)
        peer_writer.write(_line({"id": request["id"], "result": {"thread": {"id": "th"}, "model": "m"}}))
        thread = await starting
        log = RecordingSubscriber(thread)
        handle = thread.start_turn("plan it", mode="plan")
        request = await _request(peer_reader)
        assert request["params"]["collaborationMode"]["mode"] == "plan"
        turn = {"id": "t1", "items": [], "status": "inProgress"}
        # the response and the notification in one write: one read on our side
        peer_writer.write(
            _line({"id": request["id"], "result": {"turn": turn}})
            + _line({"method": "turn/started", "params": {"threadId": "th", "turn": turn}})
            + _line({"method": "turn/completed", "params": {"threadId": "th", "turn": {**turn, "status": "completed"}}})
        )
        result = await handle
    finally:
        peer_writer.close()
        await closed.wait()
        conn_writer.close()
        await conn_writer.wait_closed()
        await peer_writer.wait_closed()
    assert result.status == "completed"
    assert [e.msg.collaboration_mode_kind for e in log.of_type("turn_started")] == ["plan"]
