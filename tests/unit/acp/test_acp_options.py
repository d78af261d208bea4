"""An ACP agent's options (``session.options``, ``await session.set_option(id, value)``) against a real
scripted agent subprocess (``tests/acp_agents/options_agent.py``): its config options and modes read,
a value checked before it is sent, the agent's refusal and silence as one-line errors, and a hostile
option list bounded and repaired. The pinned agents' own options are in tests/acp_agents/test_agents.py."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

import codex_nb as cx
from codex_nb.acp import AcpError
from codex_nb.acp.options import MAX_CHOICES, MAX_OPTIONS, parse_options
from helpers.paths import ACP_AGENTS

OPTIONS_AGENT = ACP_AGENTS / "options_agent.py"
TIMEOUT = 60


def options_agent(*args: str) -> cx.AcpAgent:
    return cx.AcpAgent(sys.executable, [str(OPTIONS_AGENT), *args])


def warnings(seen: list[Any]) -> list[str]:
    return [e.msg.message for e in seen if e.msg.type == "warning"]


@pytest.mark.slow
async def test_options_are_read_set_and_checked_before_sending() -> None:
    async with options_agent() as agent:
        session = await agent.new_session()
        options = session.options
        assert list(options) == ["speed", "verbose", "strict", "stuck"]
        speed = options["speed"]
        assert (speed.kind, speed.current, speed.values, speed.category) == (
            "select",
            "slow",
            ["slow", "fast"],
            "model_config",
        )
        assert {c.group for c in speed.choices} == {"Pace"}
        assert (options["verbose"].kind, options["verbose"].current, options["verbose"].values) == (
            "boolean",
            False,
            [True, False],
        )

        assert (await session.set_option("speed", "fast")).current == "fast"
        assert session.options["speed"].current == "fast"
        # a boolean takes true/false, or its words as text (what %%codex --option passes)
        assert (await session.set_option("verbose", "on")).current is True

        with pytest.raises(AcpError) as unknown_value:
            await session.set_option("speed", "warp")
        assert str(unknown_value.value) == (
            "the ACP agent's option 'speed' (Speed) has no value 'warp'; its values are ['slow', 'fast']"
        )
        with pytest.raises(
            AcpError,
            match=r"offers no option 'colour' in this session; its options are \['speed', 'verbose', 'strict', 'stuck'\]",
        ):
            await session.set_option("colour", "red")
        with pytest.raises(
            AcpError, match=r"option 'verbose' \(Verbose\) has no value 'maybe'; its values are \[True, False\]"
        ):
            await session.set_option("verbose", "maybe")
        assert session.options["speed"].current == "fast"  # nothing was sent

        # the agent's own refusal of a listed value: one line naming the option and its values
        with pytest.raises(AcpError) as refused:
            await session.set_option("strict", "b")
        message = str(refused.value)
        assert "\n" not in message
        assert message.startswith("the ACP agent refused option 'strict' = 'b': Invalid params")
        assert message.endswith("the values it listed are ['a', 'b']")
        assert session.options["strict"].current == "a"

        # an agent that never answers does not hang the cell
        with pytest.raises(AcpError, match=r"did not answer session/set_config_option for option 'stuck' within 0.5 s"):
            await session.set_option("stuck", "b", timeout=0.5)
        assert (await session.set_option("speed", "slow")).current == "slow"  # the agent is still usable


@pytest.mark.slow
async def test_an_agent_with_modes_only_offers_its_modes_as_the_mode_option() -> None:
    async with options_agent("--modes-only") as agent:
        session = await agent.new_session()
        mode = session.options["mode"]
        assert (mode.via, mode.current, mode.values) == ("mode", "ask", ["ask", "code", "stuck"])
        changed = await session.set_option("mode", "code")
        assert (changed.current, session.current_mode) == ("code", "code")
        with pytest.raises(
            AcpError, match=r"option 'mode' \(Mode\) has no value 'plan'; its values are \['ask', 'code', 'stuck'\]"
        ):
            await session.set_option("mode", "plan")
        with pytest.raises(AcpError, match=r"did not answer session/set_mode for option 'mode' within 0.5 s"):
            await session.set_option("mode", "stuck", timeout=0.5)
        assert session.current_mode == "code"


@pytest.mark.slow
async def test_a_flood_of_options_is_bounded_and_said_once() -> None:
    async with options_agent() as agent:
        session = await agent.new_session()
        seen: list[Any] = []
        session.subscribe(seen.append)
        await asyncio.wait_for(session.prompt(f"flood {MAX_OPTIONS * 3} {MAX_CHOICES + 10}"), TIMEOUT)
        options = session.options
        assert len(options) == MAX_OPTIONS
        assert all(len(o.choices) == MAX_CHOICES for o in options.values())
        said = warnings(seen)
        assert 1 < len(said) <= 6, said
        assert any(f"only the agent's first {MAX_OPTIONS} options are kept" in w for w in said)
        assert any(f"only its first {MAX_CHOICES} values are kept" in w for w in said)
        # the last value kept can be set; one past the bound is refused before sending
        assert (await session.set_option("opt-0", f"v-{MAX_CHOICES - 1}")).current == f"v-{MAX_CHOICES - 1}"


@pytest.mark.slow
async def test_malformed_options_are_dropped_or_repaired_and_the_good_one_kept() -> None:
    async with options_agent() as agent:
        session = await agent.new_session()
        seen: list[Any] = []
        session.subscribe(seen.append)
        result = await asyncio.wait_for(session.prompt("malformed"), TIMEOUT)
        assert result.status == "completed"
        options = session.options
        # the SDK drops what breaks the schema (no id, unknown kind); the client what is unusable
        assert set(options) == {"good", "long", "drifted"}
        assert options["good"].values == ["x", "y"]
        assert options["long"].values == ["a"]
        assert options["drifted"].current == "gone"
        said = " | ".join(warnings(seen))
        assert "'good' is listed twice" in said and "'empty' offers no values" in said
        assert "'drifted': its current value 'gone' is none of its values" in said
        assert session.option_notes and all("\n" not in n for n in session.option_notes)


def test_parse_options_keeps_a_bounded_list_from_raw_dicts() -> None:
    items: list[Any] = [
        {
            "id": f"o{i}",
            "name": "x" * 1000,
            "type": "select",
            "currentValue": "a",
            "options": [{"value": "a", "name": "A"}],
        }
        for i in range(MAX_OPTIONS * 10)
    ]
    parsed = parse_options(items)
    assert len(parsed.options) == MAX_OPTIONS
    assert all(len(o.name) <= 200 for o in parsed.options.values())
    assert len(parsed.notes) == 1
    garbage: list[Any] = [{"type": "select"}] * 1000 + [7, None, "x"]
    parsed = parse_options(garbage)
    assert not parsed.options and len(parsed.notes) == 6 and "more problems" in parsed.notes[-1]


@pytest.mark.slow
async def test_a_prompt_sets_its_options_first_and_a_refusal_fails_it_before_sending() -> None:
    async with options_agent() as agent:
        session = await agent.new_session()
        result = await asyncio.wait_for(session.start_turn("hi", options={"speed": "fast", "verbose": "true"}), TIMEOUT)
        assert (result.status, result.last_agent_message) == ("completed", "echo: hi")
        assert (session.options["speed"].current, session.options["verbose"].current) == ("fast", True)
        # checked when the prompt is started: no turn begins
        with pytest.raises(AcpError, match=r"option 'speed' \(Speed\) has no value 'warp'"):
            session.prompt("hi", options={"speed": "warp"})
        assert session.active_turn is None
        refused = await asyncio.wait_for(session.prompt("never sent", options={"strict": "b"}), TIMEOUT)
        assert refused.status == "failed" and refused.error is not None
        assert refused.error.startswith("the ACP agent refused option 'strict' = 'b'")
        assert refused.last_agent_message is None  # the prompt itself was not sent
