"""codex_nb: Codex's tool runtime in the Jupyter kernel.

``__all__`` is what a notebook needs, in groups: the session and its config, the models, the
item builders a scripted model returns, the widgets, the real sources' entry points, the errors
to catch, and the IPython extension's hooks. Everything else lives in a public submodule named
for what it holds: ``codex_nb.app_server``, ``codex_nb.acp_client``, ``codex_nb.acp_server``,
``codex_nb.rollouts``, ``codex_nb.mcp``, ``codex_nb.models``, ``codex_nb.plans``,
``codex_nb.events``, ``codex_nb.tools``, ``codex_nb.hooks``, ``codex_nb.answers``,
``codex_nb.history``, ``codex_nb.wire``, ``codex_nb.config``, ``codex_nb.errors``,
``codex_nb.testing`` and ``codex_nb.extension``; the other packages are internal. Importing this
package has no side effects: nothing is registered globally and no widget, kernel or thread is
started.

The internal packages, lowest layer first. A module may import its own layer and the layers
below, never one above (a test reads every import to hold this), so each layer can be read and
tested without the ones above it:

1. ``protocol/`` (the wire types), ``errors``, ``_process/`` (every child process we start),
   ``_lazy``, ``_interrupt``, ``_records`` (dataclasses with shared methods), ``_version``.
2. ``frontend/`` (requests that wait for a person), ``events/`` (the bus and ``EventSource``),
   ``config/``.
3. ``tools/``: registry, per-step planner, router, dispatch pipeline, built-in handlers.
4. ``hooks/``, ``code_mode/``, ``sources/`` (real models, the Codex app-server, ACP agents,
   rollouts, MCP servers).
5. ``runtime/`` (``Session`` and the turn loop), ``timeline/`` (the plan flight recorder).
6. ``render/``, ``widgets/``, ``extension/``, ``notebook``, ``acp_server/`` and the thin public
   modules named above.

This module and ``codex_nb.testing`` may import anything.
"""

import typing as _typing

from . import _lazy
from .errors import CodexNbError, ConfigError, ModelError, TurnError, TurnInterrupted

# Everything else loads on first use (PEP 562 ``__getattr__`` below), so ``import codex_nb``
# costs no pydantic, asyncio, widget, V8 or HTTP machinery: the first ``cx.Session`` pays
# for the runtime once, and ``cx.PlanChecklist`` for ipywidgets/anywidget only if a
# notebook shows one. Name -> the module that defines it (see codex_nb._lazy); the
# TYPE_CHECKING block mirrors it for editors and type checkers.
_LAZY = {
    "AnswerPolicy": "codex_nb.frontend.answer_policy",
    "Config": "codex_nb.config",
    "Session": "codex_nb.notebook",
    "ResponsesModel": "codex_nb.sources.responses.model",
    "ScriptedModel": "codex_nb.runtime.models",
    "assistant_message": "codex_nb.protocol.items",
    "custom_tool_call": "codex_nb.protocol.items",
    "function_call": "codex_nb.protocol.items",
    "tool_search_call": "codex_nb.protocol.items",
    "user_message": "codex_nb.protocol.items",
    "PlanChecklist": "codex_nb.widgets.checklist",
    "PlanTimeline": "codex_nb.timeline",
    "PromptsWidget": "codex_nb.widgets.prompts",
    "ReplayScrubber": "codex_nb.widgets.replay",
    "Transcript": "codex_nb.widgets.transcript",
    "TurnControls": "codex_nb.widgets.turn_controls",
    "compare": "codex_nb.widgets.compare",
    "image_thumbnails": "codex_nb.render.images",
    "AcpAgent": "codex_nb.sources.acp",
    "CodexAppServer": "codex_nb.sources.app_server",
    "McpServers": "codex_nb.sources.mcp.manager",
    "RolloutReplay": "codex_nb.sources.replay",
    "list_rollouts": "codex_nb.sources.rollout",
    "read_rollout": "codex_nb.sources.rollout",
}
# Public submodules, reachable as attributes (``cx.hooks.Block``, ``cx.app_server.CodexThread``,
# ``cx.extension.agent()``); of these only ``hooks`` is in ``__all__``.
_LAZY_MODULES = (
    "acp_client",
    "acp_server",
    "answers",
    "app_server",
    "config",
    "events",
    "extension",
    "history",
    "hooks",
    "mcp",
    "models",
    "plans",
    "rollouts",
    "testing",
    "timeline",
    "tools",
    "wire",
)
# Names that left the top level, each -> its public home. ``cx.X`` still works for one release,
# with a DeprecationWarning naming the new home; it is not cached, so every use warns.
_MOVED = {
    "TURN_ABORTED_MARKER": "codex_nb.history",
    "AcpAuthError": "codex_nb.acp_client",
    "AcpError": "codex_nb.acp_client",
    "AnswerError": "codex_nb.answers",
    "AnswerPolicyError": "codex_nb.answers",
    "AppServerError": "codex_nb.app_server",
    "AppServerExited": "codex_nb.app_server",
    "AppServerProtocolError": "codex_nb.app_server",
    "AppServerRpcError": "codex_nb.app_server",
    "AppServerTimeout": "codex_nb.app_server",
    "CodeModeSettings": "codex_nb.config",
    "CodexBinaryError": "codex_nb.app_server",
    "CodexThread": "codex_nb.app_server",
    "Event": "codex_nb.events",
    "EventSource": "codex_nb.events",
    "Fatal": "codex_nb.tools",
    "HookError": "codex_nb.errors",
    "ModeKind": "codex_nb.tools",
    "Model": "codex_nb.models",
    "ModelRequest": "codex_nb.models",
    "PlanItemArg": "codex_nb.plans",
    "PlanUpdate": "codex_nb.plans",
    "RecordingSubscriber": "codex_nb.testing",
    "ReplayError": "codex_nb.rollouts",
    "RespondToModel": "codex_nb.tools",
    "Rollout": "codex_nb.rollouts",
    "RolloutError": "codex_nb.rollouts",
    "ScriptedModelError": "codex_nb.errors",
    "StepStatus": "codex_nb.plans",
    "TokenUsage": "codex_nb.models",
    "Tool": "codex_nb.tools",
    "ToolCallError": "codex_nb.errors",
    "ToolCollisionError": "codex_nb.errors",
    "ToolDefinitionError": "codex_nb.errors",
    "ToolExposure": "codex_nb.tools",
    "ToolInvocation": "codex_nb.tools",
    "ToolOutput": "codex_nb.tools",
    "UpdatePlanArgs": "codex_nb.plans",
    "render_plan_text": "codex_nb.plans",
    "turn_plan_updated": "codex_nb.plans",
}

if _typing.TYPE_CHECKING:
    # public submodules, reachable as attributes (only hooks is in __all__)
    from . import acp_client as acp_client
    from . import acp_server as acp_server
    from . import answers as answers
    from . import app_server as app_server
    from . import config as config
    from . import events as events
    from . import history as history
    from . import mcp as mcp
    from . import models as models
    from . import plans as plans
    from . import rollouts as rollouts
    from . import testing as testing
    from . import timeline as timeline
    from . import tools as tools
    from . import wire as wire
    from . import hooks
    from . import extension as extension  # reachable as cx.extension, kept out of __all__ (IPython)
    from .config import Config
    from .frontend.answer_policy import AnswerPolicy
    from .notebook import Session
    from .protocol.items import assistant_message, custom_tool_call, function_call, tool_search_call, user_message
    from .render.images import image_thumbnails
    from .runtime.models import ScriptedModel
    from .sources.acp import AcpAgent
    from .sources.app_server import CodexAppServer
    from .sources.mcp.manager import McpServers
    from .sources.replay import RolloutReplay
    from .sources.responses.model import ResponsesModel
    from .sources.rollout import list_rollouts, read_rollout
    from .timeline import PlanTimeline
    from .widgets.checklist import PlanChecklist
    from .widgets.compare import compare
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
    home = _MOVED.get(name)
    if home is not None:
        import importlib
        import warnings

        warnings.warn(f"codex_nb.{name} is deprecated; use {home}.{name}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(home), name)
    return _lazy_getattr(name)


# In groups (each sorted): sessions, models, item builders, widgets, sources, errors, submodules,
# the IPython extension's hooks. tests/project/test_exported_members.py holds the groups.
__all__ = [
    # the session and its settings
    "AnswerPolicy",
    "Config",
    "Session",
    # models
    "ResponsesModel",
    "ScriptedModel",
    # the items a scripted model returns
    "assistant_message",
    "custom_tool_call",
    "function_call",
    "tool_search_call",
    "user_message",
    # widgets and displays
    "PlanChecklist",
    "PlanTimeline",
    "PromptsWidget",
    "ReplayScrubber",
    "Transcript",
    "TurnControls",
    "compare",
    "image_thumbnails",
    # real sources
    "AcpAgent",
    "CodexAppServer",
    "McpServers",
    "RolloutReplay",
    "list_rollouts",
    "read_rollout",
    # errors to catch
    "CodexNbError",
    "ConfigError",
    "ModelError",
    "TurnError",
    "TurnInterrupted",
    # public submodules in the star import (cx.extension stays out: it loads IPython)
    "hooks",
    # the IPython extension's entry points (%load_ext codex_nb)
    "load_ipython_extension",
    "unload_ipython_extension",
]
