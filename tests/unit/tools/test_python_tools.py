"""Python functions as tools: schemas from hints, validation errors to the model, sync and async."""

from __future__ import annotations

import threading
from typing import Literal

import pytest

import codex_nb as cx
from codex_nb.tools.lifecycle import ToolCallOutcome


def test_schema_from_hints_and_docstring(session: cx.Session) -> None:
    @session.tool
    async def echo(text: str, times: int = 1, mode: Literal["loud", "quiet"] | None = None) -> str:
        """Echo the text back."""
        return text * times

    spec = next(s for s in session.tool_plan().specs if s["name"] == "echo")
    assert spec == {
        "type": "function",
        "name": "echo",
        "description": "Echo the text back.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["loud", "quiet"]},
                "text": {"type": "string"},
                "times": {"type": "integer", "description": "Default: 1."},
            },
            "required": ["text"],
            "additionalProperties": False,
        },
    }


async def test_sync_tool_runs_off_the_loop_thread(session: cx.Session) -> None:
    loop_thread = threading.get_ident()

    @session.tool
    def where() -> str:
        "Which thread."
        return "worker" if threading.get_ident() != loop_thread else "loop"

    assert (await session.call_tool("where", {})).output == "worker"


async def test_validation_error_reaches_model(session: cx.Session) -> None:
    @session.tool
    async def add(a: int, b: int) -> int:
        "Add."
        return a + b

    assert (await session.call_tool("add", {"a": 1, "b": 2})).output == "3"
    bad = await session.call_tool("add", {"a": "x"})
    assert bad.success is False
    assert bad.output.startswith("failed to parse function arguments: a: Input should be a valid integer")
    assert "b: Field required" in bad.output
    extra = await session.call_tool("add", {"a": 1, "b": 2, "c": 3})
    assert "c: Extra inputs are not permitted" in extra.output
    assert (await session.call_tool("add", "[1]")).output == (
        "failed to parse function arguments: expected a JSON object, got list"
    )


async def test_tool_exception_is_a_failed_output_not_an_exception(session: cx.Session) -> None:
    @session.tool
    def boom() -> str:
        "Fails."
        raise ValueError("disk on fire")

    result = await session.call_tool("boom", {})
    assert result.success is False
    assert result.output.startswith("tool raised ValueError: disk on fire")
    assert session.lifecycle_log[-1].outcome == ToolCallOutcome.failed(handler_executed=True)


async def test_respond_to_model_and_fatal_from_tools(session: cx.Session) -> None:
    @session.tool
    async def polite() -> str:
        "Declines."
        raise cx.tools.RespondToModel("not today")

    @session.tool
    async def fatal() -> str:
        "Breaks the turn."
        raise cx.tools.Fatal("cannot continue")

    assert (await session.call_tool("polite", {})).output == "not today"
    model = cx.ScriptedModel([[cx.function_call("fatal", {}, call_id="f")]])
    result = await session.run_turn("go", model=model)
    assert result.status == "failed" and result.error == "Fatal error: cannot continue"
    assert [e.msg.type for e in result.events][-2:] == ["error", "turn_complete"]


async def test_non_string_results_are_json(session: cx.Session) -> None:
    @session.tool
    async def data() -> dict:
        "Data."
        return {"a": [1, "é"]}

    assert (await session.call_tool("data", {})).output == '{"a":[1,"é"]}'


def test_bad_definitions_name_the_fix(session: cx.Session) -> None:
    with pytest.raises(cx.errors.ToolDefinitionError, match="has no type hint"):

        @session.tool
        def untyped(x):  # noqa: ANN001
            return x

    with pytest.raises(cx.errors.ToolDefinitionError, match=r"\*args/\*\*kwargs"):

        @session.tool
        def star(*args: int) -> None:
            return None

    with pytest.raises(cx.errors.ToolDefinitionError, match="pass name="):
        session.registry.register(lambda: None)
    with pytest.raises(cx.errors.ToolDefinitionError, match="pass a codex_nb Tool or a Python function"):
        session.registry.register(42)


async def test_invocation_parameter_gives_context(session: cx.Session) -> None:
    @session.tool
    async def whoami(*, invocation: cx.tools.ToolInvocation) -> str:
        "Reports its call id."
        return invocation.call_id

    assert (await session.call_tool("whoami", {}, call_id="abc")).output == "abc"
