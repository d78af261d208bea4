"""The models a session samples: ``ScriptedModel`` (scripted responses, for tests and teaching) and
``ResponsesModel`` (any Responses-API server), both also ``cx`` names, and the ``Model`` protocol your
own model implements, with the request it receives and the usage it reports. Loaded on first use, so
a scripted notebook never loads the HTTP client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attach as _attach

if TYPE_CHECKING:  # loaded on first use (codex_nb._lazy); __all__ is derived
    from .protocol.model import Model as Model, ModelRequest as ModelRequest
    from .protocol.model_stream import TokenUsage as TokenUsage
    from .runtime.models import ScriptedModel as ScriptedModel
    from .sources.responses.model import ResponsesModel as ResponsesModel

__getattr__, __dir__ = _attach(__name__)
