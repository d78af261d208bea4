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


ENDLESS = ROOT / "tests" / "acp_agents" / "endless_list_agent.py"


@pytest.mark.slow
async def test_pages_without_end_stop_at_the_limit_and_say_so() -> None:
    """5,000 sessions a page and a cursor that never ends: the reading stops once ``limit`` rows
    are in (one page here), not at 20 pages (100,000 rows), and the result says it is partial."""
    async with cx.AcpAgent(sys.executable, [str(ENDLESS)]) as agent:
        listed = await agent.list_sessions(limit=1000)
        assert isinstance(listed, cx.acp.SessionListing)
        assert len(listed) == 1000 and listed.stopped == "limit" and not listed.complete
        assert listed.pages == 1 and listed[0]["session_id"] == "s0-0"
        assert listed.note() == "the agent lists more sessions (the first 1000 read)"
        default = await agent.list_sessions()  # the default limit: 10,000 rows, not 20 pages of 5,000
        assert (len(default), default.stopped, default.pages) == (10_000, "limit", 2)
        pages = await agent.list_sessions(max_pages=1, limit=50_000)
        assert (len(pages), pages.stopped) == (5000, "pages")
        assert pages.note() == "the agent lists more sessions (paging stopped after 1 page)"


@pytest.mark.slow
async def test_a_page_that_never_comes_stops_the_listing_at_its_time_budget() -> None:
    async with cx.AcpAgent(sys.executable, [str(ENDLESS), "--page", "10", "--hang-after", "2"]) as agent:
        listed = await agent.list_sessions(budget=0.5)
        assert (len(listed), listed.stopped, listed.pages) == (20, "time", 2)
        assert listed.note() == "the agent lists more sessions (paging stopped after 0.5 s)"
        with pytest.raises(cx.acp.AcpError, match=r"did not answer session/list within 0.5 s"):
            await agent.list_sessions(budget=0.5)  # its first page is the hanging one now
        with pytest.raises(ValueError, match="limit >= 1"):
            await agent.list_sessions(limit=0)
