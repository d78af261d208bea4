"""A server that sends ids of the wrong JSON type: every server request still gets its answer.

The app-server connection routes by ``threadId`` and by response ``id``. A value that is no
string (or no integer) — a list, an object — must route nowhere, like an unknown one: a
request is answered with an error (the server would otherwise wait for it forever), a
notification is kept with the unrouted ones, a response is logged as unknown.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import codex_nb as cx

from helpers.app_server_peer import connected, receive, send


QUESTION = {"turnId": "t", "itemId": "q", "questions": []}


async def test_a_thread_id_of_the_wrong_type_routes_nowhere_and_the_request_is_answered(tmp_path: Path) -> None:
    server = cx.CodexAppServer(codex_home=tmp_path)
    async with connected(server) as (reader, writer, _connection):
        send(writer, {"method": "thread/status/changed", "params": {"threadId": {"id": "x"}}})
        send(writer, {"id": 5, "method": "item/tool/requestUserInput", "params": {"threadId": ["x"], **QUESTION}})
        # a known-good unknown thread after it: its answer comes second, in arrival order
        send(writer, {"id": 6, "method": "item/tool/requestUserInput", "params": {"threadId": "nope", **QUESTION}})
        assert await receive(reader) == {
            "jsonrpc": "2.0",
            "id": 5,
            "error": {"code": -32601, "message": "codex_nb has no thread ['x'] for item/tool/requestUserInput"},
        }
        second = await receive(reader)
    assert second["id"] == 6 and second["error"]["code"] == -32601
    assert server.unrouted == [("thread/status/changed", {"threadId": {"id": "x"}})]


async def test_a_response_id_of_the_wrong_type_is_an_unknown_response(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = cx.CodexAppServer(codex_home=tmp_path)
    caplog.set_level(logging.INFO, logger="codex_nb.app_server.rpc")
    async with connected(server) as (reader, writer, _connection):
        send(writer, {"id": [1], "result": {}})
        send(writer, {"id": 6, "method": "item/tool/requestUserInput", "params": {"threadId": "nope", **QUESTION}})
        assert (await receive(reader))["id"] == 6  # everything before it was handled
    records = [r for r in caplog.records if r.name == "codex_nb.app_server.rpc"]
    assert [(r.levelname, r.getMessage()) for r in records] == [
        ("INFO", "response to an unknown or timed-out request id [1]")
    ]
