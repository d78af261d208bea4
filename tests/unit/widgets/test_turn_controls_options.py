"""The turn controls' option pickers against a real scripted ACP agent subprocess
(``tests/acp_agents/options_agent.py``): the pickers are the agent's options, a pick is sent with
``set_option`` and shown once the agent has answered (its report, not the pick), a refusal and a
pick of an option the source lacks are said, an option the agent changes by itself redraws the
pickers, a finished turn's frozen controls pick nothing, and the saved text says the values."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.turn_controls import TurnControls, option_outcomes
from helpers.paths import ACP_AGENTS

OPTIONS_AGENT = ACP_AGENTS / "options_agent.py"
TIMEOUT = 60

pytestmark = pytest.mark.slow


async def settled(controls: TurnControls) -> dict[str, str]:
    """The pick's final reply (the agent answered, or it was refused), awaited on the trait."""
    replied = asyncio.Event()

    def changed(_: Any) -> None:
        if controls.last_option.get("outcome") != "setting":
            replied.set()

    controls.observe(changed, "last_option")
    try:
        changed(None)
        await asyncio.wait_for(replied.wait(), TIMEOUT)
    finally:
        controls.unobserve(changed, "last_option")
    return controls.last_option


def current(controls: TurnControls) -> dict[str, Any]:
    return {o["id"]: o["current"] for o in controls.options}


async def test_the_pickers_are_the_agents_options_and_a_pick_is_shown_once_the_agent_answers() -> None:
    async with cx.AcpAgent(sys.executable, [str(OPTIONS_AGENT)]) as agent:
        session = await agent.new_session()
        with recording_comms():
            controls = TurnControls(session)
        assert [o["id"] for o in controls.options] == ["speed", "verbose", "strict", "stuck"]
        speed = controls.options[0]
        assert (speed["kind"], speed["current"], speed["category"]) == ("select", "slow", "model_config")
        assert [(c["value"], c["group"]) for c in speed["choices"]] == [("slow", "Pace"), ("fast", "Pace")]
        assert (
            controls.text()
            == "Turn: no turn yet\nOptions: Speed: Slow \u00b7 Verbose: off \u00b7 Strict: A \u00b7 Stuck: A"
        )

        first = controls.handle_message({"id": "p1", "kind": "set_option", "option": "speed", "value": "fast"})
        assert first == {"id": "p1", "option": "speed", "outcome": "setting", "message": ""}
        assert current(controls)["speed"] == "slow"  # the pick is not shown before the agent's answer
        assert await settled(controls) == {"id": "p1", "option": "speed", "outcome": "set", "message": ""}
        assert current(controls)["speed"] == "fast" == session.options["speed"].current
        assert "Speed: Fast" in controls.text() and "Speed: Fast" in controls.html()

        controls.handle_message({"id": "p2", "kind": "set_option", "option": "verbose", "value": True})
        assert (await settled(controls))["outcome"] == "set" and current(controls)["verbose"] is True

        # the agent refuses a value it listed: the reason is the widget's, the option unchanged
        controls.handle_message({"id": "p3", "kind": "set_option", "option": "strict", "value": "b"})
        refused = await settled(controls)
        assert refused["outcome"] == "refused" and refused["message"].startswith(
            "the ACP agent refused option 'strict'"
        )
        assert current(controls)["strict"] == "a"
        # a value the option does not list never leaves the kernel
        controls.handle_message({"id": "p4", "kind": "set_option", "option": "speed", "value": "warp"})
        assert "has no value 'warp'" in (await settled(controls))["message"]
        # an option the source does not offer is refused at once
        assert controls.handle_message({"id": "p5", "kind": "set_option", "option": "colour", "value": "red"}) == {
            "id": "p5",
            "option": "colour",
            "outcome": "refused",
            "message": "this source offers no option 'colour' (its options: speed, verbose, strict, stuck)",
        }
        assert [r["outcome"] for r in controls.option_replies] == [
            "setting", "set", "setting", "set", "setting", "refused", "setting", "refused", "refused"
        ]  # fmt: skip
        assert set(option_outcomes()) == {r["outcome"] for r in controls.option_replies}


async def test_an_option_the_agent_changes_itself_redraws_the_pickers_and_frozen_controls_pick_nothing() -> None:
    async with cx.AcpAgent(sys.executable, [str(OPTIONS_AGENT)]) as agent:
        session = await agent.new_session()
        with recording_comms():
            controls = TurnControls(session)
        # the agent's own config_option_update during a prompt: 3 options of 2 values each
        await asyncio.wait_for(session.prompt("flood 3 2"), TIMEOUT)
        assert [o["id"] for o in controls.options] == [o.id for o in session.options.values()]
        assert len(controls.options) == 3
        controls.detach()
        assert controls.can_pick is False
        reply = controls.handle_message(
            {"id": "p1", "kind": "set_option", "option": controls.options[0]["id"], "value": "x"}
        )
        assert reply["outcome"] == "refused" and "finished turn" in reply["message"]


async def test_modes_only_agent_gets_one_mode_picker_set_through_set_mode() -> None:
    async with cx.AcpAgent(sys.executable, [str(OPTIONS_AGENT), "--modes-only"]) as agent:
        session = await agent.new_session()
        with recording_comms():
            controls = TurnControls(session)
        assert [(o["id"], o["current"]) for o in controls.options] == [("mode", "ask")]
        controls.handle_message({"id": "m1", "kind": "set_option", "option": "mode", "value": "code"})
        assert (await settled(controls))["outcome"] == "set"
        assert current(controls)["mode"] == "code"


def test_a_source_without_options_shows_no_pickers_and_refuses_a_pick(session: Any) -> None:
    with recording_comms():
        controls = TurnControls(session)
    assert controls.options == []
    assert controls.text() == "Turn: no turn yet"
    reply = controls.handle_message({"id": "x", "kind": "set_option", "option": "mode", "value": "plan"})
    assert reply["outcome"] == "refused" and "(its options: none)" in reply["message"]
