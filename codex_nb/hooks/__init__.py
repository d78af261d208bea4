"""PreToolUse / PostToolUse hooks (codex-rs/hooks in Codex): configuration, trust, command and Python hooks.

``HookEngine`` implements the pipeline's ``ToolHooks`` port (``tools.hook_points``); the hook
tables it reads are parsed by ``config.hooks``. Hook inputs and decisions
for notebook hooks are typed (``PreToolUseInput``, ``Block``, ``Rewrite``, ...).

Modules:

* ``engine``: ``HookEngine``: matching, concurrent runs, combined decisions.
* ``hook_events``: ``hook_started`` / ``hook_completed`` events.
* ``messages``: the texts the model reads when a hook blocks.
* ``outputs``: exit codes and JSON output read into a run's result.
* ``python``: in-process (notebook) hooks.
* ``runner``: command hooks as subprocesses.
* ``session_api``: the hook part of ``Session``'s API.
* ``trust``: the trust step for hooks found in files.
* ``types``: typed hook inputs and decisions.

Layer: above ``tools/`` (which it may import, with everything below), beside ``hooks/``,
``code_mode/`` and the adapters (``app_server/``, ``acp/`` ...); ``runtime/`` and the layers above may
import it.
"""

from typing import TYPE_CHECKING

from .._lazy import attach as _attach

# The engine is on every session's path, but the hook inputs, decisions, runners and events
# are needed only once a hook runs: importing ``codex_nb.hooks.engine`` must not load them
# through this package, so its names load on first use (see codex_nb._lazy).
_LAZY = {
    "AddContext": "codex_nb.hooks.types",
    "Block": "codex_nb.hooks.types",
    "CommandHandler": "codex_nb.config.hooks",
    "HOOK_TOOL_ALIASES": "codex_nb.config.hook_matchers",
    "HookCompleted": "codex_nb.hooks.hook_events",
    "HookDecision": "codex_nb.hooks.types",
    "HookEngine": "codex_nb.hooks.engine",
    "HookInfo": "codex_nb.hooks.engine",
    "HookInput": "codex_nb.hooks.types",
    "HookOutputEntry": "codex_nb.hooks.hook_events",
    "HookRunSummary": "codex_nb.hooks.hook_events",
    "HookSpec": "codex_nb.config.hooks",
    "HookStarted": "codex_nb.hooks.hook_events",
    "HookStateEntry": "codex_nb.config.hooks",
    "HooksConfig": "codex_nb.config.hooks",
    "MAX_ASYNC_HOOKS": "codex_nb.hooks.engine",
    "Matcher": "codex_nb.config.hook_matchers",
    "PostToolUseInput": "codex_nb.hooks.types",
    "PreToolUseInput": "codex_nb.hooks.types",
    "PythonHandler": "codex_nb.config.hooks",
    "Rewrite": "codex_nb.hooks.types",
    "Stop": "codex_nb.hooks.types",
    "load_hooks_path": "codex_nb.config.hooks",
    "matcher_inputs": "codex_nb.config.hook_matchers",
    "mcp_hook_tool_name": "codex_nb.config.hook_matchers",
    "parse_hooks_json": "codex_nb.config.hooks",
    "parse_hooks_table": "codex_nb.config.hooks",
    "parse_hooks_toml": "codex_nb.config.hooks",
    "post_tool_use_block_default": "codex_nb.hooks.messages",
    "pre_tool_use_block_message": "codex_nb.hooks.messages",
}

if TYPE_CHECKING:
    from ..config.hook_matchers import HOOK_TOOL_ALIASES, Matcher, matcher_inputs, mcp_hook_tool_name
    from ..config.hooks import (
        CommandHandler,
        HooksConfig,
        HookSpec,
        HookStateEntry,
        PythonHandler,
        load_hooks_path,
        parse_hooks_json,
        parse_hooks_table,
        parse_hooks_toml,
    )
    from .engine import MAX_ASYNC_HOOKS, HookEngine, HookInfo
    from .hook_events import HookCompleted, HookOutputEntry, HookRunSummary, HookStarted
    from .messages import post_tool_use_block_default, pre_tool_use_block_message
    from .types import AddContext, Block, HookDecision, HookInput, PostToolUseInput, PreToolUseInput, Rewrite, Stop

__getattr__, __dir__ = _attach(__name__, _LAZY)

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
