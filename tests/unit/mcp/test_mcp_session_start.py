"""A session starts the ``[mcp_servers]`` its config names, as Codex starts a thread's: in the
background at session start, each bounded by ``startup_timeout_sec``, reported as
``mcp_startup_update`` / ``mcp_startup_complete`` events, ended on close. A server that cannot
start (a missing command, a table that does not parse, a server that never answers) is
``failed`` with the reason; the session carries on. Real servers: tests/mcp_servers/notes_server.py."""

from __future__ import annotations

import json
import sys

import pytest

import codex_nb as cx
from codex_nb.errors import ConfigError
from codex_nb.mcp.manager import McpServers
from codex_nb.testing import RecordingSubscriber
from helpers.paths import TESTS

NOTES = str(TESTS / "mcp_servers" / "notes_server.py")


def config_toml(**servers: str) -> cx.Config:
    tables = "\n".join(f"[mcp_servers.{name}]\n{body}\n" for name, body in servers.items())
    return cx.Config.from_toml(tables)


NOTES_TABLE = f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(NOTES)}]\nstartup_timeout_sec = 60"


async def test_session_starts_its_servers_and_reports_each_one() -> None:
    config = config_toml(notes=NOTES_TABLE, missing='command = "/no/such/mcp-server"', broken="args = []")
    session = cx.Session(config)
    recorder = RecordingSubscriber(session)
    assert session.mcp_servers is not None and not session.mcp_servers.begun  # started in the background
    await session.mcp_ready()
    status = session.mcp_servers.status()
    assert status == {"notes": "ready", "missing": "failed", "broken": "failed"}
    errors = session.mcp_servers.errors()
    assert "/no/such/mcp-server" in errors["missing"] and "exactly one of `command`" in errors["broken"]
    assert any(n.startswith("mcp__notes") for n in session.registry.names())
    updates = [e.msg.model_dump(mode="json") for e in recorder.of_type("mcp_startup_update")]
    assert {"type": "mcp_startup_update", "server": "notes", "status": {"state": "ready"}} in updates
    assert [u["server"] for u in updates if u["status"]["state"] == "failed"] == ["broken", "missing"]
    (complete,) = [e.msg.model_dump(mode="json") for e in recorder.of_type("mcp_startup_complete")]
    assert complete["ready"] == ["notes"] and [f["server"] for f in complete["failed"]] == ["missing", "broken"]
    connection = session.mcp_servers["notes"]
    await session.aclose()
    assert connection.status == "stopped"
    recorder.close()


async def test_a_turn_waits_for_startup_so_its_first_step_sees_the_servers() -> None:
    session = cx.Session(config_toml(notes=NOTES_TABLE))
    model = cx.ScriptedModel([[cx.assistant_message("hi")]], record_requests=True)
    try:
        await session.run_turn("hello", model=model)  # started at once: the startup is still running
        names = [t.get("name") or t.get("type") for t in model.requests[0].tools]
        assert "tool_search" in names  # the notes server's tools are deferred behind tool_search
    finally:
        await session.aclose()


async def test_startup_timeout_makes_a_silent_server_failed_not_the_session() -> None:
    silent = (
        f'command = {json.dumps(sys.executable)}\nargs = ["-c", "import time; time.sleep(60)"]\nstartup_timeout_sec = 1'
    )
    session = cx.Session(config_toml(silent=silent))
    try:
        await session.mcp_ready()
        assert session.mcp_servers is not None
        assert session.mcp_servers.status() == {"silent": "failed"}
        assert "1 seconds" in session.mcp_servers.errors()["silent"]
        result = await session.run_turn("still works", model=cx.ScriptedModel([[cx.assistant_message("ok")]]))
        assert result.status == "completed"
    finally:
        await session.aclose()


async def test_attach_returns_the_sessions_servers_or_replaces_them_before_startup() -> None:
    session = cx.Session(config_toml(notes=NOTES_TABLE))
    own = session.mcp_servers
    assert McpServers.attach(session) is own
    replaced = McpServers.attach(session, tool_search=False)  # same cell: the startup has not begun
    assert session.mcp_servers is replaced and replaced is not own and own is not None and not own.begun
    try:
        await replaced.start()
        assert replaced.status() == {"notes": "ready"}
        with pytest.raises(ConfigError, match="mcp_servers=False"):
            McpServers.attach(session, tool_search=True)
    finally:
        await session.aclose()
    assert replaced["notes"].status == "stopped"


async def test_mcp_servers_false_leaves_them_to_attach() -> None:
    session = cx.Session(config_toml(notes=NOTES_TABLE), mcp_servers=False)
    assert session.mcp_servers is None
    servers = McpServers.attach(session)
    try:
        await servers.start()
        assert servers.status() == {"notes": "ready"}
    finally:
        await servers.stop()
        await session.aclose()
