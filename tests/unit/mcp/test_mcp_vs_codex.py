"""The same MCP servers attached to the real Codex 0.169 and to codex_nb: tool_search results and
MCP call outputs compared live (the pinned binary, `codex exec` against a local Responses server)."""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.mcp.manager import McpServers
from helpers.codex_exec import codex_exec
from codex_nb.testing import ResponsesServer
from helpers.paths import TESTS

HERE = TESTS
NOTES = str(HERE / "mcp_servers" / "notes_server.py")
HOSTILE = str(HERE / "mcp_servers" / "hostile_server.py")
QUERY = "note notes square image save read count"
NAMES_QUERY = "long save tags dup entry dash dot underscore tool"
CALLS = [
    ("save_note", {"title": "a", "body": "hello"}),
    ("red_square", {}),
    ("note_stats", {}),
    ("read_note", {"title": "zz"}),
]


def servers_table() -> dict:
    return {
        "notes": {
            "command": sys.executable,
            "args": [NOTES],
            "default_tools_approval_mode": "approve",
            "startup_timeout_sec": 60,
        }
    }


def mask(value):
    return json.loads(re.sub(r"Wall time: [0-9.]+ seconds", "Wall time: T seconds", json.dumps(value)))


LONG_SERVER = "s" * 120


def names_table() -> dict:
    """Servers whose tool names Codex must shorten, de-duplicate and sanitise (hostile_server.py --names);
    the second has a 120-character name (its namespace is cut) and 575 KB of instructions."""

    def server(*extra: str) -> dict:
        return {
            "command": sys.executable,
            "args": [HOSTILE, "--names", *extra],
            "default_tools_approval_mode": "approve",
            "startup_timeout_sec": 60,
        }

    return {"names": server(), LONG_SERVER: server("--long-instructions", "25000")}


def codex_side(
    table: dict | None = None,
    query: str = QUERY,
    calls: list | None = None,
    namespace: str = "mcp__notes",
    announce: tuple[str, ...] = (),
) -> dict:
    """Run Codex until its MCP servers are announced, then search and call; return what it sent back."""
    table = servers_table() if table is None else table
    calls = CALLS if calls is None else calls

    def announced(body) -> bool:
        developer = json.dumps([i for i in body["input"] if i.get("role") == "developer"])
        return all(ns in developer for ns in (namespace, *announce))

    state = {"phase": "wait"}

    def step(body):
        if state["phase"] == "wait" and not announced(body):  # Codex starts MCP servers in the background
            return [cx.function_call("get_context_remaining", {}, call_id=f"w{len(server.requests)}")]
        if state["phase"] == "wait":
            state["phase"] = "calls"
            return [cx.tool_search_call(query, limit=50, call_id="search")] + [
                cx.function_call(name, args, namespace=namespace, call_id=name) for name, args in calls
            ]
        state["phase"] = "done"
        return [cx.assistant_message("done")]

    with tempfile.TemporaryDirectory() as tmp, ResponsesServer([step] * 40, allow_leftover=True) as server:
        home = server.write_codex_home(
            Path(tmp) / "home", model="gpt-5.5", mcp_servers=table, features={"token_budget": True}
        )
        done = codex_exec(home, cwd=Path(tmp))
        assert state["phase"] == "done", (done.stdout + done.stderr)[-2000:]
        last = server.requests[-1]["input"]
    return {i["call_id"]: i for i in last if i.get("type") in ("tool_search_output", "function_call_output")}


async def codex_nb_side(
    table: dict | None = None, query: str = QUERY, calls: list | None = None, namespace: str = "mcp__notes"
) -> dict:
    table = servers_table() if table is None else table
    calls = CALLS if calls is None else calls
    session = cx.Session(cx.Config(extra={"mcp_servers": table}))
    async with McpServers.attach(session):
        model = cx.ScriptedModel(
            [
                [cx.tool_search_call(query, limit=50, call_id="search")]
                + [cx.function_call(name, args, namespace=namespace, call_id=name) for name, args in calls],
                [cx.assistant_message("done")],
            ]
        )
        result = await session.run_turn("go", model=model)
    return {i["call_id"]: i for i in result.items if i.get("type") in ("tool_search_output", "function_call_output")}


def by_namespace(output: dict) -> dict:
    return {
        ns["name"]: (ns["description"], sorted(json.dumps(t, sort_keys=True) for t in ns["tools"]))
        for ns in output["tools"]
        if ns["name"].startswith("mcp__")
    }


@pytest.mark.requires_codex
async def test_same_server_same_tools_and_outputs_as_codex():
    theirs = codex_side()
    ours = await codex_nb_side()
    codex_tools = by_namespace(theirs["search"])
    assert len(codex_tools["mcp__notes"][1]) >= 4  # the search really found the server's tools
    assert by_namespace(ours["search"]) == codex_tools
    for name, _ in CALLS:
        assert "Wall time: " in json.dumps(theirs[name]["output"])  # a real MCP result, not an error
        assert mask(ours[name]["output"]) == mask(theirs[name]["output"]), name


@pytest.mark.requires_codex
async def test_shortened_and_deduplicated_names_match_codex():
    """Names over 128 bytes, a name listed twice, names that sanitise alike, a namespace too long for
    any name, huge instructions: the same model-visible names, first-listed duplicate and namespace
    description as the binary."""
    table = names_table()
    calls = [("echo", {"text": "hi"})]
    theirs = codex_side(table, NAMES_QUERY, calls, namespace="mcp__names", announce=("mcp__sssss",))
    ours = await codex_nb_side(table, NAMES_QUERY, calls, namespace="mcp__names")
    codex_tools = by_namespace(theirs["search"])
    assert len(codex_tools) == 2 and all(len(tools) >= 10 for _, tools in codex_tools.values()), codex_tools
    assert by_namespace(ours["search"]) == codex_tools
    assert mask(ours["echo"]["output"]) == mask(theirs["echo"]["output"])
    # The binary fits namespace + "__" + name in 128 bytes, not each part in the 64 characters of
    # ^[a-zA-Z0-9_-]{1,64}$: a 116-character tool name and a 113-character namespace reach its model
    # (docs/compatibility.md). Pinned, so a Codex bump that changes it shows here.
    lengths = {ns["name"]: max(len(t["name"]) for t in ns["tools"]) for ns in theirs["search"]["tools"]}
    assert lengths["mcp__names"] == 116 and max(len(ns) for ns in lengths) == 113, lengths
