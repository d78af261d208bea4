"""MCP servers that send what they should not: bad tools, clashing names, notification storms, endless
listings. Against tests/mcp_servers/hostile_server.py, a real subprocess speaking raw JSON-RPC."""

from __future__ import annotations

import asyncio
import json
import re
import sys

import codex_nb as cx
from codex_nb.mcp.manager import McpServers
from helpers.paths import MCP_SERVERS

HOSTILE = str(MCP_SERVERS / "hostile_server.py")


def hostile(*args: str) -> dict:
    return {"command": sys.executable, "args": [HOSTILE, *args], "startup_timeout_sec": 60, "tool_timeout_sec": 60}


def session_with(servers: dict):
    session = cx.Session(cx.Config(extra={"mcp_servers": servers}))
    warnings: list[str] = []
    session.subscribe(lambda e: warnings.append(e.msg.message) if e.msg.type == "warning" else None)
    return session, McpServers.attach(session), warnings


def mcp_names(session) -> dict[str, str]:
    """Flat model name -> raw tool name of every registered MCP tool."""
    out = {}
    for entry in session.registry.snapshot().entries.values():
        tool = entry.tool
        if hasattr(tool, "raw_name"):
            out[f"{tool.tool_name.namespace}__{tool.name}"] = tool.raw_name
    return out


async def test_one_bad_tool_is_skipped_with_a_warning_and_the_rest_work():
    session, servers, warnings = session_with({"h": hostile("--bad-tools")})
    async with servers:  # used to raise (RecursionError, AttributeError) out of start()
        assert servers.status() == {"h": "ready"}
        # Codex 0.169 keeps $refs (a recursive or dangling one included: Code Mode's renderer
        # bounds it), takes nesting up to serde_json's 128 levels, and leaves out a tool whose
        # schema it cannot read (tests/conformance scenarios schema_mcp_*).
        expected = {
            "bad_anyof": "anyOf[0] must be a JSON object, got int",
            "anyof_not_list": "anyOf must be a list, got str",
            "bad_ref": "$ref must be a string, got int",
            "twice": "lists this tool name more than once; the first is used",
        }
        for tool, reason in expected.items():
            hits = [w for w in warnings if w.startswith(f"MCP server `h`: skipped tool {tool!r}: ")]
            assert len(hits) == 1 and reason in hits[0], (tool, warnings)
        assert any("description of tool 'wordy' has 200,000 characters; only the first 65,536" in w for w in warnings)
        assert any("title of tool 'titled' has 100,000 characters; only the first 65,536" in w for w in warnings)
        assert len(warnings) == len(expected) + 2, warnings

        names = mcp_names(session)
        assert set(names.values()) == {
            "echo",
            "storm",
            "stats",
            "twice",
            "a.b",
            "a_b",
            "x" * 200,
            "",
            "wordy",
            "titled",
            "recursive_ref",
            "dangling_ref",
            "deep",
            "laughs",
        }
        for flat in names:
            assert re.fullmatch(r"[A-Za-z0-9_]{1,128}", flat), flat
        assert names["mcp__h___"] == ""  # an empty name is Codex's "_"
        assert len([n for n, raw in names.items() if raw in ("a.b", "a_b")]) == 2  # both kept, hashed apart
        twice = session.registry.get("mcp__h.twice").tool
        assert twice.description == "First of a name listed twice."
        wordy = session.registry.get("mcp__h.wordy").tool
        assert len(wordy.description) == 65_536 and wordy.description.endswith("\n[truncated]")
        assert len(session.registry.get("mcp__h.titled").tool.title) == 65_536

        model = cx.ScriptedModel(
            [
                [cx.function_call("echo", {"text": "still works"}, namespace="mcp__h", call_id="e")],
                [cx.assistant_message("ok")],
            ]
        )
        result = await session.run_turn("go", model=model)
        assert result.status == "completed", result.error
        assert "still works" in json.dumps(result.outputs()["e"])

        reported = len(warnings)
        await servers["h"].call_tool("storm", {"count": 1})  # the same listing again, from a refresh
        await servers["h"].refresh_idle()
        assert len(warnings) == reported  # the same bad tools are not reported twice


async def test_servers_whose_names_sanitise_alike_both_register():
    session, servers, warnings = session_with({"a.b": hostile(), "a_b": hostile()})
    async with servers:  # used to raise ToolCollisionError out of start()
        assert servers.status() == {"a.b": "ready", "a_b": "ready"}
        namespaces = {
            entry.tool.tool_name.namespace
            for entry in session.registry.snapshot().entries.values()
            if hasattr(entry.tool, "raw_name")
        }
        assert len(namespaces) == 2 and all(re.fullmatch(r"mcp__a_b_[0-9a-f]{12}", ns) for ns in namespaces)
        assert warnings == []


async def test_a_tool_whose_name_a_user_tool_owns_is_skipped():
    session, servers, warnings = session_with({"h": hostile()})

    def echo(text: str) -> str:
        """Mine."""
        return text

    session.registry.register(echo, namespace="mcp__h")
    async with servers:  # used to raise ToolCollisionError out of start()
        assert servers.status() == {"h": "ready"}
        assert warnings == [
            "MCP server `h`: skipped tool 'echo': its name 'mcp__h.echo' is already registered by 'user'"
        ]
        assert session.registry.get("mcp__h.echo").source == "user"
        assert session.registry.get("mcp__h.stats").source == "mcp:h"


async def test_list_changed_storm_is_coalesced():
    session, servers, warnings = session_with({"h": hostile()})
    connection = servers["h"]
    count = 2000
    seen = {"notes": 0, "in_flight": 0, "max_in_flight": 0, "lists": 0, "live_at_end": None}
    all_seen = asyncio.Event()
    list_tools, on_message = connection._list_tools, connection._on_message

    async def counted_list(session_):
        seen["in_flight"] += 1
        seen["lists"] += 1
        seen["max_in_flight"] = max(seen["max_in_flight"], seen["in_flight"])
        try:
            return await list_tools(session_)
        finally:
            seen["in_flight"] -= 1

    async def counted_message(message):
        await on_message(message)
        if getattr(getattr(message, "root", message), "method", None) == "notifications/tools/list_changed":
            seen["notes"] += 1
            if seen["notes"] == count:
                seen["live_at_end"] = len(
                    [t for t in asyncio.all_tasks() if "refresh" in getattr(t.get_coro(), "__qualname__", "")]
                )
                all_seen.set()

    connection._list_tools, connection._on_message = counted_list, counted_message
    async with servers:
        before = len(warnings)
        await connection.call_tool("storm", {"count": count})
        await asyncio.wait_for(all_seen.wait(), 120)
        assert seen["live_at_end"] <= 1, seen  # one refresh task, not one per notification
        assert seen["max_in_flight"] == 1, seen
        await connection.refresh_idle()
        answered = await connection.call_tool("stats", {})
        assert seen["lists"] <= 3, seen  # the first listing, the one in flight, the one queued
        assert int(answered.content[0].text) == seen["lists"]  # what the server itself counted
        assert len(warnings) == before
    assert not [t for t in asyncio.all_tasks() if "refresh" in getattr(t.get_coro(), "__qualname__", "")]


async def test_a_listing_past_codexs_bounds_fails_the_server_with_a_reason():
    session, servers, warnings = session_with(
        {"many": hostile("--many", "2100"), "endless": hostile("--endless-pages"), "fine": hostile("--many", "2045")}
    )
    async with servers:  # used to take all 2,103 tools, and to loop on the endless listing until the timeout
        assert servers.status() == {"many": "failed", "endless": "failed", "fine": "ready"}
        assert len(servers["fine"].tools) == 2048
        assert servers["many"].error.startswith(
            "MCP client for `many` failed to start: MCP server `many` lists more than 2,048 tools (Codex's limit)"
        )
        assert servers["endless"].error.startswith(
            "MCP client for `endless` failed to start: MCP server `endless`: tools/list takes more than 100 pages"
        )
        assert len(warnings) == 2


def test_a_huge_namespace_description_is_cut_like_codex():
    from codex_nb.mcp.naming import namespace_description

    assert namespace_description("  Use me.\n") == "Use me."
    cut = namespace_description("é" * 300_000)  # 600,000 bytes
    assert len(cut.encode()) == 512 * 1024 and cut == "é" * (256 * 1024)
    odd = namespace_description("x" + "é" * 300_000)  # the limit falls inside a character
    assert len(odd.encode()) == 512 * 1024 - 1 and json.dumps(odd)
