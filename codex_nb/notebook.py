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
    """One conversation thread: its tools, hooks, history and turns, plus widget shortcuts.

    ``run_turn`` runs a turn to its end; in a notebook, ``start_turn`` returns a handle at once
    and the turn runs in the background while the widgets follow it.

    ```pycon
    >>> import asyncio, codex_nb as cx
    >>> session = cx.Session()  # the notebook profile: update_plan is on
    >>> checklist = session.checklist()  # display it in a notebook cell
    >>> plan = {"plan": [{"step": "Fix it", "status": "in_progress"}]}
    >>> model = cx.ScriptedModel([[cx.function_call("update_plan", plan)], [cx.assistant_message("done")]])
    >>> result = asyncio.run(session.run_turn("fix the bug", model=model))
    >>> result.status, result.last_agent_message
    ('completed', 'done')
    >>> print(checklist.text())
    • Updated Plan
      └ □ Fix it
    >>> checklist.close()

    ```
    """

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
