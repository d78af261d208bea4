"""``python -m codex_nb.agent_server``: codex_nb's runtime as an ACP agent, driven by the official
SDK's client and by codex_nb's own ACP client (a real subprocess each time)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import acp
from acp.schema import AllowedOutcome, RequestPermissionResponse

import codex_nb as cx

PLAN = {"plan": [{"step": "Look around", "status": "in_progress"}, {"step": "Report", "status": "pending"}]}
DONE = {"plan": [{"step": "Look around", "status": "completed"}, {"step": "Report", "status": "completed"}]}
CLOCK_TOML = (
    "[tools.update_plan]\nenabled = true\n[features.current_time_reminder]\nenabled = true\nsleep_tool = true\n"
)


def served(tmp_path: Path, responses: list[Any], config: str | None = None) -> list[str]:
    script = tmp_path / "responses.json"
    script.write_text(json.dumps(responses))
    args = ["-m", "codex_nb.agent_server", "--script", str(script)]
    if config is not None:
        (tmp_path / "config.toml").write_text(config)
        args += ["--config", str(tmp_path / "config.toml")]
    return args


class RecordingClient:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.tool_started = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))
        if update.session_update == "tool_call":
            self.tool_started.set()

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **_: Any
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=AllowedOutcome(option_id=options[0].option_id, outcome="selected"))


async def test_the_sdk_client_sees_plans_tool_calls_and_the_message(tmp_path: Path) -> None:
    args = served(
        tmp_path,
        [
            [cx.function_call("update_plan", PLAN, call_id="p1")],
            [cx.function_call("update_plan", DONE, call_id="p2")],
            [cx.assistant_message("Reported.")],
        ],
    )
    client = RecordingClient()
    async with acp.spawn_agent_process(client, sys.executable, *args) as (conn, _process):
        init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        assert init.agent_info.name == "codex_nb"
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("Report")])
    assert response.stop_reason == "end_turn"
    kinds = [u["sessionUpdate"] for u in client.updates]
    assert kinds == [
        "tool_call",
        "plan",
        "tool_call_update",
        "tool_call",
        "plan",
        "tool_call_update",
        "agent_message_chunk",
    ]
    plans = [u["entries"] for u in client.updates if u["sessionUpdate"] == "plan"]
    assert plans[0] == [
        {"content": "Look around", "priority": "medium", "status": "in_progress"},
        {"content": "Report", "priority": "medium", "status": "pending"},
    ]
    assert [e["status"] for e in plans[1]] == ["completed", "completed"]
    assert client.updates[0]["toolCallId"] == "p1" and client.updates[0]["title"] == "update_plan"
    assert client.updates[2]["status"] == "completed"
    assert client.updates[-1]["content"] == {"text": "Reported.", "type": "text"}


async def test_cancel_from_the_sdk_client_interrupts_the_turn(tmp_path: Path) -> None:
    sleep = cx.function_call("sleep", {"duration_ms": 60_000}, call_id="s1", namespace="clock")
    args = served(tmp_path, [[sleep]], config=CLOCK_TOML)
    client = RecordingClient()
    async with acp.spawn_agent_process(client, sys.executable, *args) as (conn, _process):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[acp.text_block("wait")]))
        await client.tool_started.wait()
        await conn.cancel(session_id=session.session_id)
        response = await prompt
    assert response.stop_reason == "cancelled"
    assert client.updates[-1] == {"sessionUpdate": "tool_call_update", "toolCallId": "s1", "status": "failed"}


async def test_codex_nb_client_and_agent_round_trip(tmp_path: Path) -> None:
    args = served(tmp_path, [[cx.function_call("update_plan", DONE)], [cx.assistant_message("Both ends are ours.")]])
    async with cx.AcpAgent(sys.executable, args) as agent:
        session = await agent.new_session(tmp_path)
        result = await session.prompt("hello")
    assert (result.status, result.last_agent_message) == ("completed", "Both ends are ours.")
    assert session.latest_plan().msg.model_dump(mode="json") == {"type": "plan_update", "explanation": None, **DONE}
