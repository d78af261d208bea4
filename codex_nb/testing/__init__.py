"""Strict fakes and real local servers shipped in the package for tests and notebooks.

``ScriptedModel`` is re-exported from here; ``RecordingSubscriber`` keeps the ordered
event log of a session; ``ResponsesServer`` serves scripted Responses-API streams over
real HTTP on 127.0.0.1; ``codex_binary()`` finds the pinned reference Codex. The server
modules load on first use so ``import codex_nb`` stays fast. ``NBVAL_SANITIZE`` is the path of
the nbval sanitizer rules for agent notebooks (``pytest --nbval --nbval-sanitize-with``).

Modules:

* ``acp_agents``: the pinned codex-acp agent.
* ``codex_ref``: the pinned reference Codex binary.
* ``nbval``: where the nbval sanitizer rules for agent notebooks are.
* ``nbval_displays``: a pytest plugin; nbval compares a display updated in place at its final state.
* ``notebook_document``: ``MemoryNotebook``, an in-memory open notebook for the notebook tools.
* ``recording``: ``RecordingSubscriber`` for whole-log assertions.
* ``responses_server``: a scripted Responses-API server on 127.0.0.1.
* ``sample_home``: a small Codex home with saved sessions (``SAMPLE_CODEX_HOME``).

Layer: outside the layers; it may import anything, and within the package only the public API
(``codex_nb/__init__.py``) imports it, lazily.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach as _attach
from .nbval import NBVAL_SANITIZE
from .recording import ModelRequest, RecordingSubscriber, ScriptedModel
from .sample_home import SAMPLE_CODEX_HOME

if TYPE_CHECKING:
    from .acp_agents import CodexAcpNotFound, codex_acp_binary, pinned_codex_acp_version, write_codex_acp_home
    from .codex_ref import CodexNotFound, codex_binary, codex_config_toml, pinned_codex_version
    from .notebook_document import MemoryNotebook
    from .responses_server import (
        CutStream,
        Events,
        Garbage,
        HttpError,
        Raw,
        Redirect,
        ResponsesServer,
        ResponsesServerError,
        Stall,
    )

_LAZY = {
    "CodexAcpNotFound": "codex_nb.testing.acp_agents",
    "codex_acp_binary": "codex_nb.testing.acp_agents",
    "pinned_codex_acp_version": "codex_nb.testing.acp_agents",
    "write_codex_acp_home": "codex_nb.testing.acp_agents",
    "MemoryNotebook": "codex_nb.testing.notebook_document",
    "CodexNotFound": "codex_nb.testing.codex_ref",
    "codex_binary": "codex_nb.testing.codex_ref",
    "codex_config_toml": "codex_nb.testing.codex_ref",
    "pinned_codex_version": "codex_nb.testing.codex_ref",
    "CutStream": "codex_nb.testing.responses_server",
    "Events": "codex_nb.testing.responses_server",
    "Garbage": "codex_nb.testing.responses_server",
    "HttpError": "codex_nb.testing.responses_server",
    "Raw": "codex_nb.testing.responses_server",
    "Redirect": "codex_nb.testing.responses_server",
    "ResponsesServer": "codex_nb.testing.responses_server",
    "ResponsesServerError": "codex_nb.testing.responses_server",
    "Stall": "codex_nb.testing.responses_server",
}


__getattr__, __dir__ = _attach(__name__, _LAZY)


__all__ = [
    "CodexAcpNotFound",
    "CodexNotFound",
    "CutStream",
    "Events",
    "Garbage",
    "HttpError",
    "MemoryNotebook",
    "ModelRequest",
    "NBVAL_SANITIZE",
    "Raw",
    "RecordingSubscriber",
    "Redirect",
    "ResponsesServer",
    "ResponsesServerError",
    "SAMPLE_CODEX_HOME",
    "ScriptedModel",
    "Stall",
    "codex_acp_binary",
    "codex_binary",
    "codex_config_toml",
    "pinned_codex_acp_version",
    "pinned_codex_version",
    "write_codex_acp_home",
]
