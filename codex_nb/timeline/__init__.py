"""The plan flight recorder: every plan revision of an event source, their diffs and reports.

``PlanTimeline`` (``cx.PlanTimeline``) records; the record types (``PlanRevision``,
``PlanStep``, ``PlanDiff``, ``StepChange``, ``DroppedRevision``, ``SourceKind``, ``PlanProposal``) are in
``codex_nb.timeline.records`` and re-exported here.

Modules:

* ``diff``: step-level comparison of two snapshots.
* ``recorder``: ``PlanTimeline``, one record per accepted revision.
* ``records``: the record types.
* ``report``: JSON, Markdown and text reports.
* ``why``: why a turn ended without a plan (``NoPlan``), from what the source showed.

Layer: beside ``runtime/``; it may import ``hooks/``, ``code_mode/``, the adapters and everything
below, and no lower layer imports it.
"""

from .records import DroppedRevision, PlanDiff, PlanProposal, PlanRevision, PlanStep, SourceKind, StepChange
from .recorder import PlanTimeline
from .why import NoPlan

__all__ = [
    "DroppedRevision",
    "NoPlan",
    "PlanDiff",
    "PlanProposal",
    "PlanRevision",
    "PlanStep",
    "PlanTimeline",
    "SourceKind",
    "StepChange",
]
