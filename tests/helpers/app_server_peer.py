"""The test plays the app-server: a real socket pair to the client's JSON-RPC connection, and a
stand-in for the thread a server request is handled for (what a hostile or broken server could
send, without starting Codex)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import codex_nb as cx
from codex_nb.frontend.requests import FrontendRequests
from codex_nb.protocol.events import EventMsg
from codex_nb.app_server.rpc import JsonRpcConnection


@contextlib.asynccontextmanager
async def connected(
    server: cx.CodexAppServer,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter, JsonRpcConnection]]:
    """The server's JSON-RPC connection over a real socket pair; the test plays the app-server."""
    ours, theirs = socket.socketpair()
    conn_reader, conn_writer = await asyncio.open_connection(sock=ours)
    peer_reader, peer_writer = await asyncio.open_connection(sock=theirs)
    closed = asyncio.Event()
    connection = JsonRpcConnection(
        conn_reader,
        conn_writer,
        on_notification=server._on_notification,
        on_request=server._on_request,
        on_closed=closed.set,
        stderr_tail=lambda: "",
        returncode=lambda: None,
    )
    server.connection = connection
    try:
        yield peer_reader, peer_writer, connection
    finally:
        peer_writer.close()
        await closed.wait()  # our end read EOF: its read loop is over
        conn_writer.close()
        await conn_writer.wait_closed()
        await peer_writer.wait_closed()


def line(message: dict[str, Any]) -> bytes:
    """One JSON-RPC line as the app-server writes it."""
    return (json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode()


def send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    writer.write(line(message))


async def receive(reader: asyncio.StreamReader) -> dict[str, Any]:
    """The client's next line (a request or an answer)."""
    raw = await asyncio.wait_for(reader.readline(), 30)
    assert raw, "the connection closed without a message"
    parsed: dict[str, Any] = json.loads(raw)
    return parsed


async def started_thread(
    server: cx.CodexAppServer,
    peer: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    cwd: Any,
    answer: dict[str, Any] | None = None,
) -> Any:
    """``server.start_thread(cwd=...)``, its ``thread/start`` answered by the test playing the server
    (``answer``: the answer's body; default a thread ``th`` on model ``m``)."""
    reader, writer = peer
    starting = asyncio.ensure_future(server.start_thread(cwd=cwd))
    request = await receive(reader)
    writer.write(line({"id": request["id"], "result": answer or {"thread": {"id": "th"}, "model": "m"}}))
    return await starting


class StandInServer:
    """Records what the request handler answers."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def connection_respond(self, rpc_id: Any, result: Any, *, method: str) -> None:
        self.sent.append((rpc_id, result))

    def connection_respond_error(self, rpc_id: Any, code: int, message: str) -> None:
        self.sent.append((rpc_id, code, message))


class StandInThread:
    """The parts of a CodexThread the server-request handler uses; keeps the events it emits."""

    def __init__(self) -> None:
        self.server = StandInServer()
        self.frontend_requests = FrontendRequests()
        self.items: dict[str, Any] = {}
        self.events: list[EventMsg] = []

    def emit(self, msg: EventMsg, *, turn_id: str | None) -> None:
        self.events.append(msg)
