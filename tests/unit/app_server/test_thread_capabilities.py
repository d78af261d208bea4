"""``CodexThread.capabilities`` on the real Codex (the pinned ``codex app-server``) and its
``send_during_turn``: ``turn/steer`` into the running turn, accepted when Codex answers."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import codex_nb as cx
from helpers.app_server_helpers import real_codex


@pytest.mark.slow
@pytest.mark.requires_codex
async def test_a_codex_thread_says_what_codex_offers_and_steers(tmp_path: Path) -> None:
    steered = threading.Event()
    asked = threading.Event()

    def first(_body: dict[str, Any]) -> list[Any]:
        asked.set()
        steered.wait(60)
        return [cx.assistant_message("working")]

    script = [first, [cx.assistant_message("done")]]
    async with real_codex(script, tmp_path / "home", allow_leftover=True) as (server, srv):
        thread = await server.start_thread(cwd=tmp_path)
        caps = thread.capabilities
        assert isinstance(thread, cx.AgentSource)
        assert (caps.agent, caps.mid_turn, caps.needs_model, caps.turn_ids) == ("Codex", "steer", False, "later")
        assert caps.modes == ("default", "plan") and caps.images == "input_items" and caps.answers
        assert caps.interrupt and caps.plan_notification == "turn/plan/updated" and not caps.hands_back_unread
        with pytest.raises(cx.TurnError, match="no turn is running"):
            thread.send_during_turn("too early")
        handle = thread.start_turn("go")
        await asyncio.to_thread(asked.wait, 60)
        sent = thread.send_during_turn("also this")
        assert sent.how == "steered" and sent.accepted is not None
        await sent.accepted  # Codex accepted turn/steer
        steered.set()
        result = await handle
    assert result.status == "completed"
    assert any("also this" in json.dumps(b["input"]) for b in srv.requests[1:])
