"""``cx.Session.capabilities`` and ``send_during_turn``: what codex_nb's runtime offers a person,
said in one value (steers, needs a model, Plan mode, questions, tool lifecycle), and the one verb
for a message during a turn steering it into the turn's next model request."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import codex_nb as cx


def test_a_session_says_what_the_runtime_offers() -> None:
    session = cx.Session()
    caps = session.capabilities
    assert isinstance(session, cx.AgentSource) and isinstance(caps, cx.Capabilities)
    assert (caps.runs_turns, caps.mid_turn, caps.needs_model, caps.turn_ids) == (True, "steer", True, "at_start")
    assert caps.modes == ("default", "plan") and caps.options == () and caps.agent_modes == ()
    assert caps.answers and caps.interrupt and caps.usage and caps.tool_lifecycle and caps.tool_plan and caps.hooks
    assert caps.hands_back_unread and not caps.replay and caps.images == "none" and caps.can_send
    with pytest.raises(AttributeError):
        caps.mid_turn = "queue"  # type: ignore[misc]  # frozen: a caller cannot change what a source offers


async def test_send_during_turn_steers_into_the_next_model_request(session: cx.Session, no_leaked_tasks: Any) -> None:
    started, release = asyncio.Event(), asyncio.Event()

    async def slow() -> str:
        started.set()
        await release.wait()
        return "done"

    session.tool(slow)
    model = cx.ScriptedModel(
        [[cx.function_call("slow", {}, call_id="s1")], [cx.assistant_message("seen")]], record_requests=True
    )
    with pytest.raises(cx.TurnError, match="no turn is running"):
        session.send_during_turn("too early")
    handle = session.start_turn("go", model=model)
    await started.wait()
    sent = session.send_during_turn("also this")
    assert (sent.how, sent.turn_id, sent.accepted, sent.next_turn) == ("steered", handle.turn_id, None, None)
    assert handle.unread_input()  # waiting for the turn's next model request
    release.set()
    result = await handle
    assert result.status == "completed" and not handle.unread_input() and handle.take_unread_input() == []
    texts = [i["content"][0]["text"] for i in model.requests[1].items if i["type"] == "message"]
    assert texts == ["go", "also this"]
