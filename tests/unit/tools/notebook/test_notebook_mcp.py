"""The notebook tools over MCP, served from the kernel's process: loopback only, refused without the
token, the same pipeline for every call, and the real pinned Codex (app-server, local Responses
server) calling a notebook tool, its run_code approval asked in the prompts broker of the Codex
thread (what that thread's prompts widget shows)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

import codex_nb as cx
from codex_nb.tools.notebook.mcp_server import TOKEN_ENV_VAR

ON = "[codex_nb.notebook_tools]\nenabled = true\n"


async def test_refuses_requests_without_its_token_and_binds_loopback() -> None:
    session = cx.Session(config=cx.Config.from_toml(ON))
    server = await session.serve_notebook_tools()
    try:
        assert server.url.startswith("http://127.0.0.1:")
        async with httpx.AsyncClient() as client:
            missing = await client.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            wrong = await client.post(server.url, json={}, headers={"Authorization": "Bearer not-it"})
        assert (missing.status_code, missing.text) == (401, "missing or wrong bearer token\n")
        assert wrong.status_code == 401
        assert server.codex_config() == {
            "mcp_servers.notebook.url": server.url,
            "mcp_servers.notebook.bearer_token_env_var": TOKEN_ENV_VAR,
            "mcp_servers.notebook.default_tools_approval_mode": "approve",
        }
        assert server.token not in json.dumps(server.codex_config())  # the token travels by environment only
    finally:
        await server.aclose()


async def test_an_mcp_client_calls_through_the_sessions_hooks() -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    session = cx.Session(config=cx.Config.from_toml(ON))
    session.workspace.namespace = lambda: {"rows": [1, 2, 3]}

    @session.pre_tool_use(matcher="^notebook__run_code$")
    def no_code(hook_input: Any) -> dict:
        return {"decision": "block", "reason": "no code over MCP in this test"}

    server = await session.serve_notebook_tools()
    try:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}) as http:
            async with streamable_http_client(server.url, http_client=http) as (read, write, *_):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    listed = await client.list_tools()
                    looked = await client.call_tool("inspect_variable", {"name": "rows"})
                    blocked = await client.call_tool("run_code", {"code": "1"})
    finally:
        await server.aclose()
    assert [t.name for t in listed.tools] == [
        "list_cells",
        "read_cell",
        "inspect_variable",
        "run_code",
        "insert_cell",
        "edit_cell",
        "run_cell",
    ]
    assert [c.text for c in looked.content] == ["type: list\nlen: 3\nrepr: [1, 2, 3]"] and not looked.is_error
    assert blocked.is_error and blocked.content[0].text == (
        "Tool call blocked by PreToolUse hook: no code over MCP in this test. Tool: notebook__run_code"
    )
    assert [str(r.tool_name) for r in session.lifecycle_log if r.phase == "finish"] == [
        "notebook.inspect_variable",
        "notebook.run_code",
    ]


@pytest.mark.requires_codex
async def test_the_real_codex_calls_a_notebook_tool_and_its_approval_reaches_the_thread(tmp_path: Path) -> None:
    from codex_nb.testing import ResponsesServer, codex_binary

    session = cx.Session(config=cx.Config.from_toml(ON))
    session.workspace.namespace = lambda: {"rain": {"Oslo": 62.0, "Pune": 108.2}}
    server = await session.serve_notebook_tools()
    state = {"phase": "wait"}

    def step(body: dict) -> list[dict]:
        developer = json.dumps([i for i in body["input"] if i.get("role") == "developer"])
        if state["phase"] == "wait" and "mcp__notebook" not in developer:  # Codex starts MCP servers in the background
            return [cx.function_call("get_context_remaining", {}, call_id=f"w{len(srv.requests)}")]
        if state["phase"] == "wait":
            state["phase"] = "look"
            return [
                cx.tool_search_call("notebook inspect variable run code", limit=20, call_id="search"),
                cx.function_call("inspect_variable", {"name": "rain"}, namespace="mcp__notebook", call_id="look"),
                cx.function_call(
                    "run_code", {"code": "max(rain, key=rain.get)"}, namespace="mcp__notebook", call_id="run"
                ),
            ]
        state["phase"] = "done"
        return [cx.assistant_message("done")]

    try:
        with ResponsesServer([step] * 40, allow_leftover=True) as srv:
            home = srv.write_codex_home(tmp_path / "home", model="gpt-5.5", features={"token_budget": True})
            env = server.env({**os.environ, "OPENAI_API_KEY": "sk-local-test"})
            async with cx.CodexAppServer(
                binary=codex_binary(), codex_home=home, env=env, config=server.codex_config()
            ) as codex:
                thread = await codex.start_thread(cwd=tmp_path)
                session.share_prompts_with(thread)
                asked = []
                thread.answer_policy = cx.AnswerPolicy.callback(lambda request: asked.append(request.msg) or "approve")
                result = await thread.start_turn("Which city is wettest?")
            last = srv.requests[-1]["input"]
    finally:
        await server.aclose()
    assert result.status == "completed", result.error
    outputs = {i["call_id"]: i["output"] for i in last if i.get("type") == "function_call_output"}
    assert "type: dict" in json.dumps(outputs["look"]) and "repr: {'Oslo': 62.0, 'Pune': 108.2}" in json.dumps(
        outputs["look"]
    )
    assert "Out: 'Pune'" in json.dumps(outputs["run"])
    assert [(m.type, m.command) for m in asked] == [("exec_approval_request", "max(rain, key=rain.get)")]
    assert [str(r.tool_name) for r in session.lifecycle_log if r.phase == "finish"] == [
        "notebook.inspect_variable",
        "notebook.run_code",
    ]


async def test_closing_the_session_stops_its_server() -> None:
    import threading

    session = cx.Session(config=cx.Config.from_toml(ON))
    server = await session.serve_notebook_tools()
    assert [t for t in threading.enumerate() if t.name == "codex-nb-notebook-mcp"]
    await session.aclose()
    assert not [t for t in threading.enumerate() if t.name == "codex-nb-notebook-mcp"]
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient() as client:
            await client.post(server.url, json={})


async def test_closing_while_a_client_holds_its_stream_open_still_ends_the_server() -> None:
    import threading

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    session = cx.Session(config=cx.Config.from_toml(ON))
    server = await session.serve_notebook_tools()
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}) as http:
        async with streamable_http_client(server.url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as client:
                await client.initialize()
                await client.list_tools()
                await server.aclose()  # Codex still connected: the server must not wait for it forever
                assert not [t for t in threading.enumerate() if t.name == "codex-nb-notebook-mcp"]


async def test_serving_without_the_tools_on_says_how_to_turn_them_on() -> None:
    session = cx.Session()
    with pytest.raises(cx.ConfigError, match=r"turn them on with \[codex_nb.notebook_tools\] enabled = true"):
        await session.serve_notebook_tools()
    assert session.workspace is None  # nothing of the notebook tools is loaded or registered


@pytest.mark.requires_acp_agent
async def test_an_acp_agent_calls_a_notebook_tool_through_its_session_mcp_servers(tmp_path: Path) -> None:
    """codex-acp is given the server in ``session/new`` (``server.acp_config()``) and calls a tool."""
    from codex_nb.testing import ResponsesServer, codex_acp_binary, write_codex_acp_home

    session = cx.Session(config=cx.Config.from_toml(ON))
    session.workspace.namespace = lambda: {"rain": {"Oslo": 62.0, "Pune": 108.2}}
    server = await session.serve_notebook_tools()
    state = {"phase": "wait"}

    def step(body: dict) -> list[dict]:
        seen = json.dumps(body.get("tools", [])) + json.dumps(body["input"])
        if state["phase"] == "wait" and "mcp__notebook" not in seen:  # MCP servers start in the background
            return [cx.function_call("get_context_remaining", {}, call_id=f"w{len(srv.requests)}")]
        if state["phase"] == "wait":
            state["phase"] = "look"
            return [
                cx.tool_search_call("notebook inspect variable", limit=20, call_id="search"),
                cx.function_call("inspect_variable", {"name": "rain"}, namespace="mcp__notebook", call_id="look"),
            ]
        state["phase"] = "done"
        return [cx.assistant_message("done")]

    work = tmp_path / "work"
    work.mkdir()
    try:
        with ResponsesServer([step] * 40, allow_leftover=True) as srv:
            home = write_codex_acp_home(srv, tmp_path / "home", features={"token_budget": True})
            env = {"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-local"}
            async with cx.AcpAgent(codex_acp_binary(), env=env) as agent:
                acp_session = await agent.new_session(work, mcp_servers=[server.acp_config()])
                acp_session.answer_policy = "recommended"  # Codex's own MCP-call approval, if it asks
                result = await acp_session.prompt("How wet is each city?")
            last = srv.requests[-1]["input"]
    finally:
        await server.aclose()
    assert result.status == "completed", result
    outputs = {i["call_id"]: i["output"] for i in last if i.get("type") == "function_call_output"}
    assert "repr: {'Oslo': 62.0, 'Pune': 108.2}" in json.dumps(outputs["look"])
    assert [str(r.tool_name) for r in session.lifecycle_log if r.phase == "finish"] == ["notebook.inspect_variable"]
