"""Strict fakes and real local servers shipped in the package for tests and notebooks.

``ScriptedModel`` is re-exported from here; ``RecordingSubscriber`` keeps the ordered
event log of a session; ``ResponsesServer`` serves scripted Responses-API streams over
real HTTP on 127.0.0.1; ``codex_binary()`` finds the pinned reference Codex. The server
modules load on first use so ``import codex_nb`` stays fast. ``NBVAL_SANITIZE`` is the path of
the nbval sanitizer rules for agent notebooks (``pytest --nbval --nbval-sanitize-with``).

Modules:

* ``acp_agents``: the pinned ACP agents (the agent suite's three, and the legacy codex-acp).
* ``anthropic_server``: a scripted Anthropic Messages-API server on 127.0.0.1 (Claude Code).
* ``codex_ref``: the pinned reference Codex binary.
* ``gemini_server``: a scripted Gemini-API server on 127.0.0.1 (Gemini CLI).
* ``nbval``: where the nbval sanitizer rules for agent notebooks are.
* ``nbval_displays``: a pytest plugin; nbval compares a display updated in place at its final state.
* ``notebook_document``: ``MemoryNotebook``, an in-memory open notebook for the notebook tools.
* ``recording``: ``RecordingSubscriber`` for whole-log assertions.
* ``responses_server``: a scripted Responses-API server on 127.0.0.1.
* ``sample_home``: a small Codex home with saved sessions (``SAMPLE_CODEX_HOME``).
* ``sse_server``: what the scripted servers share (lifecycle, strict script, faults, SSE).

Layer: outside the layers; it may import anything, and within the package only the public API
(``codex_nb/__init__.py``) imports it, lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach as _attach
from .nbval import NBVAL_SANITIZE as NBVAL_SANITIZE
from .recording import (
    ModelRequest as ModelRequest,
    RecordingSubscriber as RecordingSubscriber,
    ScriptedModel as ScriptedModel,
)
from .sample_home import SAMPLE_CODEX_HOME as SAMPLE_CODEX_HOME

if TYPE_CHECKING:  # loaded on first use (codex_nb._lazy); __all__ is derived
    from .acp_agents import (
        ACP_AGENTS as ACP_AGENTS,
        AcpAgentNotFound as AcpAgentNotFound,
        CodexAcpNotFound as CodexAcpNotFound,
        acp_agent as acp_agent,
        codex_acp_binary as codex_acp_binary,
        pinned_codex_acp_version as pinned_codex_acp_version,
        write_codex_acp_home as write_codex_acp_home,
    )
    from .anthropic_server import AnthropicServer as AnthropicServer
    from .codex_ref import (
        CodexNotFound as CodexNotFound,
        codex_binary as codex_binary,
        codex_config_toml as codex_config_toml,
        pinned_codex_version as pinned_codex_version,
    )
    from .gemini_server import GeminiServer as GeminiServer
    from .notebook_document import MemoryNotebook as MemoryNotebook
    from .responses_server import (
        CutStream as CutStream,
        Events as Events,
        Garbage as Garbage,
        Raw as Raw,
        Redirect as Redirect,
        ResponsesServer as ResponsesServer,
        ResponsesServerError as ResponsesServerError,
    )
    from .sse_server import HttpError as HttpError, Stall as Stall

__getattr__, __dir__ = _attach(__name__)
