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
from .nbval import NBVAL_SANITIZE as NBVAL_SANITIZE
from .recording import (
    ModelRequest as ModelRequest,
    RecordingSubscriber as RecordingSubscriber,
    ScriptedModel as ScriptedModel,
)
from .sample_home import SAMPLE_CODEX_HOME as SAMPLE_CODEX_HOME

if TYPE_CHECKING:  # loaded on first use (codex_nb._lazy); __all__ is derived
    from .acp_agents import (
        CodexAcpNotFound as CodexAcpNotFound,
        codex_acp_binary as codex_acp_binary,
        pinned_codex_acp_version as pinned_codex_acp_version,
        write_codex_acp_home as write_codex_acp_home,
    )
    from .codex_ref import (
        CodexNotFound as CodexNotFound,
        codex_binary as codex_binary,
        codex_config_toml as codex_config_toml,
        pinned_codex_version as pinned_codex_version,
    )
    from .notebook_document import MemoryNotebook as MemoryNotebook
    from .responses_server import (
        CutStream as CutStream,
        Events as Events,
        Garbage as Garbage,
        HttpError as HttpError,
        Raw as Raw,
        Redirect as Redirect,
        ResponsesServer as ResponsesServer,
        ResponsesServerError as ResponsesServerError,
        Stall as Stall,
    )

__getattr__, __dir__ = _attach(__name__)
