"""The agent differences ``codex_nb.acp.quirks`` maps, each as the agent sends it (the
agent suite, tests/acp_agents, shows them on the real agents)."""

from __future__ import annotations

from codex_nb.acp import quirks
from codex_nb.acp.mapping import ToolCallState


def test_gemini_mode_echo_is_a_mode_change_not_answer_text() -> None:
    assert quirks.mode_echo("[MODE_UPDATE] plan") == "plan"
    assert quirks.mode_echo("[MODE_UPDATE] plan and more words") is None
    assert quirks.mode_echo("The [MODE_UPDATE] plan") is None


def test_claude_empty_first_chunk_shows_nothing() -> None:
    assert quirks.empty_chunk("") and not quirks.empty_chunk(" ")


def test_codex_guardian_review_is_shown_as_an_automatic_review() -> None:
    state = ToolCallState(call_id="guardian_assessment:r1", title="Guardian Review", kind="think")
    quirks.apply_to_tool_call(state)
    assert state.title == "Automatic review (Codex Guardian): Guardian Review"
    quirks.apply_to_tool_call(state)  # an update of the same call is not renamed twice
    assert state.title == "Automatic review (Codex Guardian): Guardian Review"
    person = ToolCallState(call_id="x1", title="echo hi")
    quirks.apply_to_tool_call(person)
    assert person.title == "echo hi"
