"""The same MCP servers attached to the real Codex 0.169 and to codex_nb: tool_search results and
MCP call outputs compared live (the pinned binary, `codex exec` against a local Responses server)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import codex_nb as cx
from codex_nb.sources.mcp.manager import McpServers
from codex_nb.testing import ResponsesServer, codex_binary

HERE = Path(__file__).parent
NOTES = str(HERE / "mcp_servers" / "notes_server.py")
QUERY = "note notes square image save read count"
CALLS = [("save_note", {"title": "a", "body": "hello"}), ("red_square", {}), ("note_stats", {}),
         ("read_note", {"title": "zz"})]


def servers_table() -> dict:
    return {"notes": {"command": sys.executable, "args": [NOTES], "default_tools_approval_mode": "approve",
                      "startup_timeout_sec": 60}}


def mask(value):
    return json.loads(re.sub(r"Wall time: [0-9.]+ seconds", "Wall time: T seconds", json.dumps(value)))


def codex_side() -> dict:
    """Run Codex until its MCP server is announced, then search and call; return what it sent back."""
    def announced(body) -> bool:
        return "mcp__notes" in json.dumps([i for i in body["input"] if i.get("role") == "developer"])

    state = {"phase": "wait"}

    def step(body):
        if state["phase"] == "wait" and not announced(body):  # Codex starts MCP servers in the background
            return [cx.function_call("get_context_remaining", {}, call_id=f"w{len(server.requests)}")]
        if state["phase"] == "wait":
            state["phase"] = "calls"
            return [cx.tool_search_call(QUERY, limit=50, call_id="search")] + [
                cx.function_call(name, args, namespace="mcp__notes", call_id=name) for name, args in CALLS]
        state["phase"] = "done"
        return [cx.assistant_message("done")]

    with tempfile.TemporaryDirectory() as tmp, ResponsesServer([step] * 40, allow_leftover=True) as server:
        home = server.write_codex_home(Path(tmp) / "home", model="gpt-5.5", mcp_servers=servers_table(),
                                       features={"token_budget": True})
        env = {**os.environ, "CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-test"}
        proc = subprocess.Popen([str(codex_binary()), "exec", "--skip-git-repo-check", "go"], cwd=tmp, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=240)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        assert state["phase"] == "done", out.decode(errors="replace")[-2000:]
        last = server.requests[-1]["input"]
    return {i["call_id"]: i for i in last if i.get("type") in ("tool_search_output", "function_call_output")}


async def codex_nb_side() -> dict:
    session = cx.Session(cx.Config(extra={"mcp_servers": servers_table()}))
    async with McpServers.attach(session):
        model = cx.ScriptedModel([[cx.tool_search_call(QUERY, limit=50, call_id="search")] + [
            cx.function_call(name, args, namespace="mcp__notes", call_id=name) for name, args in CALLS],
            [cx.assistant_message("done")]])
        result = await session.run_turn("go", model=model)
    return {i["call_id"]: i for i in result.items if i.get("type") in ("tool_search_output", "function_call_output")}


def by_namespace(output: dict) -> dict:
    return {ns["name"]: (ns["description"], sorted(json.dumps(t, sort_keys=True) for t in ns["tools"]))
            for ns in output["tools"] if ns["name"].startswith("mcp__")}


async def test_same_server_same_tools_and_outputs_as_codex():
    theirs = codex_side()
    ours = await codex_nb_side()
    codex_tools = by_namespace(theirs["search"])
    assert len(codex_tools["mcp__notes"][1]) >= 4  # the search really found the server's tools
    assert by_namespace(ours["search"]) == codex_tools
    for name, _ in CALLS:
        assert "Wall time: " in json.dumps(theirs[name]["output"])  # a real MCP result, not an error
        assert mask(ours[name]["output"]) == mask(theirs[name]["output"]), name
