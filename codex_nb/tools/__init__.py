"""Tools as Codex runs them: names, exposure, specs, the registry and per-step planner, the
router and the ordered dispatch pipeline, lifecycle outcomes, and the built-in handlers.

The package's ``__all__`` is what a tool author writes against (a tool's class, the invocation it
receives, the output it returns, the errors it raises, how it is exposed and named); everything
else is internal. The names load on first use, so importing one tool module costs no more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach as _attach

if TYPE_CHECKING:
    from .base import Tool
    from .errors import Fatal, RespondToModel
    from .exposure import ToolExposure
    from .invocation import ModeKind, ToolInvocation
    from .names import ToolName
    from .payload import ToolOutput

_LAZY = {
    "Tool": "codex_nb.tools.base",
    "Fatal": "codex_nb.tools.errors",
    "RespondToModel": "codex_nb.tools.errors",
    "ToolExposure": "codex_nb.tools.exposure",
    "ModeKind": "codex_nb.tools.invocation",
    "ToolInvocation": "codex_nb.tools.invocation",
    "ToolName": "codex_nb.tools.names",
    "ToolOutput": "codex_nb.tools.payload",
}

__getattr__, __dir__ = _attach(__name__, _LAZY)

__all__ = [
    "Fatal",
    "ModeKind",
    "RespondToModel",
    "Tool",
    "ToolExposure",
    "ToolInvocation",
    "ToolName",
    "ToolOutput",
]
