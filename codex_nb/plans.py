"""Plans as ``update_plan`` makes them: its arguments and steps, the ``plan_update`` event, the text
rendering of a plan, the app-server notification that carries one, and a plan's history (the
records of ``cx.PlanTimeline`` and its widget). Loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attach as _attach

if TYPE_CHECKING:
    from .protocol.app_server import turn_plan_updated
    from .protocol.events import PlanUpdate
    from .protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
    from .render import render_plan_text
    from .timeline import PlanDiff, PlanRevision, PlanStep, StepChange
    from .widgets.timeline import PlanTimelineWidget

_LAZY = {
    "turn_plan_updated": "codex_nb.protocol.app_server",
    "PlanUpdate": "codex_nb.protocol.events",
    "PlanItemArg": "codex_nb.protocol.plan",
    "StepStatus": "codex_nb.protocol.plan",
    "UpdatePlanArgs": "codex_nb.protocol.plan",
    "render_plan_text": "codex_nb.render",
    "PlanDiff": "codex_nb.timeline",
    "PlanRevision": "codex_nb.timeline",
    "PlanStep": "codex_nb.timeline",
    "StepChange": "codex_nb.timeline",
    "PlanTimelineWidget": "codex_nb.widgets.timeline",
}

__getattr__, __dir__ = _attach(__name__, _LAZY)

__all__ = [
    "PlanDiff",
    "PlanItemArg",
    "PlanRevision",
    "PlanStep",
    "PlanTimelineWidget",
    "PlanUpdate",
    "StepChange",
    "StepStatus",
    "UpdatePlanArgs",
    "render_plan_text",
    "turn_plan_updated",
]
