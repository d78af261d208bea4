"""The models a session samples: ``ScriptedModel`` (scripted responses, for tests and teaching) and
``ResponsesModel`` (any Responses-API server), both also ``cx`` names, and the ``Model`` protocol your
own model implements, with the request it receives and the usage it reports. Loaded on first use, so
a scripted notebook never loads the HTTP client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attach as _attach

if TYPE_CHECKING:
    from .protocol.model import Model, ModelRequest
    from .protocol.model_stream import TokenUsage
    from .runtime.models import ScriptedModel
    from .sources.responses.model import ResponsesModel

_LAZY = {
    "Model": "codex_nb.protocol.model",
    "ModelRequest": "codex_nb.protocol.model",
    "TokenUsage": "codex_nb.protocol.model_stream",
    "ScriptedModel": "codex_nb.runtime.models",
    "ResponsesModel": "codex_nb.sources.responses.model",
}

__getattr__, __dir__ = _attach(__name__, _LAZY)

__all__ = [
    "Model",
    "ModelRequest",
    "ResponsesModel",
    "ScriptedModel",
    "TokenUsage",
]
