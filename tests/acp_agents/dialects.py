"""How the stand-in model asks each agent for the same things: a plan, a shell command, a thought,
a final text. Only the model's choices differ per agent (its tool names and argument shapes); the
agent and the protocol are the real ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import codex_nb as cx
from codex_nb.testing.anthropic_server import AnthropicServer as Claude
from codex_nb.testing.gemini_server import GeminiServer as Gemini

Step = tuple[str, str]
"""(text, ACP status)"""


def codex_plan(steps: list[Step]) -> list[Any]:
    return [cx.function_call("update_plan", {"plan": [{"step": s, "status": st} for s, st in steps]})]


def codex_command(command: str) -> list[Any]:
    args = {"cmd": command, "sandbox_permissions": "require_escalated", "justification": "write a file"}
    return [cx.function_call("exec_command", args)]


def claude_plan(steps: list[Step]) -> list[Any]:
    todos = [{"content": s, "status": st, "activeForm": s} for s, st in steps]
    return [Claude.thinking("Plan the work."), Claude.tool_use("TodoWrite", {"todos": todos})]


def claude_command(command: str) -> list[Any]:
    return [Claude.tool_use("Bash", {"command": command, "description": "write a file"})]


def gemini_plan(steps: list[Step]) -> list[Any]:
    todos = [{"description": s, "status": st} for s, st in steps]
    return [Gemini.thought("Plan the work."), Gemini.function_call("write_todos", {"todos": todos})]


def gemini_command(command: str) -> list[Any]:
    return [Gemini.function_call("run_shell_command", {"command": command, "description": "write a file"})]


DIALECTS: dict[str, dict[str, Callable[..., list[Any]]]] = {
    "codex-acp": {"plan": codex_plan, "command": codex_command, "text": lambda t: [cx.assistant_message(t)]},
    "claude-code-acp": {"plan": claude_plan, "command": claude_command, "text": lambda t: [Claude.text(t)]},
    "gemini-cli": {"plan": gemini_plan, "command": gemini_command, "text": lambda t: [Gemini.text(t)]},
}
