"""PlanAnswers on an ACP agent (codex-acp on a local Responses stand-in): ACP has no steering, so a
comment given during a turn is queued, said so, and sent once as the next prompt when the turn ends."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.testing import ResponsesServer, codex_acp_binary, write_codex_acp_home
from codex_nb.timeline.answers import PlanAnswers
from helpers.acp_helpers import PLAN_1, after


@pytest.mark.requires_acp_agent
async def test_a_comment_during_an_acp_turn_is_the_next_prompt(tmp_path: Path) -> None:
    commented = threading.Event()
    script: list[Any] = [
        [cx.function_call("update_plan", PLAN_1, call_id="p1")],
        after(commented, [cx.assistant_message("first done")]),
        [cx.assistant_message("noted")],
    ]
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer(script) as srv:
        env = {"CODEX_HOME": str(write_codex_acp_home(srv, tmp_path / "home")), "OPENAI_API_KEY": "sk-local"}
        async with cx.AcpAgent(codex_acp_binary(), env=env) as agent:
            session = await agent.new_session(work)
            answers = PlanAnswers(session)
            sent = asyncio.Event()  # the queued comment started the next prompt
            answers.on_change(lambda: answers.turns and sent.set())

            def on_plan(event: cx.events.Event) -> None:
                if event.msg.type == "plan_update" and not answers.answers:
                    answers.comment("Write f.txt", "Write it in UTF-8")
                    commented.set()

            session.subscribe(on_plan)
            first = await session.prompt("Write f.txt")
            queued = answers.comments[0]
            await sent.wait()  # the session sends its queue when the first prompt ends
            [follow_up] = answers.turns
            second = await follow_up
    assert first.status == "completed" and second.status == "completed"
    assert queued.delivery == "queued"
    assert answers.notices == [
        "the ACP agent takes no input while a turn runs: your comment will be sent as the next prompt "
        "when the turn ends"
    ]
    carrying = [i for i, b in enumerate(srv.requests) if "Write it in UTF-8" in json.dumps(b["input"])]
    assert carrying == [2]  # only the next prompt's request, once
    assert answers.comments[0].turn_id == second.turn_id and answers.comments[0].state == "answered"
