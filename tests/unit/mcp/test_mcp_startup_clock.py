"""What ``startup_timeout_sec`` counts: the server's own startup, one step at a time, as in Codex.

CI once failed conformance's first MCP scenario on a loaded machine: the ``mcp`` SDK's first
import (seconds under load) ran inside the server's startup clock, the server was failed, and
its tools were missing from the tool list. The slow import is reproduced here with an import
hook in a fresh interpreter (the test process has the SDK imported already)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codex_nb.mcp.config import parse_mcp_server
from codex_nb.mcp.connection import McpConnection, startup_timeout_message
from helpers.paths import MCP_SERVERS, ROOT

pytestmark = pytest.mark.slow

SCHEMA_SERVER = str(MCP_SERVERS / "schema_server.py")
PROBE = [{"name": "probe", "description": "Probe tool.", "inputSchema": {"type": "object", "properties": {}}}]

# Runs in a fresh interpreter: the SDK's first import is made to take IMPORT_SECONDS, longer than
# the startup timeout, as it did on the loaded CI machine.
SLOW_FIRST_IMPORT = r"""
import asyncio, importlib.abc, json, sys, time

IMPORT_SECONDS, config = float(sys.argv[1]), json.loads(sys.argv[2])


class SlowSdk(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "mcp.client.session":
            time.sleep(IMPORT_SECONDS)  # the machine's load, not a wait of the test
        return None


sys.meta_path.insert(0, SlowSdk())
from codex_nb.mcp.config import parse_mcp_server
from codex_nb.mcp.connection import McpConnection

assert "mcp.client.session" not in sys.modules, "the SDK was imported before the server started"


async def main():
    conn = McpConnection(parse_mcp_server("sch", config))
    await conn.start()
    print(json.dumps({"status": conn.status, "error": conn.error, "tools": [t.name for t in conn.tools]}))
    await conn.stop()


asyncio.run(main())
"""


def _config(tmp_path: Path, timeout: float, *extra: str) -> dict:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(PROBE), encoding="utf-8")
    return {"command": sys.executable, "args": [SCHEMA_SERVER, str(tools), *extra], "startup_timeout_sec": timeout}


def test_the_sdks_first_import_is_not_counted_against_the_servers_startup(tmp_path: Path) -> None:
    config = _config(tmp_path, 2)
    out = subprocess.run(
        [sys.executable, "-c", SLOW_FIRST_IMPORT, "3", json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == {"status": "ready", "error": None, "tools": ["probe"]}


async def test_the_startup_timeout_bounds_each_step_not_their_sum(tmp_path: Path) -> None:
    # initialize and tools/list take 1.5 s each: together longer than the 3 s, each well within it
    conn = McpConnection(parse_mcp_server("slow", _config(tmp_path, 3, "--delay", "1.5")))
    try:
        await conn.start()
        assert (conn.status, conn.error, [t.name for t in conn.tools]) == ("ready", None, ["probe"])
    finally:
        await conn.stop()


async def test_a_step_past_the_timeout_fails_the_server_in_codexs_words(tmp_path: Path) -> None:
    conn = McpConnection(parse_mcp_server("slow", _config(tmp_path, 0.5, "--delay", "1")))
    try:
        await conn.start()
        assert conn.status == "failed"
        assert conn.error is not None and conn.error.startswith(startup_timeout_message("slow", 0.5))
        assert "Add or adjust `startup_timeout_sec` in your config.toml" in conn.error
    finally:
        await conn.stop()
