"""``AcpSession.capabilities`` from what the real agent (codex-acp on a local Responses stand-in)
said in ``initialize`` and ``session/new``, and ``send_during_turn`` queueing: ACP has no steering,
so a message during a prompt is held and sent once as the next prompt when it ends."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import ResponsesServer, codex_acp_binary, write_codex_acp_home
from helpers.acp_helpers import after


@pytest.mark.slow
@pytest.mark.requires_acp_agent
async def test_an_acp_session_says_what_its_agent_offered_and_queues_during_a_prompt(tmp_path: Path) -> None:
    queued = threading.Event()
    script: list[Any] = [
        after(queued, [cx.assistant_message("first done")]),
        [cx.assistant_message("noted")],
    ]
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer(script) as srv:
        env = {"CODEX_HOME": str(write_codex_acp_home(srv, tmp_path / "home")), "OPENAI_API_KEY": "sk-local"}
        async with cx.AcpAgent(codex_acp_binary(), env=env) as agent:
            session = await agent.new_session(work)
            caps = session.capabilities
            assert isinstance(session, cx.AgentSource)
            assert (caps.agent, caps.runs_turns, caps.mid_turn, caps.needs_model) == (
                "the ACP agent",
                True,
                "queue",
                False,
            )
            # from session/new: the options and modes it listed (its Plan mode is one of them, not a turn's mode)
            assert caps.options == tuple(session.options) and "model" in caps.options
            modes = getattr(session.response, "modes", None)
            assert caps.agent_modes == tuple(m.id for m in (modes.available_modes if modes else ()))
            assert caps.modes == ("default",) and caps.answers and caps.interrupt and caps.tool_lifecycle
            # from initialize: what it does with saved sessions and whether a prompt takes images
            info = agent.info.agent_capabilities
            assert ("load" in caps.sessions) == bool(info.load_session)
            assert (caps.images == "content_blocks") == bool(info.prompt_capabilities.image)
            assert caps.plan_notification == "session/update (plan)" and not caps.replay

            with pytest.raises(cx.TurnError, match="no prompt is running"):
                session.send_during_turn("too early")
            first = session.prompt("Start")
            one = session.send_during_turn("Also this")
            two = session.send_during_turn("And this")
            queued.set()
            assert one.how == "queued" and one.turn_id is None and one.next_turn is two.next_turn
            first_result = await first
            follow_up = await one.next_turn  # the session sent its queue as the next prompt
            second = await follow_up
    assert first_result.status == "completed" and second.status == "completed"
    carrying = [i for i, b in enumerate(srv.requests) if "Also this" in json.dumps(b["input"])]
    assert carrying == [1] and "And this" in json.dumps(srv.requests[1]["input"])  # one prompt, both messages
