"""How the stand-in model asks each agent for the same things: a plan, a shell command, a thought,
a final text. Only the model's choices differ per agent (its tool names and argument shapes); the
agent and the protocol are the real ones."""

from __future__ import annotations

import json
import re
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


def codex_read(path: str) -> list[Any]:
    return [cx.function_call("exec_command", {"cmd": f"cat {path}"})]


def codex_write(path: str, text: str, old: str | None = None) -> list[Any]:
    """``old``: the file's one line now (an update); None: a new file."""
    change = f"*** Add File: {path}\n+{text}" if old is None else f"*** Update File: {path}\n@@\n-{old}\n+{text}"
    return [cx.custom_tool_call("apply_patch", f"*** Begin Patch\n{change}\n*** End Patch\n")]


def codex_question(question: str, header: str, labels: list[str]) -> list[Any]:
    """Codex's ``request_user_input`` (offered to the model in Plan mode only)."""
    options = [{"label": label, "description": f"choose {label}"} for label in labels]
    questions = [{"id": "q1", "header": header, "question": question, "options": options}]
    return [cx.function_call("request_user_input", {"questions": questions})]


def codex_proposal(plan: str) -> list[Any]:
    """Plan mode's proposed plan: the ``<proposed_plan>`` block of the model's message (Codex makes it
    a plan item; codex-acp then asks the client whether to implement it)."""
    return [cx.assistant_message(f"<proposed_plan>\n{plan}\n</proposed_plan>")]


def claude_proposal(plan: str) -> list[Any]:
    """Claude Code leaves Plan mode with its ExitPlanMode tool, the plan in its input."""
    return [Claude.tool_use("ExitPlanMode", {"plan": plan})]


def qwen_proposal(plan: str) -> list[Any]:
    """Qwen Code leaves Plan mode with its exit_plan_mode tool, the plan in its arguments."""
    return [cx.function_call("exit_plan_mode", {"plan": plan})]


GEMINI_PLANS_FOLDER = re.compile(r"in the plans directory: (/[^\s\"\\\\]+)")
"""Where Gemini CLI 0.61 tells its model, in Plan mode, the session's plans folder is (write_file's
description)."""


def gemini_proposal(plan: str) -> Callable[[dict[str, Any]], list[Any]]:
    """Gemini CLI leaves Plan mode with its exit_plan_mode tool, which names a plan file: the model
    writes the plan in the plans folder its request names, then asks (after the write)."""

    def answer(body: dict[str, Any]) -> list[Any]:
        found = GEMINI_PLANS_FOLDER.search(json.dumps(body))
        assert found, "Gemini CLI named no plans folder (is the session in Plan mode?)"
        folder = found.group(1).rstrip("/.")
        return [
            Gemini.function_call("write_file", {"file_path": f"{folder}/greeting.md", "content": plan}),
            Gemini.function_call("exit_plan_mode", {"plan_filename": "greeting.md", "wait_for_previous": True}),
        ]

    return answer


def claude_question(question: str, header: str, labels: list[str]) -> list[Any]:
    """Claude Code's AskUserQuestion (offered only to a client that says it shows form elicitations)."""
    options = [{"label": label, "description": f"choose {label}"} for label in labels]
    args = {"questions": [{"question": question, "header": header, "options": options, "multiSelect": False}]}
    return [Claude.tool_use("AskUserQuestion", args)]


def claude_plan(steps: list[Step]) -> list[Any]:
    todos = [{"content": s, "status": st, "activeForm": s} for s, st in steps]
    return [Claude.thinking("Plan the work."), Claude.tool_use("TodoWrite", {"todos": todos})]


def claude_command(command: str) -> list[Any]:
    return [Claude.tool_use("Bash", {"command": command, "description": "write a file"})]


def claude_read(path: str) -> list[Any]:
    return [Claude.tool_use("Read", {"file_path": path})]


def claude_write(path: str, text: str, old: str | None = None) -> list[Any]:
    return [Claude.tool_use("Write", {"file_path": path, "content": text})]


def gemini_plan(steps: list[Step]) -> list[Any]:
    todos = [{"description": s, "status": st} for s, st in steps]
    return [Gemini.thought("Plan the work."), Gemini.function_call("write_todos", {"todos": todos})]


def gemini_command(command: str) -> list[Any]:
    return [Gemini.function_call("run_shell_command", {"command": command, "description": "write a file"})]


def gemini_read(path: str) -> list[Any]:
    return [Gemini.function_call("read_file", {"file_path": path})]


def gemini_write(path: str, text: str, old: str | None = None) -> list[Any]:
    return [Gemini.function_call("write_file", {"file_path": path, "content": text})]


def qwen_plan(steps: list[Step]) -> list[Any]:
    todos = [{"id": str(i), "content": s, "status": st} for i, (s, st) in enumerate(steps, 1)]
    return [cx.function_call("todo_write", {"todos": todos})]


def qwen_command(command: str) -> list[Any]:
    return [cx.function_call("run_shell_command", {"command": command, "description": "write a file"})]


def qwen_read(path: str) -> list[Any]:
    return [cx.function_call("read_file", {"file_path": path})]


def qwen_write(path: str, text: str, old: str | None = None) -> list[Any]:
    return [cx.function_call("write_file", {"file_path": path, "content": text})]


def claude_subagent(task: str) -> list[Any]:
    """Claude Code's Agent tool, run in the foreground (its default is the background)."""
    args = {"description": "Count the lines", "prompt": task, "subagent_type": "general-purpose"}
    return [[Claude.tool_use("Agent", {**args, "run_in_background": False})]]


def codex_subagent(task: str) -> list[Any]:
    """Codex keeps its multi-agent tools deferred: the model finds them with ``tool_search`` (namespace
    ``multi_agent_v1``), spawns the agent, then waits for it by the id ``spawn_agent`` returned."""

    def wait(body: dict[str, Any]) -> list[Any]:
        agent_id = json.loads(codex_tool_results(body)[-1])["agent_id"]
        args = {"targets": [agent_id], "timeout_ms": 120_000}
        return [cx.function_call("wait_agent", args, namespace="multi_agent_v1")]

    spawn = cx.function_call("spawn_agent", {"message": task}, namespace="multi_agent_v1")
    return [[cx.tool_search_call("spawn agent")], [spawn], wait]


def codex_tool_results(body: dict[str, Any]) -> list[str]:
    return [str(i.get("output")) for i in body.get("input", []) if i.get("type") == "function_call_output"]


def claude_tool_results(body: dict[str, Any]) -> list[str]:
    blocks = [b for m in body.get("messages", []) if isinstance(m.get("content"), list) for b in m["content"]]
    return [str(b.get("content")) for b in blocks if b.get("type") == "tool_result"]


TOOL_RESULTS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "codex-acp": codex_tool_results,
    "claude-agent-acp": claude_tool_results,
    "qwen-code": codex_tool_results,  # Responses API too
}
"""Per agent, the tool results a request to the model carries (what the model reads of its calls)."""


DIALECTS: dict[str, dict[str, Callable[..., list[Any]]]] = {
    "codex-acp": {
        "plan": codex_plan,
        "command": codex_command,
        "terminal_command": codex_command,
        "read": codex_read,
        "write": codex_write,
        "text": lambda t: [cx.assistant_message(t)],
        "question": codex_question,
        "proposal": codex_proposal,
        "subagent": codex_subagent,
    },
    "claude-agent-acp": {
        "plan": claude_plan,
        "command": claude_command,
        # claude-agent-acp 0.101 offers Claude Code's own Read/Write/Bash whatever the client offers
        "terminal_command": claude_command,
        "read": claude_read,
        "write": claude_write,
        "text": lambda t: [Claude.text(t)],
        "question": claude_question,
        "proposal": claude_proposal,
        "subagent": claude_subagent,
    },
    "gemini-cli": {
        "plan": gemini_plan,
        "command": gemini_command,
        "terminal_command": gemini_command,
        "read": gemini_read,
        "write": gemini_write,
        "text": lambda t: [Gemini.text(t)],
        "proposal": gemini_proposal,
    },
    "qwen-code": {
        "plan": qwen_plan,
        "command": qwen_command,
        "terminal_command": qwen_command,
        "read": qwen_read,
        "write": qwen_write,
        "text": lambda t: [cx.assistant_message(t)],
        "proposal": qwen_proposal,
    },
}
"""Per agent, the model's way to: make a plan, run a command (``terminal_command``: when the client
offers terminals), read a file and write one (absolute paths; ``old`` is the line a file to update
holds now), answer in text, and ask the person a question (``question``: where the agent offers it)."""
