"""codex_nb: Codex's tool runtime in the Jupyter kernel. Public API (DESIGN.md §3).

Importing this package has no side effects: nothing is registered globally and no
widget, kernel or thread is started.
"""

from .code_mode.settings import CodeModeSettings, ToolMode
from .code_mode.typescript import render_json_schema_to_typescript
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
from . import hooks
from .hooks import (
    HookCompleted,
    HookEngine,
    HookInfo,
    HookOutputEntry,
    HookRunSummary,
    HookStarted,
    PostToolUseInput,
    PreToolUseInput,
)
from .protocol.app_server import turn_plan_updated
from .protocol.events import (
    AgentMessage,
    ErrorEvent,
    Event,
    EventMsg,
    ItemCompleted,
    ItemStarted,
    PlanUpdate,
    TurnAborted,
    TurnComplete,
    TurnStarted,
    WarningEvent,
)
from .protocol.frontend import (
    FrontendRequestResolved,
    PermissionProfile,
    RequestPermissionsEvent,
    RequestPermissionsResponse,
    RequestUserInputEvent,
)
from .protocol.items import assistant_message, custom_tool_call, function_call, tool_search_call, user_message
from .protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from .render import render_plan_text
from .render.images import image_thumbnails
from .runtime.answer_policy import ENV_VAR as ANSWER_POLICY_ENV
from .runtime.answer_policy import AnswerPolicy, AnswerPolicyError
from .runtime.cancellation import CancelSource, CancelToken
from .runtime.frontend_requests import AnswerError, FrontendRequest, FrontendRequests
from .runtime.history import repair_history
from .runtime.models import ModelRequest, ScriptedModel
from .runtime.session import CallToolResult, Session, TurnHandle
from .runtime.turn import TURN_ABORTED_MARKER, TurnResult
from .sources.mcp.config import McpServerConfig
from .sources.mcp.connection import McpConnection
from .sources.mcp.manager import McpServers
from .testing import RecordingSubscriber
from .tools.base import Tool
from .tools.errors import Fatal, RespondToModel
from .tools.exposure import ToolExposure
from .tools.handlers.request_permissions import granted_permissions
from .tools.handlers.tool_search import ToolSearchTool
from .tools.invocation import ModeKind, PendingInput, ToolInvocation, TurnContext
from .tools.lifecycle import ControlToolCallFact, ControlToolStatus, LifecycleRecord, ToolCallOutcome
from .tools.names import ToolName
from .tools.payload import ToolOutput
from .tools.planner import ToolPlan, ToolPlanner
from .tools.registry import ToolRegistry

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
    "ANSWER_POLICY_ENV",
    "TURN_ABORTED_MARKER",
    "AgentMessage",
    "AnswerError",
    "AnswerPolicy",
    "AnswerPolicyError",
    "CallToolResult",
    "CancelSource",
    "CancelToken",
    "CodeModeSettings",
    "CodexNbError",
    "Config",
    "ConfigError",
    "ControlToolCallFact",
    "ControlToolStatus",
    "ErrorEvent",
    "Event",
    "EventMsg",
    "Fatal",
    "FrontendRequest",
    "FrontendRequestResolved",
    "FrontendRequests",
    "HookCompleted",
    "HookEngine",
    "HookError",
    "HookInfo",
    "HookOutputEntry",
    "HookRunSummary",
    "HookStarted",
    "ItemCompleted",
    "ItemStarted",
    "LifecycleRecord",
    "McpConnection",
    "McpServerConfig",
    "McpServers",
    "ModeKind",
    "ModelRequest",
    "PendingInput",
    "PermissionProfile",
    "PlanChecklist",
    "PlanItemArg",
    "PlanUpdate",
    "PostToolUseInput",
    "PreToolUseInput",
    "PromptsWidget",
    "RecordingSubscriber",
    "RequestPermissionsEvent",
    "RequestPermissionsResponse",
    "RequestUserInputEvent",
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
    "ToolMode",
    "ToolName",
    "ToolOutput",
    "ToolPlan",
    "ToolPlanner",
    "ToolRegistry",
    "ToolSearchTool",
    "TurnAborted",
    "TurnComplete",
    "TurnContext",
    "TurnControls",
    "TurnError",
    "TurnHandle",
    "TurnResult",
    "TurnStarted",
    "UpdatePlanArgs",
    "WarningEvent",
    "assistant_message",
    "custom_tool_call",
    "function_call",
    "granted_permissions",
    "hooks",
    "image_thumbnails",
    "render_json_schema_to_typescript",
    "render_plan_text",
    "repair_history",
    "tool_search_call",
    "turn_plan_updated",
    "user_message",
]
