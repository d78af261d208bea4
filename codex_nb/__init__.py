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
    ScriptedModelError,
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
from .render import render_plan_text
from .render.images import image_thumbnails
from .runtime.models import ScriptedModel
from .sources.mcp.manager import McpServers
from .runtime.turn import TURN_ABORTED_MARKER
from .testing import RecordingSubscriber
from .tools.base import Tool
from .tools.errors import Fatal, RespondToModel
from .tools.exposure import ToolExposure
from .tools.invocation import ModeKind, ToolInvocation
from .tools.payload import ToolOutput

# Widgets pull in ipywidgets/anywidget (~0.7 s): load them on first use, not at import.
_LAZY = {"PlanChecklist": "codex_nb.widgets.checklist", "TurnControls": "codex_nb.widgets.turn_controls",
         "PromptsWidget": "codex_nb.widgets.prompts"}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'codex_nb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "TURN_ABORTED_MARKER",
    "AnswerError",
    "AnswerPolicy",
    "AnswerPolicyError",
    "CodeModeSettings",
    "CodexNbError",
    "Config",
    "ConfigError",
    "Event",
    "EventSource",
    "Fatal",
    "HookError",
    "McpServers",
    "ModeKind",
    "Model",
    "ModelRequest",
    "PlanChecklist",
    "PlanItemArg",
    "PlanUpdate",
    "PromptsWidget",
    "RecordingSubscriber",
    "RespondToModel",
    "ScriptedModel",
    "ScriptedModelError",
    "Session",
    "StepStatus",
    "Tool",
    "ToolCollisionError",
    "ToolDefinitionError",
    "ToolExposure",
    "ToolInvocation",
    "ToolOutput",
    "TurnControls",
    "TurnError",
    "UpdatePlanArgs",
    "assistant_message",
    "custom_tool_call",
    "function_call",
    "hooks",
    "image_thumbnails",
    "render_plan_text",
    "tool_search_call",
    "turn_plan_updated",
    "user_message",
]
