"""Plans as ``update_plan`` makes them: its arguments and steps, the ``plan_update`` event, the text
rendering of a plan, the app-server notification that carries one, and a plan's history (the
records of ``cx.PlanTimeline`` and its widget). Loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attach as _attach

if TYPE_CHECKING:  # loaded on first use (codex_nb._lazy); __all__ is derived
    from .protocol.app_server import turn_plan_updated as turn_plan_updated
    from .protocol.events import PlanUpdate as PlanUpdate
    from .protocol.plan import PlanItemArg as PlanItemArg, StepStatus as StepStatus, UpdatePlanArgs as UpdatePlanArgs
    from .render import render_plan_text as render_plan_text
    from .timeline import (
        PlanDiff as PlanDiff,
        PlanRevision as PlanRevision,
        PlanStep as PlanStep,
        StepChange as StepChange,
    )
    from .widgets.timeline import PlanTimelineWidget as PlanTimelineWidget

__getattr__, __dir__ = _attach(__name__)
