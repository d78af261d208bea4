"""The ACP v2 draft's prompt lifecycle against a real subprocess (``tests/acp_agents/v2_agent.py``):
an acknowledging ``session/prompt`` response, the idle ``state_update`` that ends the turn,
message ids, and ``elicitation/complete``."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp import draft_v2
from codex_nb.acp.transport import _check
from helpers.paths import ACP_AGENTS

# real processes: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow

V2_AGENT = ACP_AGENTS / "v2_agent.py"


def v2(*, cancel_grace: float = 5.0, elicitation: bool = False) -> cx.AcpAgent:
    return cx.AcpAgent(sys.executable, [str(V2_AGENT)], cancel_grace=cancel_grace, elicitation=elicitation)


def messages(result: Any) -> list[str]:
    return [e.msg.message for e in result.events if e.msg.type == "agent_message"]


async def test_an_acknowledged_prompt_ends_with_the_idle_state_update() -> None:
    async with v2() as agent:
        session = await agent.new_session()
        result = await session.prompt("hello")
        assert (result.status, result.stop_reason, result.last_agent_message) == (
            "completed",
            "end_turn",
            "echo: hello",
        )
        assert [e.msg.type for e in result.events][-1] == "turn_complete"
        early = await session.prompt("idle-first")  # idle before the acknowledgement still ends the turn
        assert (early.status, early.stop_reason) == ("completed", "end_turn")
        assert agent.malformed == []


async def test_an_error_stop_reason_fails_the_turn() -> None:
    async with v2() as agent:
        session = await agent.new_session()
        result = await session.prompt("error")
        assert (result.status, result.stop_reason) == ("failed", "error")
        assert result.error == "the agent ended the turn with an error: the model is unavailable"


async def test_chunks_are_joined_by_message_id_and_a_whole_message_replaces() -> None:
    async with v2() as agent:
        session = await agent.new_session()
        result = await session.prompt("chunks")
        assert messages(result) == ["Hello", "Bye"]  # m1 across its tool call, then m2
        whole = await session.prompt("whole")
        assert messages(whole) == ["Final"] and whole.last_agent_message == "Final"


async def test_elicitation_complete_closes_the_open_request() -> None:
    async with v2(elicitation=True) as agent:
        session = await agent.new_session()
        asked = asyncio.Event()
        resolved: list[Any] = []
        session.subscribe(lambda e: asked.set() if e.msg.type == "request_user_input" else None)
        session.subscribe(lambda e: resolved.append(e.msg) if e.msg.type == "frontend_request_resolved" else None)
        handle = session.prompt("elicit")
        await asked.wait()
        assert [r.call_id for r in session.frontend_requests.pending] == ["e1"]
        await agent._connection().ext_notification("v2/complete", {})
        result = await asyncio.wait_for(handle, 30)  # a complete that closes nothing leaves it waiting
        assert session.frontend_requests.pending == []
        assert [(r.call_id, r.outcome) for r in resolved] == [("e1", "cancelled")]
        assert result.last_agent_message == 'elicitation: {"action": "accept"}'


async def test_elicitation_is_refused_unless_opted_in() -> None:
    async with v2() as agent:
        session = await agent.new_session()
        result = await asyncio.wait_for(session.prompt("elicit"), 30)
        assert result.last_agent_message is not None and '"code": -32601' in result.last_agent_message, (
            result.last_agent_message
        )
        assert session.frontend_requests.pending == []


async def test_an_agent_that_never_goes_idle_is_ended_by_stop_without_leaks() -> None:
    agent = v2(cancel_grace=0.5)
    async with agent:
        session = await agent.new_session()
        started = asyncio.Event()
        session.subscribe(lambda e: started.set() if e.msg.type == "acp_tool_call" else None)
        handle = session.prompt("never")
        await started.wait()
        assert session.interrupt() is True
        result = await asyncio.wait_for(asyncio.shield(handle.task), 30)
        assert (result.status, handle.hard_aborted) == ("interrupted", True)
        assert session.active_turn is None
        assert (await session.prompt("still there?")).last_agent_message == "echo: still there?"
        pid = agent.pid
    assert pid is not None and agent.process is not None and agent.process.returncode is not None
    assert all(t.done() for t in agent._tasks)
    assert not [t for t in asyncio.all_tasks() if t.get_name().startswith("acp-prompt")]


def test_the_transport_rewrites_only_v2_messages() -> None:
    frames = draft_v2.DraftV2Frames()
    frames.sent({"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {}})
    _, ack = _check('{"jsonrpc": "2.0", "id": 7, "result": {"messageId": "u1"}}', frames)
    assert ack is not None and ack["result"]["_meta"] == {draft_v2.ACK_META: True}
    _, v1 = _check('{"jsonrpc": "2.0", "id": 8, "result": {"stopReason": "end_turn"}}', frames)
    assert v1 == {"jsonrpc": "2.0", "id": 8, "result": {"stopReason": "end_turn"}}
    state = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle"}}}'
    problem, moved = _check(state, frames)
    assert problem is None and moved is not None and moved["method"] == f"_{draft_v2.EXT_METHOD}"
