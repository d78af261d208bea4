"""get_context_remaining / new_context against Codex 0.169's specs and arithmetic."""

from __future__ import annotations

import json

import codex_nb as cx
from helpers.paths import CODEX_0169_TOOLS

FIXTURE = json.loads(CODEX_0169_TOOLS.read_text())


def budget_session(**extra):
    return cx.Session(cx.Config(extra={"features": {"token_budget": True}, **extra}))


def test_registered_only_with_the_feature_and_specs_match_codex():
    assert "new_context" not in cx.Session(cx.Config()).planner.plan().tool_names
    session = budget_session()
    names = session.planner.plan().tool_names
    assert names.index("new_context") + 1 == names.index("get_context_remaining")
    specs = {s["name"]: s for s in session.planner.plan().specs if s.get("type") == "function"}
    for codex in FIXTURE["tools"]:
        if codex.get("name") in ("new_context", "get_context_remaining"):
            assert specs[codex["name"]] == codex


async def test_budget_counts_down_from_reported_usage():
    # Codex 0.169 with a 272,000-token window and 100,050 tokens reported answered 144750 (0.9 * W - used).
    session = budget_session(model_context_window=272_000)
    call = lambda i: [cx.function_call("get_context_remaining", {}, call_id=f"g{i}")]  # noqa: E731
    model = cx.ScriptedModel(
        [call(1), call(2), [cx.assistant_message("ok")]],
        usage=[{"total_tokens": 100_050}, {"total_tokens": 150_000}, None],
    )
    result = await session.run_turn("go", model=model)
    assert result.outputs() == {
        "g1": "You have 144750 tokens left in this context window.",
        "g2": "You have 94800 tokens left in this context window.",
    }


async def test_unknown_without_window_or_usage():
    session = budget_session()
    model = cx.ScriptedModel(
        [[cx.function_call("get_context_remaining", {}, call_id="g")], [cx.assistant_message("")]],
        usage=[{"total_tokens": 5}, None],
    )
    result = await session.run_turn("go", model=model)
    assert result.outputs()["g"] == "You have unknown tokens left in this context window."


async def test_new_context_starts_the_next_step_on_a_fresh_window():
    session = budget_session(model_context_window=1000)
    model = cx.ScriptedModel(
        [
            [cx.function_call("new_context", {}, call_id="n")],
            [cx.function_call("get_context_remaining", {}, call_id="g")],
            [cx.assistant_message("fresh")],
        ],
        usage=[{"total_tokens": 800}, {"total_tokens": 100}, None],
        record_requests=True,
    )
    result = await session.run_turn("remember me", model=model)
    assert result.outputs()["n"] == "A new context window will start without summarizing conversation history."
    fresh = model.requests[1].items
    assert fresh[0]["role"] == "developer" and fresh[0]["content"][0]["text"] == "<context_window>"
    assert not any(i.get("role") == "user" for i in fresh)  # no summary, no old prompt
    assert result.outputs()["g"] == "You have 800 tokens left in this context window."
    assert [i["type"] for i in result.items][:3] == ["message", "function_call", "function_call_output"]
    assert any(i.get("role") == "user" for i in session.context_window.archived_history)  # nothing is lost
