"""An ACP agent's usage as codex_nb's ``token_count``: ``usage_update`` (the tokens in its context,
of its window) and a prompt response's ``usage`` (the turn's tokens). codex-acp runs on the local
Responses server, whose ``response.completed`` carries the usage scripted here: the legacy
codex-acp (0.16) sends the first only; the current codex-acp (2.x) and the scripted agent send
both. The turn controls' meter shows what was sent, and nothing the agent did not say."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp.mapping import context_token_count, prompt_usage
from codex_nb.protocol.model_stream import TokenUsage
from codex_nb.testing import ResponsesServer, codex_acp_binary, write_codex_acp_home
from codex_nb.testing.acp_agents import acp_agent
from codex_nb.testing.responses_server import Events
from codex_nb.widgets.testing import recording_comms
from helpers.paths import ACP_AGENTS


def answered(text: str, *, rid: str, input_tokens: int, output_tokens: int) -> Events:
    """One assistant message whose ``response.completed`` reports exactly this usage."""
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }
    return Events(
        [
            {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
            {"type": "response.output_item.done", "output_index": 0, "item": cx.assistant_message(text)},
            {"type": "response.completed", "response": {"id": rid, "status": "completed", "usage": usage}},
        ]
    )


@pytest.mark.slow
@pytest.mark.requires_acp_agent
async def test_codex_acp_usage_update_is_the_meters_context_and_nothing_more(tmp_path: Path) -> None:
    script = [
        answered("one", rid="r1", input_tokens=1000, output_tokens=50),
        answered("two", rid="r2", input_tokens=1400, output_tokens=60),
    ]
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer(script) as srv:
        home = write_codex_acp_home(srv, tmp_path / "home")
        agent = cx.AcpAgent(codex_acp_binary(), env={"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-local"})
        async with agent:
            session = await agent.new_session(work)
            seen: list[cx.events.Event] = []
            session.subscribe(seen.append)
            with recording_comms():
                controls = cx.TurnControls(session)
            first = await session.prompt("first")
            assert controls.usage == {"context_used": 1050, "context_window": session.usage["size"]}
            second = await session.prompt("second")
    counts = [(e.turn_id, e.msg.info) for e in seen if e.msg.type == "token_count"]
    assert [turn for turn, _ in counts] == [first.turn_id, second.turn_id]
    # the legacy codex-acp (0.16) reports its context only: the last response's total, no breakdown
    assert [info.last_token_usage for _, info in counts] == [
        TokenUsage(total_tokens=1050),
        TokenUsage(total_tokens=1460),
    ]
    assert all(info.total_token_usage is None for _, info in counts)
    assert first.token_usage is None and session.token_usage is None
    window = session.usage["size"]
    assert controls.usage == {"context_used": 1460, "context_window": window}
    assert controls.text().splitlines()[-1] == f"Context: 1,460 of {window:,} tokens ({1460 * 100 // window}%)"


@pytest.mark.slow
@pytest.mark.requires_acp_agent("codex-acp")
async def test_the_current_codex_acp_reports_context_and_turn_and_the_meter_shows_both(tmp_path: Path) -> None:
    """codex-acp 2.x (``.ci/acp-agents``, Codex 0.166 inside) sends ``usage_update`` after each
    response and the turn's ``usage`` in its prompt response."""
    spec = acp_agent("codex-acp")
    server = spec.server(
        [
            answered("one", rid="r1", input_tokens=1000, output_tokens=50),
            answered("two", rid="r2", input_tokens=1400, output_tokens=60),
        ]
    ).start()
    try:
        command = spec.command()
        agent = cx.AcpAgent(command[0], command[1:], env=spec.env(server, tmp_path / "home"), startup_timeout=60)
        work = tmp_path / "work"
        work.mkdir()
        async with agent:
            session = await agent.new_session(work)
            with recording_comms():
                controls = cx.TurnControls(session)
            first = await session.prompt("first")
            second = await session.prompt("second")
    finally:
        server.close()
    assert first.token_usage == TokenUsage(input_tokens=1000, output_tokens=50, total_tokens=1050)
    assert second.token_usage == TokenUsage(input_tokens=1400, output_tokens=60, total_tokens=1460)
    assert session.token_usage.total_tokens == 2510
    window = session.usage["size"]
    assert controls.usage == {"context_used": 1460, "context_window": window, "turn": 1460, "total": 2510}


@pytest.mark.slow
async def test_a_prompts_usage_is_the_turn_and_the_sum_is_the_session() -> None:
    agent = cx.AcpAgent(sys.executable, [str(ACP_AGENTS / "hostile_agent.py")])
    async with agent:
        session = await agent.new_session()
        seen: list[cx.events.Event] = []
        session.subscribe(seen.append)
        with recording_comms():
            controls = cx.TurnControls(session)
        first = await session.prompt("usage 10845 258400 43805 196")
        assert controls.usage == {"context_used": 10845, "context_window": 258400, "turn": 44001, "total": 44001}
        second = await session.prompt("usage 11500 258400 900 100")
        with recording_comms():
            later = cx.TurnControls(session)  # a later view starts from the session's total
    assert first.token_usage == TokenUsage(input_tokens=43805, output_tokens=196, total_tokens=44001)
    assert second.token_usage.total_tokens == 1000 and session.token_usage.total_tokens == 45001
    assert controls.usage == {"context_used": 11500, "context_window": 258400, "turn": 1000, "total": 45001}
    assert later.usage == {"total": 45001}
    # the turn's usage is counted before its end, where a %%codex cell's view stops following
    ends = [e.msg.type for e in seen if e.msg.type in ("token_count", "turn_complete")]
    assert ends == ["token_count", "token_count", "turn_complete"] * 2


def test_usage_update_and_prompt_usage_mapping() -> None:
    info = context_token_count(11142, 258400).info
    assert info.total_token_usage is None
    assert info.last_token_usage == TokenUsage(total_tokens=11142)
    assert info.model_context_window == 258400
    assert context_token_count(5, 0).info.model_context_window is None  # no window: no percentage
    assert prompt_usage(None) is None
    usage = SimpleNamespace(
        total_tokens=44001,
        input_tokens=43805,
        output_tokens=196,
        thought_tokens=None,
        cached_read_tokens=7,
        cached_write_tokens=0,
    )
    assert prompt_usage(usage) == TokenUsage(
        input_tokens=43805, cached_input_tokens=7, output_tokens=196, reasoning_output_tokens=0, total_tokens=44001
    )
    huge: Any = SimpleNamespace(total_tokens=2**70)
    assert prompt_usage(huge).total_tokens == 2**53 - 1
