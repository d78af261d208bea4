"""A turn result keeps its events, but not an unbounded number of text deltas: a long answer
(or a hostile model) streams one delta per chunk, and the completed message holds their text."""

from __future__ import annotations

import pytest

import codex_nb as cx
from codex_nb.events import turn_log
from codex_nb.events.turn_log import TurnEventLog
from codex_nb.protocol.events import AgentMessageDelta, Event, TurnComplete
from codex_nb.testing import Events, ResponsesServer

from helpers.responses_streams import text_events


# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


def event(msg: object) -> Event:
    return Event(id="t", msg=msg, turn_id="t")


def test_the_log_keeps_every_event_but_deltas_past_the_cap() -> None:
    log = TurnEventLog(max_deltas=2)
    for text in "abc":
        log.append(event(AgentMessageDelta(delta=text)))
    log.append(event(TurnComplete(turn_id="t", last_agent_message="abc")))
    assert [e.msg.type for e in log.events] == ["agent_message_delta", "agent_message_delta", "turn_complete"]
    assert [e.msg.delta for e in log.events[:2]] == ["a", "b"]
    assert log.dropped_deltas == 1 and len(log) == 3


async def test_a_real_model_turn_keeps_the_first_deltas_and_counts_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turn_log, "MAX_KEPT_DELTAS", 5)
    chunks = [f"w{i} " for i in range(40)]
    seen: list[str] = []
    async with ResponsesServer([Events(text_events(*chunks))]) as srv:
        model = cx.ResponsesModel(model="local-model", base_url=srv.base_url, api_key="sk-local")
        session = cx.Session()
        session.subscribe(lambda e: seen.append(e.msg.delta) if e.msg.type == "agent_message_delta" else None)
        result = await session.run_turn("talk", model=model)
    assert result.status == "completed", result.error
    kept = [e.msg.delta for e in result.events if e.msg.type == "agent_message_delta"]
    assert kept == chunks[:5] and result.dropped_deltas == 35
    assert seen == chunks  # subscribers saw every delta; only the result's copy is bounded
    assert result.last_agent_message == "".join(chunks)
    assert [e.msg.type for e in result.events][-1] == "turn_complete"
