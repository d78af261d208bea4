"""MCP tools as Codex 0.169 reads them, against a real stdio server that sends its listing raw
(tests/mcp_servers/schema_server.py): schemas the mcp SDK would refuse, one bad tool among
good ones, and call results the SDK would check against ``outputSchema``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import codex_nb as cx
from codex_nb.mcp.manager import McpServers
from helpers.paths import MCP_SERVERS

SERVER = str(MCP_SERVERS / "schema_server.py")
GOOD = {"name": "good", "description": "Good.", "inputSchema": {"type": "object", "properties": {}}}
LISTING = [
    GOOD,
    {"name": "untyped", "description": "No type.", "inputSchema": {"properties": {"x": {"type": "string"}}}},
    {"name": "arr", "description": "Array root.", "inputSchema": {"type": "array", "items": {"type": "string"}}},
    {
        "name": "out",
        "description": "Output.",
        "inputSchema": {},
        "outputSchema": {"properties": {"r": {"type": "string"}}, "required": ["r"]},
    },
    {"name": "no_schema", "description": "No schema."},
    {"name": "schema_true", "description": "True.", "inputSchema": True},
    {"name": "desc_number", "description": 5, "inputSchema": {"type": "object"}},
    {"name": "nul", "description": "Null.", "inputSchema": {"type": "null"}},
    {"name": "req", "description": "Required.", "inputSchema": {"type": "object", "required": "x"}},
]


def run_with_listing(tmp_path: Path, listing: list, body) -> tuple[list[str], object]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(listing), encoding="utf-8")
    config = {
        "command": sys.executable,
        "args": [SERVER, str(tools)],
        "startup_timeout_sec": 30,
        "tool_timeout_sec": 30,
    }
    session = cx.Session(cx.Config(extra={"mcp_servers": {"sch": config}}))
    warnings: list[str] = []
    session.subscribe(lambda e: warnings.append(e.msg.message) if e.msg.type == "warning" else None)
    servers = McpServers.attach(session, tool_search=False)

    async def main():
        await servers.start()
        try:
            return await body(session, servers)
        finally:
            await servers.stop()

    return warnings, asyncio.run(main())


def test_one_bad_tool_does_not_take_the_others(tmp_path):
    async def body(session, servers):
        return servers["sch"].status, sorted(n for n in session.registry.names() if n.startswith("mcp__sch."))

    warnings, (status, names) = run_with_listing(tmp_path, LISTING, body)
    assert status == "ready"
    assert names == ["mcp__sch.arr", "mcp__sch.good", "mcp__sch.out", "mcp__sch.untyped"]
    skipped = {
        name: text
        for name in ("no_schema", "schema_true", "desc_number", "nul", "req")
        for text in warnings
        if f"'{name}'" in text
    }
    assert set(skipped) == {"no_schema", "schema_true", "desc_number", "nul", "req"}
    assert "inputSchema must be a JSON object, got nothing" in skipped["no_schema"]
    assert "inputSchema must be a JSON object, got bool" in skipped["schema_true"]
    assert "description" in skipped["desc_number"]
    assert "singleton null" in skipped["nul"]
    assert "required must be a list" in skipped["req"]
    assert all(
        t.startswith("MCP server `sch`: skipped tool ") and t.endswith("its other tools are available")
        for t in skipped.values()
    )


def test_parameters_as_codex_sends_them(tmp_path):
    async def body(session, servers):
        return {n: session.registry.get(n).tool.spec()["parameters"] for n in ("mcp__sch.untyped", "mcp__sch.arr")}

    _, params = run_with_listing(tmp_path, LISTING[:3], body)
    assert params == {
        "mcp__sch.untyped": {"type": "object", "properties": {"x": {"type": "string"}}},
        "mcp__sch.arr": {"type": "array", "items": {"type": "string"}, "properties": {}},
    }


def test_call_result_not_checked_against_output_schema(tmp_path):
    async def body(session, servers):
        return await session.call_tool("out", {}, namespace="mcp__sch")

    _, result = run_with_listing(tmp_path, LISTING[:4], body)
    assert "ok" in str(result) and "output schema" not in str(result)
