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
   ``_lazy``, ``_interrupt``, ``_version``,
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


def _live_document(frontend_timeout: float) -> object:
    from .widgets.notebook_bridge import NotebookBridge  # the widget stack loads on first use

    return NotebookBridge(frontend_timeout=frontend_timeout)


_front_end.live_document = _live_document

# The public names, in groups: each is written once, as an explicit re-export (``X as X``), and
# ``__all__`` is derived from them (codex_nb._lazy). The errors load with the package; everything
# else on first use, from the ``TYPE_CHECKING`` block below, so ``import codex_nb`` costs no
# pydantic, asyncio, widget, V8 or HTTP machinery: the first ``cx.Session`` pays for the runtime
# once, and ``cx.PlanChecklist`` for ipywidgets/anywidget only if a notebook shows one.
if _typing.TYPE_CHECKING:
    # the session and its settings
    from .frontend.answer_policy import AnswerPolicy as AnswerPolicy
    from .config import Config as Config
    from .runtime.session import Session as Session

    # models
    from .responses.responses_model import ResponsesModel as ResponsesModel
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
    from .widgets.sessions_browser import SessionsBrowser as SessionsBrowser
    from .widgets.transcript import Transcript as Transcript
    from .widgets.turn_controls import TurnControls as TurnControls
    from .widgets.compare import compare as compare
    from .render.images import image_thumbnails as image_thumbnails

    # real sources, and what every source offers
    from .acp.agent import AcpAgent as AcpAgent
    from .protocol.capabilities import AgentSource as AgentSource, Capabilities as Capabilities
    from .app_server.server import CodexAppServer as CodexAppServer
    from .mcp.manager import McpServers as McpServers
    from .rollouts.rollout_replay import RolloutReplay as RolloutReplay
    from .rollouts.sessions import codex_sessions as codex_sessions
    from .rollouts.rollout import list_rollouts as list_rollouts, read_rollout as read_rollout

    # public packages in the star import
    from . import hooks as hooks

    # public packages reachable as attributes (``cx.app_server.CodexThread``, ``cx.extension.agent()``),
    # not in the star import (``extension`` would load IPython): no ``as``, so ruff's F401 does not know them
    from . import acp, agent_server, app_server, cassettes, config, events, extension, frontend, mcp  # noqa: F401
    from . import protocol, render, responses, rollouts, runtime, testing, timeline, tools, widgets  # noqa: F401

# errors to catch
from .errors import (
    CodexNbError as CodexNbError,
    ConfigError as ConfigError,
    ModelError as ModelError,
    TurnError as TurnError,
    TurnInterrupted as TurnInterrupted,
)


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
    return _lazy_getattr(name)
