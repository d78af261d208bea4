"""``AcpAgent.list_sessions()``: the real codex-acp's ``session/list`` after a prompt, the same
list a Codex home gives ``cx.codex_sessions()``; and an agent without the capability says so."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.testing import ResponsesServer, codex_acp_binary, write_codex_acp_home

from helpers.paths import ROOT

HOSTILE = ROOT / "tests" / "acp_agents" / "hostile_agent.py"


@pytest.mark.requires_acp_agent
async def test_codex_acp_lists_the_session_it_ran(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer([[cx.assistant_message("hello")]]) as srv:
        home = write_codex_acp_home(srv, tmp_path / "home")
        env = {"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-local"}
        async with cx.AcpAgent(codex_acp_binary(), env=env) as agent:
            session = await agent.new_session(work)
            assert (await session.prompt("say hello")).status == "completed"
            listed = await agent.list_sessions()
            mine = await agent.list_sessions(work)
            elsewhere = await agent.list_sessions(tmp_path / "nowhere")
    assert session.session_id in [s["session_id"] for s in listed]
    assert [s["cwd"] for s in mine if s["session_id"] == session.session_id] == [str(work)]
    assert session.session_id not in [s["session_id"] for s in elsewhere]
    assert session.session_id in [s.session_id for s in cx.codex_sessions(home)]  # the same home, read directly


async def test_an_agent_without_session_list_says_so() -> None:
    async with cx.AcpAgent(sys.executable, [str(HOSTILE)]) as agent:
        with pytest.raises(
            cx.acp.AcpError, match=r"does not list its sessions \(its sessionCapabilities.list is off\)"
        ):
            await agent.list_sessions()
