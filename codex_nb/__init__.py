"""codex_nb: Codex's tool runtime in the Jupyter kernel. Public API (DESIGN.md §3).

Importing this package has no side effects: nothing is registered globally and no
widget, kernel or thread is started.
"""

from .config import Config
from .errors import (
    CodexNbError,
    ConfigError,
    HookError,
    ScriptedModelError,
    ToolCollisionError,
    ToolDefinitionError,
    TurnError,
)
from .protocol.app_server import turn_plan_updated
from .protocol.events import (
    AgentMessage,
    ErrorEvent,
    Event,
    EventMsg,
    PlanUpdate,
    TurnAborted,
    TurnComplete,
    TurnStarted,
    WarningEvent,
)
from .protocol.items import assistant_message, custom_tool_call, function_call, user_message
from .protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from .render import render_plan_text
from .runtime.cancellation import CancelSource, CancelToken
from .runtime.history import repair_history
from .runtime.models import ModelRequest, ScriptedModel
from .runtime.session import CallToolResult, Session, TurnHandle
from .runtime.turn import TURN_ABORTED_MARKER, TurnResult
from .testing import RecordingSubscriber
from .tools.base import Tool
from .tools.errors import Fatal, RespondToModel
from .tools.exposure import ToolExposure
from .tools.invocation import ModeKind, ToolInvocation, TurnContext
from .tools.lifecycle import ControlToolCallFact, ControlToolStatus, LifecycleRecord, ToolCallOutcome
from .tools.names import ToolName
from .tools.payload import ToolOutput
from .tools.planner import ToolPlan, ToolPlanner
from .tools.registry import ToolRegistry

# Widgets pull in ipywidgets/anywidget (~0.7 s): load them on first use, not at import.
_LAZY = {"PlanChecklist": "codex_nb.widgets.checklist"}


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
    "AgentMessage",
    "CallToolResult",
    "CancelSource",
    "CancelToken",
    "CodexNbError",
    "Config",
    "ConfigError",
    "ControlToolCallFact",
    "ControlToolStatus",
    "ErrorEvent",
    "Event",
    "EventMsg",
    "Fatal",
    "HookError",
    "LifecycleRecord",
    "ModeKind",
    "ModelRequest",
    "PlanChecklist",
    "PlanItemArg",
    "PlanUpdate",
    "RecordingSubscriber",
    "RespondToModel",
    "ScriptedModel",
    "ScriptedModelError",
    "Session",
    "StepStatus",
    "Tool",
    "ToolCallOutcome",
    "ToolCollisionError",
    "ToolDefinitionError",
    "ToolExposure",
    "ToolInvocation",
    "ToolName",
    "ToolOutput",
    "ToolPlan",
    "ToolPlanner",
    "ToolRegistry",
    "TurnAborted",
    "TurnComplete",
    "TurnContext",
    "TurnError",
    "TurnHandle",
    "TurnResult",
    "TurnStarted",
    "UpdatePlanArgs",
    "WarningEvent",
    "assistant_message",
    "custom_tool_call",
    "function_call",
    "render_plan_text",
    "repair_history",
    "turn_plan_updated",
    "user_message",
]
