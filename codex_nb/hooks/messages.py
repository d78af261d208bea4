"""Exact texts the model reads when a hook blocks a call, byte for byte Codex's."""

from __future__ import annotations

from typing import Any

from ..config.hook_matchers import SHELL_HOOK_TOOL_NAMES

post_tool_use_block_default = "PostToolUse hook blocked the tool result"


def pre_tool_use_block_message(tool_name: str, tool_input: Any, reason: str) -> str:
    """``Command blocked by PreToolUse hook: ...`` for Bash/apply_patch with a string command,
    else ``Tool call blocked by PreToolUse hook: {reason}. Tool: {tool_name}``."""
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if tool_name in SHELL_HOOK_TOOL_NAMES and isinstance(command, str):
        return f"Command blocked by PreToolUse hook: {reason}. Command: {command}"
    return f"Tool call blocked by PreToolUse hook: {reason}. Tool: {tool_name}"
