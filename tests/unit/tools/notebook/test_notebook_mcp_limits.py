"""The in-kernel notebook MCP server bounds what its clients start at once, over real HTTP on
127.0.0.1: tool calls over ``max_calls`` get a JSON-RPC error that says what to do (the calls
running go on), HTTP requests over ``max_requests`` get ``503`` with a JSON-RPC error body; once
the running calls end the server answers as before, and closing it leaves no thread or task.

The calls hold their place in ``run_code`` until the test opens a gate; each one reports that it
started on the test's event loop, so every step waits for a handshake."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx

import codex_nb as cx
from codex_nb.tools.notebook.mcp_server import BUSY

ON = "[codex_nb.notebook_tools]\nenabled = true\n[codex_nb.notebook_tools.approve]\nrun_code = false\n"
HOLD = "arrived()\ngate.wait(60)\n'held'"
ACCEPT = "application/json, text/event-stream"


def _gated_session() -> tuple[cx.Session, threading.Event, asyncio.Queue[int]]:
    session = cx.Session(config=cx.Config.from_toml(ON))
    loop, gate, arrived = asyncio.get_running_loop(), threading.Event(), asyncio.Queue[int]()
    namespace = {"gate": gate, "arrived": lambda: loop.call_soon_threadsafe(arrived.put_nowait, 1)}
    session.workspace.namespace = lambda: namespace
    return session, gate, arrived


async def _arrivals(arrived: asyncio.Queue[int], count: int) -> None:
    for _ in range(count):
        await asyncio.wait_for(arrived.get(), 30)


def _threads() -> set[threading.Thread]:
    """Live threads, less the event loop's executor pool (``asyncio.to_thread`` keeps its workers)."""
    return {t for t in threading.enumerate() if not t.name.startswith("asyncio_")}


def _others() -> set[asyncio.Task[Any]]:
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


async def test_calls_over_the_limit_get_a_clear_error_and_the_running_ones_finish() -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    threads, tasks = _threads(), _others()
    session, gate, arrived = _gated_session()
    server = await session.serve_notebook_tools(max_calls=3)

    async def client(code: str) -> Any:
        """One MCP client of its own (its session, its HTTP connection), calling run_code once."""
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}) as http:
            async with streamable_http_client(server.url, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as mcp:
                    await mcp.initialize()
                    try:
                        return await mcp.call_tool("run_code", {"code": code})
                    except MCPError as err:
                        return err

    try:
        calls = [asyncio.create_task(client(HOLD)) for _ in range(12)]
        await _arrivals(arrived, 3)  # three calls run (and hold); the other nine are turned away at once
        refused: list[Any] = []
        pending = set(calls)
        while len(refused) < 9:  # the refused ones end on their own; the three held ones wait for the gate
            done, pending = await asyncio.wait(pending, timeout=60, return_when=asyncio.FIRST_COMPLETED)
            assert done, "the calls over the limit were not answered"
            refused += [d.result() for d in done]
        assert len(refused) == 9 and len(pending) == 3 and all(isinstance(r, MCPError) for r in refused), refused
        assert {r.code for r in refused} == {BUSY}
        assert refused[0].message == (
            "too many notebook tool calls at once: this server runs at most 3 and 3 are running; "
            "wait for one to finish, then call run_code again"
        )
        assert refused[0].data == {"limit": 3, "running": 3}
        assert arrived.empty()  # none of the refused nine ran

        gate.set()
        results = await asyncio.gather(*pending)
        assert len(results) == 3
        assert all(not r.is_error and r.content[0].text.endswith("Out: 'held'") for r in results), results
        assert (server.in_flight, server.refused) == (0, 9)

        again = await client("6 * 7")  # healthy afterwards: the limit counts running calls only
        assert not isinstance(again, MCPError) and again.content[0].text.endswith("Out: 42")
    finally:
        gate.set()
        await session.aclose()
    assert not [t for t in threading.enumerate() if t.name == "codex-nb-notebook-mcp"]
    assert _threads() <= threads
    assert _others() <= tasks


def _events(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one streamable-HTTP response (plain JSON or an event stream)."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return [response.json()]
    return [
        json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()
    ]


async def test_requests_over_the_limit_get_503_with_a_json_rpc_error_and_the_server_recovers() -> None:
    threads, tasks = _threads(), _others()
    session, gate, arrived = _gated_session()
    server = await session.serve_notebook_tools(max_requests=3)
    headers = {"Authorization": f"Bearer {server.token}", "Accept": ACCEPT}
    try:
        async with httpx.AsyncClient(headers=headers, timeout=60) as http:
            init = await http.post(
                server.url,
                json={
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "limits-test", "version": "1"},
                    },
                },
            )
            assert init.status_code == 200, init.text
            mcp_headers = {"mcp-session-id": init.headers["mcp-session-id"]}
            version = _events(init)[0]["result"]["protocolVersion"]
            mcp_headers["mcp-protocol-version"] = version
            note = await http.post(
                server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=mcp_headers
            )
            assert note.status_code == 202, note.text

            def call(n: int, code: str) -> Any:
                body = {"jsonrpc": "2.0", "id": n, "method": "tools/call"}
                body["params"] = {"name": "run_code", "arguments": {"code": code}}
                return http.post(server.url, json=body, headers=mcp_headers)

            holding = [asyncio.create_task(call(n, HOLD)) for n in (1, 2, 3)]
            await _arrivals(arrived, 3)  # three requests in flight: the limit
            turned_away = await asyncio.gather(*[call(n, "1") for n in range(10, 18)])
            assert {r.status_code for r in turned_away} == {503}
            assert {r.headers["retry-after"] for r in turned_away} == {"1"}
            error = turned_away[0].json()
            assert error == {
                "jsonrpc": "2.0",
                "id": None,
                "error": {
                    "code": BUSY,
                    "message": "too many requests in flight to the notebook MCP server: it takes at most 3 at once "
                    "(open event streams included); retry after one has finished",
                    "data": {"limit": 3},
                },
            }
            assert arrived.empty()  # none of them reached a tool

            gate.set()
            for response in await asyncio.gather(*holding):
                assert response.status_code == 200
                assert _events(response)[-1]["result"]["content"][0]["text"].endswith("Out: 'held'")
            again = await call(20, "6 * 7")
            assert again.status_code == 200 and _events(again)[-1]["result"]["content"][0]["text"].endswith("Out: 42")
            assert server.refused == 8
    finally:
        gate.set()
        await session.aclose()
    assert not [t for t in threading.enumerate() if t.name == "codex-nb-notebook-mcp"]
    assert _threads() <= threads
    assert _others() <= tasks


async def test_limits_below_one_are_refused() -> None:
    import pytest

    session = cx.Session(config=cx.Config.from_toml(ON))
    with pytest.raises(cx.ConfigError, match="max_calls and max_requests must be at least 1, got 0 and 32"):
        await session.serve_notebook_tools(max_calls=0)
    await session.aclose()
