"""The plan flight recorder: every plan revision of an event source, their diffs and reports.

``PlanTimeline`` (``cx.PlanTimeline``) records; the record types (``PlanRevision``,
``PlanStep``, ``PlanDiff``, ``StepChange``, ``DroppedRevision``, ``SourceKind``) are in
``codex_nb.timeline.records`` and re-exported here.
"""

from .records import DroppedRevision, PlanDiff, PlanRevision, PlanStep, SourceKind, StepChange
from .recorder import PlanTimeline

__all__ = ["DroppedRevision", "PlanDiff", "PlanRevision", "PlanStep", "PlanTimeline", "SourceKind", "StepChange"]
