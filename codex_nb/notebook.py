"""The notebook's ``Session``: the runtime session plus shortcuts that make its widgets.

``runtime.Session`` is complete without widgets (layers run one way: runtime/ never
imports widgets/). This module sits beside the widgets, above runtime/, and adds
``checklist()``, ``prompts()`` and ``turn_controls()``; ``codex_nb.Session`` is this
class. The widget modules (ipywidgets, anywidget: ~0.7 s) load on the first shortcut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .runtime.session import Session as RuntimeSession

if TYPE_CHECKING:
    from .widgets.checklist import PlanChecklist
    from .widgets.prompts import PromptsWidget
    from .widgets.turn_controls import TurnControls


class Session(RuntimeSession):
    """One conversation thread (see ``runtime.session.Session``) with widget shortcuts."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.notebook_tools.enabled:  # the document tools reach the page through the bridge widget
            self.workspace.set_document(self._notebook_bridge)

    def _notebook_bridge(self) -> Any:
        from .widgets.notebook_bridge import NotebookBridge

        return NotebookBridge(frontend_timeout=self.config.notebook_tools.frontend_timeout_seconds)

    def checklist(self, **options: Any) -> PlanChecklist:
        """A live ``PlanChecklist`` widget of this session (options: width, max_rate)."""
        from .widgets.checklist import PlanChecklist

        return PlanChecklist(self, **options)

    def prompts(self) -> PromptsWidget:
        """The prompts widget of this session (questions and permission requests); display it."""
        from .widgets.prompts import PromptsWidget

        return PromptsWidget(self)

    def turn_controls(self) -> TurnControls:
        """A ``TurnControls`` widget: this session's turn state and a Stop button."""
        from .widgets.turn_controls import TurnControls

        return TurnControls(self)
