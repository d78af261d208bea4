"""The plan flight recorder: every plan revision of an event source, their diffs and reports.

``PlanTimeline`` (``cx.PlanTimeline``) records; the record types (``PlanRevision``,
``PlanStep``, ``PlanDiff``, ``StepChange``, ``DroppedRevision``, ``SourceKind``, ``PlanProposal``,
``TurnUsage``, ``TurnChanges``, ``FileChange``, ``GoalRecord``) are in
``codex_nb.timeline.records`` and re-exported here.

Modules:

* ``answers``: ``PlanAnswers``, a person's comments, suggestions and decisions on the plan, sent to the agent.
* ``answer_records``: their records (``StepComment``, ``PlanSuggestion``, ``ProposalAnswer``).
* ``diff``: step-level comparison of two snapshots.
* ``recorder``: ``PlanTimeline``, one record per accepted revision.
* ``records``: the record types.
* ``report``: JSON, Markdown and text reports.
* ``suggestions``: a suggested change's readable diff and whether the next snapshot adopted it.
* ``why``: why a turn ended without a plan (``NoPlan``), from what the source showed.

Layer: beside ``runtime/``; it may import ``hooks/``, ``code_mode/``, the adapters and everything
below, and no lower layer imports it.
"""

from .answer_records import PlanAnswerError, PlanSuggestion, ProposalAnswer, StepComment
from .answers import PlanAnswers
from .records import (
    AgentNotice,
    ConversationMessage,
    DroppedRevision,
    PlanDiff,
    PlanProposal,
    PlanRevision,
    PlanStep,
    SourceKind,
    StepChange,
    TurnChanges,
    FileChange,
    GoalRecord,
    TurnUsage,
)
from .recorder import PlanTimeline
from .why import NoPlan

__all__ = [
    "DroppedRevision",
    "NoPlan",
    "PlanAnswerError",
    "PlanAnswers",
    "PlanDiff",
    "PlanProposal",
    "AgentNotice",
    "ConversationMessage",
    "PlanRevision",
    "PlanStep",
    "PlanSuggestion",
    "PlanTimeline",
    "ProposalAnswer",
    "SourceKind",
    "StepChange",
    "StepComment",
    "TurnChanges",
    "FileChange",
    "GoalRecord",
    "TurnUsage",
]
