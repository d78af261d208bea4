"""PreToolUse / PostToolUse hooks (spec 03): configuration, trust, command and Python hooks.

``HookEngine`` implements the pipeline's ``ToolHooks`` port (``tools.hook_points``); the hook
tables it reads are parsed by ``config.hooks``. Hook inputs and decisions
for notebook hooks are typed (``PreToolUseInput``, ``Block``, ``Rewrite``, ...).
"""

from __future__ import annotations

from ..config.hooks import (
    CommandHandler, HooksConfig, HookSpec, HookStateEntry, PythonHandler, load_hooks_path, parse_hooks_json,
    parse_hooks_table, parse_hooks_toml,
)
from .engine import MAX_ASYNC_HOOKS, HookEngine, HookInfo
from .events import HookCompleted, HookOutputEntry, HookRunSummary, HookStarted
from ..config.hook_matchers import HOOK_TOOL_ALIASES, Matcher, matcher_inputs, mcp_hook_tool_name
from .messages import post_tool_use_block_default, pre_tool_use_block_message
from .types import AddContext, Block, HookDecision, HookInput, PostToolUseInput, PreToolUseInput, Rewrite, Stop

__all__ = [
    "HOOK_TOOL_ALIASES",
    "MAX_ASYNC_HOOKS",
    "AddContext",
    "Block",
    "CommandHandler",
    "HookCompleted",
    "HookDecision",
    "HookEngine",
    "HookInfo",
    "HookInput",
    "HookOutputEntry",
    "HookRunSummary",
    "HookSpec",
    "HookStarted",
    "HookStateEntry",
    "HooksConfig",
    "Matcher",
    "PostToolUseInput",
    "PreToolUseInput",
    "PythonHandler",
    "Rewrite",
    "Stop",
    "load_hooks_path",
    "matcher_inputs",
    "mcp_hook_tool_name",
    "parse_hooks_json",
    "parse_hooks_table",
    "parse_hooks_toml",
    "post_tool_use_block_default",
    "pre_tool_use_block_message",
]
