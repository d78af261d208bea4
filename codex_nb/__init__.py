"""codex_nb: Codex's tool runtime in the Jupyter kernel.

``__all__`` is what a notebook user needs: sessions, models, config, the item
builders, events and plans, the widgets, the pieces a tool or hook author writes
against, and the errors. Everything else stays importable from its own module
(``codex_nb.tools.planner``, ``codex_nb.runtime.records`` ...). Importing this package
has no side effects: nothing is registered globally and no widget, kernel or thread
is started.
"""

import typing as _typing

from . import _lazy
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
    TurnInterrupted,
)
from .tools.errors import Fatal, RespondToModel

# Everything else loads on first use (PEP 562 ``__getattr__`` below), so ``import codex_nb``
# costs no pydantic, asyncio, widget, V8 or HTTP machinery: the first ``cx.Session`` pays
# for the runtime once, and ``cx.PlanChecklist`` for ipywidgets/anywidget only if a
# notebook shows one. Name -> the module that defines it (see codex_nb._lazy); the
# TYPE_CHECKING block mirrors it for editors and type checkers.
_LAZY = {
    "AcpAgent": "codex_nb.sources.acp",
    "AcpAuthError": "codex_nb.sources.acp",
    "AcpError": "codex_nb.sources.acp",
    "AnswerError": "codex_nb.frontend.requests",
    "AnswerPolicy": "codex_nb.frontend.answer_policy",
    "AnswerPolicyError": "codex_nb.frontend.answer_policy",
    "AppServerError": "codex_nb.sources.app_server",
    "AppServerExited": "codex_nb.sources.app_server",
    "AppServerProtocolError": "codex_nb.sources.app_server",
    "AppServerRpcError": "codex_nb.sources.app_server",
    "AppServerTimeout": "codex_nb.sources.app_server",
    "CodeModeSettings": "codex_nb.config",
    "CodexAppServer": "codex_nb.sources.app_server",
    "CodexBinaryError": "codex_nb.sources.app_server",
    "CodexThread": "codex_nb.sources.app_server",
    "Config": "codex_nb.config",
    "Event": "codex_nb.protocol.events",
    "EventSource": "codex_nb.events.source",
    "McpServers": "codex_nb.sources.mcp.manager",
    "ModeKind": "codex_nb.tools.invocation",
    "Model": "codex_nb.protocol.model",
    "ModelRequest": "codex_nb.protocol.model",
    "PlanChecklist": "codex_nb.widgets.checklist",
    "PlanItemArg": "codex_nb.protocol.plan",
    "PlanTimeline": "codex_nb.timeline",
    "PlanUpdate": "codex_nb.protocol.events",
    "PromptsWidget": "codex_nb.widgets.prompts",
    "RecordingSubscriber": "codex_nb.testing",
    "ReplayError": "codex_nb.sources.replay",
    "ReplayScrubber": "codex_nb.widgets.replay",
    "ResponsesModel": "codex_nb.sources.responses.model",
    "Rollout": "codex_nb.sources.rollout",
    "RolloutError": "codex_nb.sources.rollout",
    "RolloutReplay": "codex_nb.sources.replay",
    "ScriptedModel": "codex_nb.runtime.models",
    "Session": "codex_nb.notebook",
    "StepStatus": "codex_nb.protocol.plan",
    "TURN_ABORTED_MARKER": "codex_nb.runtime.turn",
    "TokenUsage": "codex_nb.protocol.model_stream",
    "Tool": "codex_nb.tools.base",
    "ToolExposure": "codex_nb.tools.exposure",
    "ToolInvocation": "codex_nb.tools.invocation",
    "ToolOutput": "codex_nb.tools.payload",
    "Transcript": "codex_nb.widgets.transcript",
    "TurnControls": "codex_nb.widgets.turn_controls",
    "UpdatePlanArgs": "codex_nb.protocol.plan",
    "assistant_message": "codex_nb.protocol.items",
    "custom_tool_call": "codex_nb.protocol.items",
    "function_call": "codex_nb.protocol.items",
    "image_thumbnails": "codex_nb.render.images",
    "list_rollouts": "codex_nb.sources.rollout",
    "read_rollout": "codex_nb.sources.rollout",
    "render_plan_text": "codex_nb.render",
    "tool_search_call": "codex_nb.protocol.items",
    "turn_plan_updated": "codex_nb.protocol.app_server",
    "user_message": "codex_nb.protocol.items",
}
# Subpackages that are public attributes (``cx.hooks.Block``, ``cx.extension.agent()``).
_LAZY_MODULES = ("extension", "hooks")

if _typing.TYPE_CHECKING:
    from . import extension as extension  # reachable as cx.extension, kept out of __all__ (IPython)
    from . import hooks
    from .config import CodeModeSettings, Config
    from .events.source import EventSource
    from .frontend.answer_policy import AnswerPolicy, AnswerPolicyError
    from .frontend.requests import AnswerError
    from .notebook import Session
    from .protocol.app_server import turn_plan_updated
    from .protocol.events import Event, PlanUpdate
    from .protocol.items import assistant_message, custom_tool_call, function_call, tool_search_call, user_message
    from .protocol.model import Model, ModelRequest
    from .protocol.model_stream import TokenUsage
    from .protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
    from .render import render_plan_text
    from .render.images import image_thumbnails
    from .runtime.models import ScriptedModel
    from .runtime.turn import TURN_ABORTED_MARKER
    from .sources.acp import AcpAgent, AcpAuthError, AcpError
    from .sources.app_server import (
        AppServerError,
        AppServerExited,
        AppServerProtocolError,
        AppServerRpcError,
        AppServerTimeout,
        CodexAppServer,
        CodexBinaryError,
        CodexThread,
    )
    from .sources.mcp.manager import McpServers
    from .sources.replay import ReplayError, RolloutReplay
    from .sources.responses.model import ResponsesModel
    from .sources.rollout import Rollout, RolloutError, list_rollouts, read_rollout
    from .testing import RecordingSubscriber
    from .timeline import PlanTimeline
    from .tools.base import Tool
    from .tools.exposure import ToolExposure
    from .tools.invocation import ModeKind, ToolInvocation
    from .tools.payload import ToolOutput
    from .widgets.checklist import PlanChecklist
    from .widgets.prompts import PromptsWidget
    from .widgets.replay import ReplayScrubber
    from .widgets.transcript import Transcript
    from .widgets.turn_controls import TurnControls


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext codex_nb``: a default session and the ``%%codex`` magics (see codex_nb.extension)."""
    from .extension import load_ipython_extension as load  # lazy: the extension is the top layer

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """``%unload_ext codex_nb``: interrupt running turns, close the extension's sessions and widgets."""
    from .extension import unload_ipython_extension as unload

    unload(ipython)


_lazy_getattr, __dir__ = _lazy.attach(__name__, _LAZY, _LAZY_MODULES)


def __getattr__(name: str) -> object:
    if name == "__version__":  # read from the installed metadata on first use, not at import
        from ._version import __version__

        globals()["__version__"] = __version__
        return __version__
    return _lazy_getattr(name)


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
    "PlanTimeline",
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
    "TurnInterrupted",
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
