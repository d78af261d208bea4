"""codex_nb: Codex's tool runtime in the Jupyter kernel.

``__all__`` is what a notebook user needs: sessions, models, config, the item
builders, events and plans, the widgets, the pieces a tool or hook author writes
against, and the errors. Everything else stays importable from its own module
(``codex_nb.tools.planner``, ``codex_nb.runtime.records`` ...). Importing this package
has no side effects: nothing is registered globally and no widget, kernel or thread
is started.
"""

from . import hooks
from .config import CodeModeSettings, Config
from .errors import (
    CodexNbError,
    ConfigError,
    HookError,
    ModelError,
    ScriptedModelError,
    ToolCallError,
    ToolCollisionError,
    ToolDefinitionError,
    TurnError,
)
from .events.source import EventSource
from .frontend.answer_policy import AnswerPolicy, AnswerPolicyError
from .frontend.requests import AnswerError
from .notebook import Session
from .protocol.app_server import turn_plan_updated
from .protocol.events import Event, PlanUpdate
from .protocol.items import assistant_message, custom_tool_call, function_call, tool_search_call, user_message
from .protocol.model import Model, ModelRequest
from .protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from .runtime.models import ScriptedModel
from .runtime.turn import TURN_ABORTED_MARKER
from .testing import RecordingSubscriber
from .tools.base import Tool
from .tools.errors import Fatal, RespondToModel
from .tools.exposure import ToolExposure
from .tools.invocation import ModeKind, ToolInvocation
from .tools.payload import ToolOutput

# Widgets pull in ipywidgets/anywidget (~0.7 s) and the renderer wcwidth/uniseg tables:
# load them on first use, not at import.
_LAZY = {"PlanChecklist": "codex_nb.widgets.checklist", "TurnControls": "codex_nb.widgets.turn_controls",
         "PromptsWidget": "codex_nb.widgets.prompts", "render_plan_text": "codex_nb.render",
         "image_thumbnails": "codex_nb.render.images", "McpServers": "codex_nb.sources.mcp.manager",
         "ReplayScrubber": "codex_nb.widgets.replay",
    # Sources load their client machinery on first use too.
    "AppServerError": "codex_nb.sources.app_server",
    "AppServerExited": "codex_nb.sources.app_server",
    "AppServerProtocolError": "codex_nb.sources.app_server",
    "AppServerRpcError": "codex_nb.sources.app_server",
    "AppServerTimeout": "codex_nb.sources.app_server",
    "CodexAppServer": "codex_nb.sources.app_server",
    "CodexBinaryError": "codex_nb.sources.app_server",
    "CodexThread": "codex_nb.sources.app_server",
    "ReplayError": "codex_nb.sources.replay", "RolloutReplay": "codex_nb.sources.replay",
    "Rollout": "codex_nb.sources.rollout",
    "RolloutError": "codex_nb.sources.rollout",
    "list_rollouts": "codex_nb.sources.rollout",
    "read_rollout": "codex_nb.sources.rollout",
    # The ACP client loads the acp SDK: also on first use.
    **dict.fromkeys(("AcpAgent", "AcpAuthError", "AcpError"), "codex_nb.sources.acp"),
    "Transcript": "codex_nb.widgets.transcript", "ResponsesModel": "codex_nb.sources.responses.model",
    "TokenUsage": "codex_nb.protocol.model_stream",
}


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext codex_nb``: a default session and the ``%%codex`` magics (see codex_nb.extension)."""
    from .extension import load_ipython_extension as load  # lazy: the extension is the top layer

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """``%unload_ext codex_nb``: interrupt running turns, close the extension's sessions and widgets."""
    from .extension import unload_ipython_extension as unload

    unload(ipython)


def __getattr__(name: str) -> object:
    if name == "extension":  # the IPython extension's helpers (agent(), wait_closed()), on first use
        import importlib

        return importlib.import_module(".extension", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'codex_nb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "TURN_ABORTED_MARKER",
    "AcpAgent",
    "AcpAuthError",
    "AcpError",
    "AnswerError",
    "AnswerPolicy",
    "AnswerPolicyError",
    "AppServerError",
    "AppServerExited",
    "AppServerProtocolError",
    "AppServerRpcError",
    "AppServerTimeout",
    "CodeModeSettings",
    "CodexAppServer",
    "CodexBinaryError",
    "CodexNbError",
    "CodexThread",
    "Config",
    "ConfigError",
    "Event",
    "EventSource",
    "Fatal",
    "HookError",
    "McpServers",
    "ModeKind",
    "Model",
    "ModelError",
    "ModelRequest",
    "PlanChecklist",
    "PlanItemArg",
    "PlanUpdate",
    "PromptsWidget",
    "RecordingSubscriber",
    "ReplayError",
    "ReplayScrubber",
    "RespondToModel",
    "ResponsesModel",
    "Rollout",
    "RolloutError",
    "RolloutReplay",
    "ScriptedModel",
    "ScriptedModelError",
    "Session",
    "StepStatus",
    "TokenUsage",
    "Tool",
    "ToolCallError",
    "ToolCollisionError",
    "ToolDefinitionError",
    "ToolExposure",
    "ToolInvocation",
    "ToolOutput",
    "Transcript",
    "TurnControls",
    "TurnError",
    "UpdatePlanArgs",
    "assistant_message",
    "custom_tool_call",
    "function_call",
    "hooks",
    "image_thumbnails",
    "list_rollouts",
    "load_ipython_extension",
    "read_rollout",
    "render_plan_text",
    "tool_search_call",
    "turn_plan_updated",
    "unload_ipython_extension",
    "user_message",
]
