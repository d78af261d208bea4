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
   ``_lazy``, ``_interrupt``, ``_version``.
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

# The public names, in groups: each is written once, as an explicit re-export (``X as X``), and
# ``__all__`` is derived from them (codex_nb._lazy). The errors load with the package; everything
# else on first use, from the ``TYPE_CHECKING`` block below, so ``import codex_nb`` costs no
# pydantic, asyncio, widget, V8 or HTTP machinery: the first ``cx.Session`` pays for the runtime
# once, and ``cx.PlanChecklist`` for ipywidgets/anywidget only if a notebook shows one.
if _typing.TYPE_CHECKING:
    # the session and its settings
    from .frontend.answer_policy import AnswerPolicy as AnswerPolicy
    from .config import Config as Config
    from .notebook import Session as Session

    # models
    from .sources.responses.model import ResponsesModel as ResponsesModel
    from .runtime.models import ScriptedModel as ScriptedModel

    # the items a scripted model returns
    from .protocol.items import (
        assistant_message as assistant_message,
        custom_tool_call as custom_tool_call,
        function_call as function_call,
        tool_search_call as tool_search_call,
        user_message as user_message,
    )

    # widgets and displays
    from .widgets.checklist import PlanChecklist as PlanChecklist
    from .timeline import PlanTimeline as PlanTimeline
    from .widgets.prompts import PromptsWidget as PromptsWidget
    from .widgets.replay import ReplayScrubber as ReplayScrubber
    from .widgets.transcript import Transcript as Transcript
    from .widgets.turn_controls import TurnControls as TurnControls
    from .render.images import image_thumbnails as image_thumbnails

    # real sources
    from .sources.acp import AcpAgent as AcpAgent
    from .sources.app_server import CodexAppServer as CodexAppServer
    from .sources.mcp.manager import McpServers as McpServers
    from .sources.replay import RolloutReplay as RolloutReplay
    from .sources.rollout import list_rollouts as list_rollouts, read_rollout as read_rollout

    # public submodules in the star import
    from . import hooks as hooks

    # public submodules reachable as attributes (``cx.app_server.CodexThread``, ``cx.extension.agent()``),
    # not in the star import (``extension`` would load IPython): no ``as``, so ruff's F401 does not know them
    from . import acp_client, acp_server, answers, app_server, config, events, extension, history  # noqa: F401
    from . import mcp, models, plans, rollouts, testing, timeline, tools, wire  # noqa: F401

# errors to catch
from .errors import (
    CodexNbError as CodexNbError,
    ConfigError as ConfigError,
    ModelError as ModelError,
    TurnError as TurnError,
    TurnInterrupted as TurnInterrupted,
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


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext codex_nb``: a default session and the ``%%codex`` magics (see codex_nb.extension)."""
    from .extension import load_ipython_extension as load  # lazy: the extension is the top layer

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """``%unload_ext codex_nb``: interrupt running turns, close the extension's sessions and widgets."""
    from .extension import unload_ipython_extension as unload

    unload(ipython)


_lazy_getattr, __dir__ = _lazy.attach(__name__)


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
