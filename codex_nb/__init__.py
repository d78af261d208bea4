"""codex_nb: Codex's tool runtime in the Jupyter kernel.

``__all__`` is what a notebook needs, in groups: the session and its config, the models, the
item builders a scripted model returns, the widgets, the real sources' entry points, the errors
to catch, and the IPython extension's hooks. Everything else is imported from the package that
defines it (a public name lives where its code is; there are no re-exporting modules): the
agents a notebook brings in (``codex_nb.app_server``, ``codex_nb.acp``, ``codex_nb.responses``,
``codex_nb.mcp``, ``codex_nb.rollouts``, ``codex_nb.cassettes``), codex_nb served as an ACP agent
(``codex_nb.agent_server``), the wire types (``codex_nb.protocol``), ``codex_nb.tools``,
``codex_nb.hooks``, ``codex_nb.events``, ``codex_nb.frontend``, ``codex_nb.config``,
``codex_nb.runtime``, ``codex_nb.timeline``, ``codex_nb.render``, ``codex_nb.widgets``,
``codex_nb.errors``, ``codex_nb.testing`` and ``codex_nb.extension``. Importing this package
starts no widget, kernel or thread; it only names the factory of the notebook tools' live document
(``codex_nb._front_end``), which loads the widgets when a tool first needs the page.

The packages, lowest layer first. A module may import its own layer and the layers below, never
one above (a test reads every import to hold this), so each layer can be read and tested without
the ones above it:

1. ``protocol/`` (the wire types), ``errors``, ``_process/`` (every child process we start),
   ``_lazy``, ``_interrupt``, ``_records`` (dataclasses with shared methods), ``_version``,
   ``_front_end`` (the live document's factory, named by this module).
2. ``frontend/`` (requests that wait for a person), ``events/`` (the bus and ``EventSource``),
   ``config/``.
3. ``tools/``: registry, per-step planner, router, dispatch pipeline, built-in handlers, the
   notebook tools (``tools/notebook/``).
4. ``hooks/``, ``code_mode/`` and the adapters that bring a conversation in: ``app_server/`` (the
   real Codex), ``acp/`` (ACP agents), ``responses/`` (a Responses-API model), ``mcp/`` (MCP
   servers), ``rollouts/`` (Codex's saved sessions), ``cassettes/`` (record and replay).
5. ``runtime/`` (``Session`` and the turn loop), ``timeline/`` (the plan flight recorder).
6. ``render/``, ``widgets/``, ``extension/``, ``agent_server/``.

This module and ``codex_nb.testing`` may import anything.
"""

import typing as _typing

from . import _front_end, _lazy
from .errors import CodexNbError, ConfigError, ModelError, TurnError, TurnInterrupted


def _live_document(frontend_timeout: float) -> object:
    """The notebook this kernel serves, through the bridge widget (see ``codex_nb._front_end``)."""
    from .widgets.notebook_bridge import NotebookBridge  # the widget stack loads on first use

    return NotebookBridge(frontend_timeout=frontend_timeout)


_front_end.live_document = _live_document

# Everything else loads on first use (PEP 562 ``__getattr__`` below), so ``import codex_nb``
# costs no pydantic, asyncio, widget, V8 or HTTP machinery: the first ``cx.Session`` pays
# for the runtime once, and ``cx.PlanChecklist`` for ipywidgets/anywidget only if a
# notebook shows one. Name -> the module that defines it (see codex_nb._lazy); the
# TYPE_CHECKING block mirrors it for editors and type checkers.
_LAZY = {
    "AnswerPolicy": "codex_nb.frontend.answer_policy",
    "Config": "codex_nb.config",
    "Session": "codex_nb.runtime.session",
    "ResponsesModel": "codex_nb.responses.responses_model",
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
    "SessionsBrowser": "codex_nb.widgets.sessions_browser",
    "Transcript": "codex_nb.widgets.transcript",
    "TurnControls": "codex_nb.widgets.turn_controls",
    "image_thumbnails": "codex_nb.render.images",
    "AcpAgent": "codex_nb.acp.agent",
    "CodexAppServer": "codex_nb.app_server.server",
    "McpServers": "codex_nb.mcp.manager",
    "RolloutReplay": "codex_nb.rollouts.rollout_replay",
    "codex_sessions": "codex_nb.rollouts.sessions",
    "list_rollouts": "codex_nb.rollouts.rollout",
    "read_rollout": "codex_nb.rollouts.rollout",
}
# Public packages, reachable as attributes (``cx.hooks.Block``, ``cx.app_server.CodexThread``,
# ``cx.extension.agent()``); of these only ``hooks`` is in ``__all__``.
_LAZY_MODULES = (
    "acp",
    "agent_server",
    "app_server",
    "cassettes",
    "config",
    "events",
    "extension",
    "frontend",
    "hooks",
    "mcp",
    "protocol",
    "render",
    "responses",
    "rollouts",
    "runtime",
    "testing",
    "timeline",
    "tools",
    "widgets",
)

if _typing.TYPE_CHECKING:
    # public packages, reachable as attributes (only hooks is in __all__)
    from . import acp as acp
    from . import agent_server as agent_server
    from . import app_server as app_server
    from . import cassettes as cassettes
    from . import config as config
    from . import events as events
    from . import frontend as frontend
    from . import mcp as mcp
    from . import protocol as protocol
    from . import render as render
    from . import responses as responses
    from . import rollouts as rollouts
    from . import runtime as runtime
    from . import testing as testing
    from . import timeline as timeline
    from . import tools as tools
    from . import widgets as widgets
    from . import hooks
    from . import extension as extension  # reachable as cx.extension, kept out of __all__ (IPython)
    from .config import Config
    from .frontend.answer_policy import AnswerPolicy
    from .protocol.items import assistant_message, custom_tool_call, function_call, tool_search_call, user_message
    from .render.images import image_thumbnails
    from .runtime.models import ScriptedModel
    from .runtime.session import Session
    from .acp.agent import AcpAgent
    from .app_server.server import CodexAppServer
    from .mcp.manager import McpServers
    from .rollouts.rollout_replay import RolloutReplay
    from .responses.responses_model import ResponsesModel
    from .rollouts.rollout import list_rollouts, read_rollout
    from .rollouts.sessions import codex_sessions
    from .timeline import PlanTimeline
    from .widgets.checklist import PlanChecklist
    from .widgets.prompts import PromptsWidget
    from .widgets.replay import ReplayScrubber
    from .widgets.sessions_browser import SessionsBrowser
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
    "SessionsBrowser",
    "Transcript",
    "TurnControls",
    "image_thumbnails",
    # real sources
    "AcpAgent",
    "CodexAppServer",
    "McpServers",
    "RolloutReplay",
    "codex_sessions",
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
