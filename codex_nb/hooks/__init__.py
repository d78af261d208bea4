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
if TYPE_CHECKING:
    from ..config.hook_matchers import (
        HOOK_TOOL_ALIASES as HOOK_TOOL_ALIASES,
        Matcher as Matcher,
        matcher_inputs as matcher_inputs,
        mcp_hook_tool_name as mcp_hook_tool_name,
    )
    from ..config.hooks import (
        CommandHandler as CommandHandler,
        HooksConfig as HooksConfig,
        HookSpec as HookSpec,
        HookStateEntry as HookStateEntry,
        PythonHandler as PythonHandler,
        load_hooks_path as load_hooks_path,
        parse_hooks_json as parse_hooks_json,
        parse_hooks_table as parse_hooks_table,
        parse_hooks_toml as parse_hooks_toml,
    )
    from .engine import MAX_ASYNC_HOOKS as MAX_ASYNC_HOOKS, HookEngine as HookEngine, HookInfo as HookInfo
    from .hook_events import (
        HookCompleted as HookCompleted,
        HookOutputEntry as HookOutputEntry,
        HookRunSummary as HookRunSummary,
        HookStarted as HookStarted,
    )
    from .messages import (
        post_tool_use_block_default as post_tool_use_block_default,
        pre_tool_use_block_message as pre_tool_use_block_message,
    )
    from .types import (
        AddContext as AddContext,
        Block as Block,
        HookDecision as HookDecision,
        HookInput as HookInput,
        PostToolUseInput as PostToolUseInput,
        PreToolUseInput as PreToolUseInput,
        Rewrite as Rewrite,
        Stop as Stop,
    )

__getattr__, __dir__ = _attach(__name__)
