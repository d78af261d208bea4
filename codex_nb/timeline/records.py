"""The plan flight recorder's records: what a ``PlanTimeline`` keeps and what it compares.

Each type is a frozen, keyword-only dataclass, so a report or a test can hold a revision
without it changing under it. ``PlanRevision`` is one accepted plan snapshot; ``PlanDiff``
is the step-level comparison of two of them (``PlanTimeline.diff``); ``DroppedRevision``
is a snapshot that arrived out of order and was refused rather than re-ordered;
``TurnUsage`` is a turn's token usage as its source last reported it; ``TurnChanges`` is a
turn's diff as its source last sent it; ``AgentNotice`` is an ACP agent's notice, context
compaction or subagent as it last stood; ``GoalRecord`` is a real Codex thread's goal as it was
set, changed status or was cleared.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from ..protocol.goal import STATUS_TEXT, ThreadGoal


STATUS_RANK = {"pending": 0, "in_progress": 1, "completed": 2}
"""How far along a status is: a change to a lower rank is a regression."""


class SourceKind(StrEnum):
    """Which kind of event source a revision came from."""

    SESSION = "session"
    """codex_nb's own runtime (``cx.Session``): the model called ``update_plan``."""
    APP_SERVER = "app_server"
    """The real Codex (``CodexAppServer`` thread): a ``turn/plan/updated`` notification."""
    ACP = "acp"
    """An ACP agent: a ``session/update`` notification of kind ``plan``."""
    ROLLOUT = "rollout"
    """A recorded Codex rollout (``RolloutReplay``): an accepted ``update_plan`` call."""
    OTHER = "other"
    """Any other ``EventSource``."""


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanStep:
    """One step of a snapshot: its text and its status (``pending``/``in_progress``/``completed``)."""

    step: str
    status: str


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanRevision:
    """One accepted plan snapshot, as the timeline recorded it."""

    index: int
    """The timeline's own count, from 0; it keeps counting when old revisions are evicted."""
    revision: int | None
    """The source's per-thread revision number (None if the source gives none)."""
    time: float
    """When the timeline received it (seconds since the epoch, from the timeline's clock)."""
    thread_id: str
    turn_id: str | None
    call_id: str | None
    """The ``update_plan`` call that made it, when the source says (a session, a rollout)."""
    notification: str | None
    """The protocol notification that carried it, when it came from a peer (app-server, ACP)."""
    source_kind: SourceKind
    explanation: str | None
    steps: tuple[PlanStep, ...]
    steps_omitted: int = 0
    """Steps past ``MAX_STEPS`` that were not kept (a hostile peer may send any number)."""
    truncated: bool = False
    """Some text was longer than ``MAX_TEXT`` and was cut (the cut is marked in the text)."""


ChangeKind = Literal["added", "removed", "renamed", "status", "renamed_status"]


@dataclass(frozen=True, kw_only=True, slots=True)
class StepChange:
    """What happened to one step between two revisions."""

    kind: ChangeKind
    """``added``, ``removed``, ``renamed`` (text changed), ``status`` (status changed) or
    ``renamed_status`` (both)."""
    old_position: int | None
    """0-based position in the older revision (None for an added step)."""
    new_position: int | None
    """0-based position in the newer revision (None for a removed step)."""
    old_step: str | None
    new_step: str | None
    old_status: str | None
    new_status: str | None
    similarity: float | None = None
    """For a renamed step: how alike the two texts are (0..1, ``difflib`` ratio)."""

    @property
    def renamed(self) -> bool:
        """The step's text changed (kind ``renamed`` or ``renamed_status``)."""
        return self.kind in ("renamed", "renamed_status")

    @property
    def status_changed(self) -> bool:
        """The step's status changed (kind ``status`` or ``renamed_status``)."""
        return self.kind in ("status", "renamed_status")

    @property
    def regression(self) -> bool:
        """A step went back: completed -> pending/in_progress, or in_progress -> pending."""
        if not self.status_changed or self.old_status is None or self.new_status is None:
            return False
        return STATUS_RANK.get(self.new_status, 0) < STATUS_RANK.get(self.old_status, 0)


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanDiff:
    """The step-level changes from revision ``old_index`` to ``new_index`` (see ``diff_plans``)."""

    old_index: int | None
    """None when the newer revision is compared with no plan (the first revision)."""
    new_index: int
    changes: tuple[StepChange, ...]
    """Every change, in the newer revision's order, then the removed steps in the older one's."""
    unchanged: int
    """Steps matched with the same text and status."""
    explanation_changed: bool

    @property
    def added(self) -> tuple[StepChange, ...]:
        """The steps only the newer revision has, in its order."""
        return tuple(c for c in self.changes if c.kind == "added")

    @property
    def removed(self) -> tuple[StepChange, ...]:
        """The steps only the older revision had, in its order."""
        return tuple(c for c in self.changes if c.kind == "removed")

    @property
    def renamed(self) -> tuple[StepChange, ...]:
        """The matched steps whose text changed (their status may have changed too)."""
        return tuple(c for c in self.changes if c.renamed)

    @property
    def status_changed(self) -> tuple[StepChange, ...]:
        """The matched steps whose status changed (their text may have changed too)."""
        return tuple(c for c in self.changes if c.status_changed)

    @property
    def regressions(self) -> tuple[StepChange, ...]:
        """The steps that went back (e.g. ``completed`` to ``in_progress``): what a report flags."""
        return tuple(c for c in self.changes if c.regression)

    @property
    def empty(self) -> bool:
        """True when nothing changed (not even the explanation)."""
        return not self.changes and not self.explanation_changed


@dataclass(frozen=True, kw_only=True, slots=True)
class DroppedRevision:
    """A snapshot refused because its revision was not newer than the newest recorded."""

    revision: int
    newest: int
    """The newest revision recorded when it arrived."""
    time: float
    turn_id: str | None


@dataclass(frozen=True, kw_only=True, slots=True)
class ConversationMessage:
    """One message of the conversation the timeline's source carried: the person's (``role``
    ``"user"``: a prompt, steered input, a comment sent from the plan widget) or the agent's
    (``"assistant"``), in the order they were said; ``text`` is cut to ``MAX_TEXT``."""

    index: int
    time: float
    turn_id: str | None
    role: Literal["user", "assistant"]
    text: str
    truncated: bool = False


@dataclass(frozen=True, kw_only=True, slots=True)
class AgentNotice:
    """What an ACP agent told beside its answer: a ``notice`` (``title``, ``status`` its severity,
    ``text`` its description), a context ``compaction`` (``status``, ``text`` its summary) or a
    ``subagent`` (``title`` its name, ``status`` its state, ``text`` what it did). A compaction or a
    subagent is one record, replaced as it changes (``key`` is its id)."""

    index: int
    time: float
    turn_id: str | None
    kind: Literal["notice", "compaction", "subagent"]
    key: str
    title: str
    status: str
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanProposal:
    """A proposed plan of Codex's Plan mode: the ``<proposed_plan>`` block of the model's
    message, which the app-server sends as a ``plan`` item (``item/plan/delta``, then
    ``item/completed``). It is prose for a person to accept, not a checklist: it has no
    steps or statuses, so it is kept beside the revisions, never diffed with them."""

    index: int
    """The timeline's own count of proposals, from 0."""
    time: float
    thread_id: str
    turn_id: str | None
    item_id: str | None
    source_kind: SourceKind
    text: str
    """The block's text (Markdown as the model wrote it), cut to ``MAX_PROPOSAL_TEXT``."""
    truncated: bool = False
    turn_ended: bool = False
    """The turn has ended (a proposal is complete only then)."""
    agent_message: str | None = None
    """The turn's last agent message once it ended; empty or None: the turn ended with the
    plan and no message, which is when Codex's TUI asks whether to implement it."""

    @property
    def awaiting_decision(self) -> bool:
        """The turn ended with this plan and no agent message."""
        return self.turn_ended and not (self.agent_message or "").strip()


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnUsage:
    """A turn's token usage, as the meter showed it at the turn's last ``token_count`` (a figure the
    source never reported is None, not zero)."""

    turn_id: str | None
    """None: usage reported between turns (a resumed thread's, before its first turn)."""
    context_used: int | None
    """Tokens in the context window (the last response's ``total_tokens``)."""
    context_window: int | None
    turn: int | None
    """This turn's tokens."""
    total: int | None
    """The thread's tokens in all, up to this turn."""


@dataclass(frozen=True, kw_only=True, slots=True)
class FileChange:
    """One file a turn changed: its path, add | delete | update, and its added and removed lines."""

    path: str
    kind: str
    added: int
    removed: int


@dataclass(frozen=True, kw_only=True, slots=True)
class TurnChanges:
    """A turn's changes, as its source's last ``turn_diff`` of the turn said (the whole turn's diff
    so far; a later one replaces it)."""

    turn_id: str | None
    files: tuple[FileChange, ...]
    more_files: int
    """Files past the listed ones (a diff of more than ``MAX_DIFF_FILES`` files)."""
    unified_diff: str
    cut_chars: int
    """Characters of the source's diff not kept (past ``MAX_TURN_DIFF_CHARS``)."""

    @property
    def added(self) -> int:
        """Lines the turn added, in all its listed files."""
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        """Lines the turn removed, in all its listed files."""
        return sum(f.removed for f in self.files)


GoalState = Literal["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete", "cleared"]
"""A goal record's state: Codex's ``ThreadGoalStatus``, or ``cleared`` (the goal was removed)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class GoalRecord:
    """A real Codex thread's goal at one change: set (or replaced), a status change, or cleared.

    Usage alone changing (a continuation turn's tokens) makes no new record: it updates the
    newest one's figures, so a record's usage is as of the next change (or the latest report)."""

    index: int
    """The timeline's own count of goal records, from 0."""
    time: float
    turn_id: str | None
    """The turn that changed it (a continuation turn, the model's ``update_goal``), or None."""
    status: GoalState
    objective: str
    """The objective (cut as ``ThreadGoal`` cuts it); a cleared record keeps the last one's."""
    token_budget: int | None
    tokens_used: int
    time_used_seconds: int

    def line(self) -> str:
        """``Goal set (active): ship it · 12,952 of 100,000 tokens (12%) · 1 min 5 s``."""
        if self.status == "cleared":
            return f"Goal cleared: {self.objective}" if self.objective else "Goal cleared"
        usage = ThreadGoal(
            objective=self.objective,
            status=self.status,
            token_budget=self.token_budget,
            tokens_used=self.tokens_used,
            time_used_seconds=self.time_used_seconds,
        ).usage_text()
        return f"Goal ({STATUS_TEXT[self.status]}): {self.objective} \u00b7 {usage}"
