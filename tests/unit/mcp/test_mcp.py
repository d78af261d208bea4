"""MCP servers as tool sources, against real servers: tests/mcp_servers/notes_server.py (the SDK) and
PyPI's mcp-server-time, compared with what Codex 0.169 showed for the same servers."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys

import pytest

import codex_nb as cx
from codex_nb.tools.names import ToolName
from codex_nb.tools.registry import ToolRegistry
from codex_nb.errors import ConfigError
from codex_nb.mcp.config import parse_mcp_server, parse_mcp_servers
from codex_nb.mcp.manager import McpServers
from helpers.paths import TESTS

HERE = TESTS
NOTES = str(HERE / "mcp_servers" / "notes_server.py")
FIXTURE = json.loads((HERE / "fixtures" / "codex_0169" / "mcp_and_tools.json").read_text())


def notes_config(**extra):
    return {"command": sys.executable, "args": [NOTES], "startup_timeout_sec": 30, "tool_timeout_sec": 30, **extra}


def fc(name, args, call_id, namespace="mcp__notes"):
    return {
        "type": "function_call",
        "namespace": namespace,
        "name": name,
        "arguments": json.dumps(args),
        "call_id": call_id,
    }


def strip_wall_time(output):
    """Replace the measured seconds so outputs compare."""
    import re

    if isinstance(output, str):
        return re.sub(r"Wall time: [0-9.]+ seconds", "Wall time: T seconds", output)
    return [{**p, "text": strip_wall_time(p["text"])} if p.get("type") == "input_text" else p for p in output]


def session_with(servers: dict, **config):
    session = cx.Session(cx.Config(extra={"mcp_servers": servers, **config}))
    return session, McpServers.attach(session)


# -- config ---------------------------------------------------------------------------------
def test_config_parses_stdio_and_http():
    stdio = parse_mcp_server(
        "a",
        {
            "command": "x",
            "args": ["1"],
            "env": {"K": "V"},
            "cwd": "/tmp",
            "enabled_tools": ["t1", "t2"],
            "disabled_tools": ["t2"],
            "tool_timeout_sec": 5,
        },
    )
    assert (stdio.transport, stdio.args, stdio.tool_timeout_sec, stdio.startup_timeout_sec) == ("stdio", ("1",), 5, 10)
    assert [stdio.allows(t) for t in ("t1", "t2", "t3")] == [True, False, False]
    http = parse_mcp_server("b", {"url": "http://127.0.0.1:1/mcp", "http_headers": {"X": "1"}, "enabled": False})
    assert (http.transport, http.enabled, http.headers()) == ("streamable_http", False, {"X": "1"})


@pytest.mark.parametrize(
    "raw, message",
    [
        ({}, "needs exactly one of `command`"),
        ({"command": "x", "url": "y"}, "needs exactly one of `command`"),
        ({"command": "x", "urll": 1}, "unknown key"),
        ({"command": "x", "args": "a b"}, "must be a list of strings"),
        ({"command": "x", "tool_timeout_sec": 0}, "must be a positive number"),
    ],
)
def test_config_errors_say_what_is_wrong(raw, message):
    with pytest.raises(ConfigError, match=message):
        parse_mcp_servers({"mcp_servers": {"srv": raw}})


def test_missing_bearer_token_env_var_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("CODEX_NB_NO_SUCH_TOKEN", raising=False)
    config = parse_mcp_server("b", {"url": "http://x/mcp", "bearer_token_env_var": "CODEX_NB_NO_SUCH_TOKEN"})
    with pytest.raises(ConfigError, match="CODEX_NB_NO_SUCH_TOKEN"):
        config.headers()


# -- real servers -----------------------------------------------------------------------------
def notes_and_time():
    """The notes server and the reference time server (the mcp_server_time package), as Codex saw them."""
    time_server = {
        "command": sys.executable,
        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        "startup_timeout_sec": 30,
    }
    return session_with({"notes": notes_config(), "time": time_server})


async def test_tool_lists_match_what_codex_shows_for_the_same_servers():
    session, servers = notes_and_time()
    async with servers:
        assert servers.status() == {"notes": "ready", "time": "ready"}
        plan = session.planner.plan()
        assert "tool_search" in plan.tool_names and not any(n.startswith("mcp__") for n in plan.tool_names)
        search = plan.router.lookup(ToolName.of("tool_search")).tool
        for call_id, query in (
            ("s-notes", "note notes square image wait seconds crash exit shout save read count tool list"),
            ("s-time", "time timezone convert current"),
        ):
            codex = FIXTURE["tool_search_outputs"][call_id]["tools"]
            ours = search.search(query, 50)
            for codex_ns in (t for t in codex if t["name"].startswith("mcp__")):
                ns = next(t for t in ours if t["name"] == codex_ns["name"])
                assert ns["description"] == codex_ns["description"]
                by_name = {t["name"]: t for t in ns["tools"]}
                for tool in codex_ns["tools"]:
                    assert by_name[tool["name"]] == tool  # name, description, parameters, defer_loading: exact


async def test_calls_map_results_like_codex():
    session, servers = notes_and_time()
    async with servers:
        model = cx.ScriptedModel(
            [
                [fc("save_note", {"title": "a", "body": "hello"}, "c1"), fc("red_square", {}, "c2")],
                [
                    fc("note_stats", {}, "c3"),
                    fc("read_note", {"title": "zz"}, "c4"),
                    {
                        "type": "function_call",
                        "namespace": "mcp__notes",
                        "name": "save_note",
                        "arguments": "not json",
                        "call_id": "c6",
                    },
                    fc(
                        "convert_time",
                        {"source_timezone": "UTC", "time": "25:99", "target_timezone": "Asia/Tokyo"},
                        "t2",
                        namespace="mcp__time",
                    ),
                ],
                [cx.assistant_message("done")],
            ]
        )
        result = await session.run_turn("go", model=model)
    assert result.status == "completed", result.error
    ours = result.outputs()
    codex = {i["call_id"]: i["output"] for i in FIXTURE["mcp_outputs"] + FIXTURE["time_outputs"]}
    for call_id in ("c1", "c2", "c3", "c4", "t2"):
        assert strip_wall_time(ours[call_id]) == strip_wall_time(codex[call_id]), call_id
    assert ours["c6"].startswith("err: ")  # Codex: serde_json's message; ours: the same shape


async def test_failures_are_paired_errors_with_visible_status_and_restart():
    session, servers = session_with(
        {
            "notes": notes_config(tool_timeout_sec=1),
            "missing": {"command": "/nonexistent/mcp-server"},
            "garbage": {"command": sys.executable, "args": [NOTES, "--garbage"], "startup_timeout_sec": 1},
        }
    )
    warnings = []
    session.subscribe(lambda e: warnings.append(e.msg.message) if e.msg.type == "warning" else None)
    await servers.start()
    try:
        assert servers.status() == {"notes": "ready", "missing": "failed", "garbage": "failed"}
        assert "No such file or directory" in servers["missing"].error
        assert "timed out after 1 seconds" in servers["garbage"].error
        assert len(warnings) == 2
        model = cx.ScriptedModel(
            [
                [fc("note_stats", {}, "warm")],
                [fc("wait_seconds", {"seconds": 30}, "hang")],
                [fc("crash", {}, "crash")],
                [fc("note_stats", {}, "after")],
                [cx.assistant_message("done")],
            ]
        )
        result = await session.run_turn("go", model=model)
        assert result.status == "completed"
        out = {k: strip_wall_time(v) for k, v in result.outputs().items()}
        assert out["hang"][1]["text"] == (
            "tool call error: tool call failed for `notes/wait_seconds`\n\nCaused by:\n"
            "    timed out awaiting tools/call after 1s"
        )
        for call_id, tool in (("crash", "crash"), ("after", "note_stats")):
            assert out[call_id][1]["text"].endswith(f"`notes/{tool}`\n\nCaused by:\n    Transport closed")
        assert servers.status()["notes"] == "crashed" and "restart it" in servers["notes"].error
        await servers.restart("notes")
        assert servers.status()["notes"] == "ready"
        again = await session.run_turn(
            "again", model=cx.ScriptedModel([[fc("note_stats", {}, "x")], [cx.assistant_message("ok")]])
        )
        assert strip_wall_time(again.outputs()["x"]) == 'Wall time: T seconds\nOutput:\n{"notes":0,"characters":0}'
    finally:
        await servers.stop()


async def test_list_changed_swaps_the_catalog_from_the_next_step():
    session, servers = session_with({"notes": notes_config()})
    async with servers:

        async def refreshed(request):
            await servers["notes"]._refresh  # the list_changed refresh has replaced the source
            return [fc("note_stats", {}, "n")]

        model = cx.ScriptedModel(
            [
                [fc("enable_shout", {}, "e")],
                refreshed,
                [fc("shout", {"text": "hi"}, "s")],
                [cx.assistant_message("ok")],
            ],
            record_requests=True,
        )
        before = session.registry.generation
        result = await session.run_turn("go", model=model)
        assert result.status == "completed", result.error
        assert result.outputs()["s"].endswith('{"result":"HI"}')
        assert session.registry.generation == before + 1  # one atomic replace_source
        assert [r.tool_generation for r in model.requests][2:] == [before + 1, before + 1]
        assert "mcp__notes.shout" in session.registry.names()


async def test_interrupt_cancels_the_mcp_request():
    session, servers = session_with({"notes": notes_config()})
    async with servers:
        started = asyncio.Event()
        session.on_lifecycle(lambda record: started.set())
        handle = session.start_turn("go", model=cx.ScriptedModel([[fc("wait_seconds", {"seconds": 60}, "w")]]))
        await started.wait()
        handle.interrupt()
        result = await handle
        assert result.status == "interrupted"
        assert result.outputs()["w"].startswith("aborted by user after")
        count = await servers["notes"].call_tool("cancelled_waits", {})
        assert count.structured_content == {"result": 1}  # the server saw notifications/cancelled


async def test_streamable_http_server():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # a server for the whole test, outside the loop's child watcher; Popen itself does not wait
    proc = subprocess.Popen(  # noqa: ASYNC220
        [sys.executable, NOTES, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stderr:  # handshake: uvicorn reports when it listens
            if "Uvicorn running" in line or "Application startup complete" in line:
                break
        session, servers = session_with(
            {"web": {"url": f"http://127.0.0.1:{port}/mcp", "http_headers": {"X-T": "1"}, "startup_timeout_sec": 30}}
        )
        async with servers:
            assert servers.status() == {"web": "ready"}, servers
            model = cx.ScriptedModel(
                [
                    [fc("save_note", {"title": "t", "body": "b"}, "h", namespace="mcp__web")],
                    [cx.assistant_message("ok")],
                ]
            )
            result = await session.run_turn("go", model=model)
        assert (
            strip_wall_time(result.outputs()["h"])
            == 'Wall time: T seconds\nOutput:\n{"result":"saved \'t\' (1 characters)"}'
        )
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()


def test_code_mode_sees_mcp_tools_as_nested_tools():
    from codex_nb.code_mode.planning import select_nested
    from codex_nb.config import CodeModeSettings
    from codex_nb.mcp.tool import McpTool
    from mcp.types import Tool as RawTool

    class Conn:
        config = parse_mcp_server("notes", {"command": "x"})
        instructions = "Notes."

    registry = ToolRegistry()
    raw = RawTool(name="save_note", description="Save.", input_schema={"type": "object", "properties": {}})
    registry.replace_source("mcp:notes", [McpTool(Conn(), raw, exposure=cx.tools.ToolExposure.Deferred)])
    nested = select_nested(list(registry.snapshot().entries.values()), CodeModeSettings())
    assert [d.identifier for d in nested.values()] == ["mcp__notes__save_note"]


async def test_resource_helpers_match_codex():
    session, servers = session_with({"notes": notes_config()})
    async with servers:
        specs = {s["name"]: s for s in session.planner.plan().specs if s.get("type") == "function"}
        for codex in FIXTURE["resource_tools"]:
            assert specs[codex["name"]] == codex
        call = lambda name, args, cid: cx.function_call(name, args, call_id=cid)  # noqa: E731
        model = cx.ScriptedModel(
            [
                [
                    call("list_mcp_resources", {}, "r1"),
                    call("list_mcp_resources", {"server": "notes"}, "r2"),
                    call("list_mcp_resource_templates", {}, "r3"),
                    call("read_mcp_resource", {"server": "notes", "uri": "notes://readme"}, "r4"),
                    call("read_mcp_resource", {"server": "nosuch", "uri": "x://y"}, "r5"),
                    call("read_mcp_resource", {"server": "notes", "uri": "notes://missing"}, "r6"),
                    call("list_mcp_resources", {"server": "nosuch"}, "r7"),
                ],
                [cx.assistant_message("ok")],
            ]
        )
        result = await session.run_turn("resources", model=model)
    codex = {i["call_id"]: i["output"] for i in FIXTURE["resource_outputs"]}
    assert result.outputs() == codex


async def test_code_mode_calls_an_mcp_tool_through_v8():
    from codex_nb.config import CodeModeSettings

    session = cx.Session(
        cx.Config(code_mode=CodeModeSettings(enabled=True, only=True), extra={"mcp_servers": {"notes": notes_config()}})
    )
    servers = McpServers.attach(session)
    try:
        async with servers:
            source = (
                "const saved = await tools.mcp__notes__save_note({title: 'js', body: 'from V8'});\n"
                "const read = await tools.mcp__notes__read_note({title: 'js'});\n"
                "text(JSON.stringify(saved.structuredContent)); text(read.structuredContent.result)"
            )
            result = await session.call_tool("exec", source, call_id="e1")
        parts = [p.get("text") for p in result.item["output"]]
        assert parts[1:] == ['{"result":"saved \'js\' (7 characters)"}', "from V8"], parts
    finally:
        for finalizer in session.planner.finalizers:
            finalizer.close()


async def test_hooks_see_the_flat_mcp_name_and_can_block_a_call():
    from codex_nb.hooks import Block

    session, servers = session_with({"notes": notes_config()})
    seen = []

    @session.pre_tool_use(matcher="mcp__notes__save_note")
    def guard(hook_input):
        seen.append((hook_input.tool_name, hook_input.tool_input))
        return Block(reason="notes are read-only today")

    async with servers:
        model = cx.ScriptedModel(
            [
                [fc("save_note", {"title": "a", "body": "b"}, "s"), fc("note_stats", {}, "n")],
                [cx.assistant_message("ok")],
            ]
        )
        result = await session.run_turn("go", model=model)
    assert seen == [("mcp__notes__save_note", {"title": "a", "body": "b"})]
    assert "notes are read-only today" in json.dumps(result.outputs()["s"])
    assert strip_wall_time(result.outputs()["n"]).endswith('{"notes":0,"characters":0}')  # the server never saw "s"
