"""``PlanTimeline``: the plan flight recorder, one record per accepted plan revision.

A checklist shows the latest plan and forgets the rest; a timeline keeps every snapshot
any ``EventSource`` publishes (a ``cx.Session``, a real Codex thread, an ACP session, a
rollout replay), so a person can see how the plan moved and a report can say so.

Memory is bounded: at most ``max_revisions`` revisions are kept (10,000 by default);
past that the oldest full snapshot is evicted and counted in ``dropped_oldest`` (indices
keep counting, so revision ``index`` 0 may be gone while ``index`` 10,000 is kept).
A snapshot whose source revision number is not newer than the newest recorded is never
slotted in by its number: it is refused and counted (``dropped_out_of_order``; the
latest ``MAX_DROPPED_LISTED`` are listed). A snapshot keeps at most ``MAX_STEPS`` steps,
each text at most ``MAX_TEXT`` characters (the cut is marked), since a peer may send
anything.

Beside the revisions are recorded: Plan mode's proposed plans (``proposals``, at most
``MAX_PROPOSALS``, each cut to ``MAX_PROPOSAL_TEXT``), when the latest turn ended with no plan
at all, why (``no_plan``, see ``codex_nb.timeline.why``), and a real Codex thread's goal as it
was set, changed status or was cleared (``goals``).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal

from ..events.observers import Observers
from ..events.source import EventSource
from ..events.usage_meter import UsageMeter
from ..protocol.auto_review import AutoApprovalReview
from ..protocol.capabilities import capabilities_of
from ..protocol.events import Event, PlanUpdate
from ..protocol.goal import GoalUpdated
from ..protocol.rewind import MAX_REWOUND_TURNS
from ..protocol.turn_diff import diff_files
from ..protocol.wire import well_formed
from .answer_records import AnswerRecord
from .diff import diff_plans
from .records import (
    AgentNotice,
    ConversationMessage,
    DroppedRevision,
    PlanDiff,
    PlanProposal,
    PlanRevision,
    PlanStep,
    SourceKind,
    TurnChanges,
    FileChange,
    GoalRecord,
    TurnUsage,
)
from .report import timeline_data, timeline_json, timeline_markdown, timeline_text
from .why import NoPlan, NoPlanTracker

log = logging.getLogger("codex_nb.timeline")

DEFAULT_MAX_REVISIONS = 10_000
MAX_STEPS = 1000
MAX_TEXT = 4000
MAX_DROPPED_LISTED = 100
MAX_INTERNED = 4096
"""Distinct (text, status) step records shared between revisions (then the table starts over)."""
MAX_PROPOSALS = 1000
MAX_PROPOSAL_TEXT = 20_000
MAX_MESSAGES = 10_000
MAX_TURN_USAGE = 10_000
MAX_NOTICES = 1000
"""An ACP agent's notices, compactions and subagents kept (``notices``); the oldest go first."""
"""Turns whose usage is kept (the newest)."""
MAX_TURN_CHANGES = 100
"""Turns whose diff is kept (the newest; each diff is at most ``MAX_TURN_DIFF_CHARS``)."""
"""Conversation messages kept (the oldest go first, counted in ``dropped_messages``)."""
MAX_AUTO_REVIEWS = 1000
"""Codex's automatic reviews a timeline keeps (the newest)."""
MAX_GOAL_RECORDS = 1000
"""A thread's goal records kept (the newest): each is a set, a status change or a clearing."""

_KIND_BY_MODULE = (
    ("codex_nb.app_server", SourceKind.APP_SERVER),
    ("codex_nb.acp", SourceKind.ACP),
    ("codex_nb.rollouts.rollout_replay", SourceKind.ROLLOUT),
    ("codex_nb.runtime", SourceKind.SESSION),
    ("codex_nb.runtime.session", SourceKind.SESSION),
)
_CUT = "… [{} more characters]"


def source_kind(source: object) -> SourceKind:
    """The kind of ``source``, read from where its class (or a base class) is defined: a label the
    records keep (saved data); what is done with a source reads its ``capabilities`` instead."""
    for cls in type(source).__mro__:
        module = getattr(cls, "__module__", "") or ""
        for prefix, kind in _KIND_BY_MODULE:
            if module == prefix or module.startswith(prefix + "."):
                return kind
    return SourceKind.OTHER


class PlanTimeline:
    """Every plan revision of ``source``'s thread: ``PlanTimeline(session)``.

    ``revisions`` is the kept history (oldest first), ``diff(a, b)`` compares two of them
    step by step, ``to_markdown()`` and ``to_json()`` report it. Call ``close()`` (or use
    ``with``) to stop recording; what was recorded stays.
    """

    def __init__(
        self,
        source: EventSource,
        *,
        max_revisions: int = DEFAULT_MAX_REVISIONS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not callable(getattr(source, "subscribe", None)) or not isinstance(getattr(source, "thread_id", None), str):
            raise TypeError(
                f"PlanTimeline needs an event source (with .subscribe and .thread_id), got {type(source).__name__}; "
                "pass a cx.Session, a CodexAppServer thread, an ACP session or a cx.RolloutReplay"
            )
        if type(max_revisions) is not int or max_revisions < 1:
            raise ValueError(f"max_revisions must be a positive int, got {max_revisions!r}")
        self.thread_id: str = source.thread_id
        self.source = source
        """What it records (a widget offers its verbs, such as a real Codex thread's rewind)."""
        self.source_kind = source_kind(source)
        self._capabilities = capabilities_of(source)
        self.max_revisions = max_revisions
        self.dropped_oldest = 0
        """Revisions evicted because more than ``max_revisions`` arrived."""
        self.dropped_out_of_order = 0
        """Snapshots refused because their revision number was not newer than the newest."""
        self.other_thread = 0
        """Plan snapshots of another thread seen on the source (ignored)."""
        self._clock = clock
        self._lock = threading.RLock()
        self._kept: collections.deque[PlanRevision] = collections.deque(maxlen=max_revisions)
        self._out_of_order: collections.deque[DroppedRevision] = collections.deque(maxlen=MAX_DROPPED_LISTED)
        self._next_index = 0
        self._steps: dict[tuple[str, Any], PlanStep] = {}
        self._newest: int | None = None
        self._calls: dict[str | None, list[str]] = {}
        self._observers: Observers[PlanRevision] = Observers(self._fault, what="a callable taking one PlanRevision")
        self._changes: Observers[None] = Observers(self._fault_change, what="a callable taking no arguments")
        self._proposals: collections.deque[PlanProposal] = collections.deque(maxlen=MAX_PROPOSALS)
        self._next_proposal = 0
        self.dropped_proposals = 0
        """Proposals evicted because more than ``MAX_PROPOSALS`` arrived."""
        self._messages: collections.deque[ConversationMessage] = collections.deque(maxlen=MAX_MESSAGES)
        self._next_message = 0
        self.dropped_messages = 0
        """Conversation messages evicted because more than ``MAX_MESSAGES`` arrived."""
        total = getattr(getattr(source, "token_usage", None), "total_tokens", None)
        self._meter = UsageMeter(total if isinstance(total, int) else None)
        self._usage: dict[str | None, TurnUsage] = {}
        self._notices: dict[tuple[str, str], AgentNotice] = {}
        self._next_notice = 0
        self._changes_by_turn: dict[str | None, TurnChanges] = {}
        self._reviews: dict[str, AutoApprovalReview] = {}
        self._rewound: dict[str, None] = {}
        self._goals: collections.deque[GoalRecord] = collections.deque(maxlen=MAX_GOAL_RECORDS)
        self._next_goal = 0
        self._why = NoPlanTracker(source, on_change=lambda _reason: self._changes.notify(None))
        self._answer_sources: list[Callable[[], tuple[AnswerRecord, ...]]] = []
        self._unsubscribe: list[Callable[[], None]] = []
        self._unsubscribe.append(source.subscribe(self._on_event))
        if self._capabilities.tool_plan:  # the runtime names each update_plan call in its lifecycle
            runtime: Any = source
            self._unsubscribe.append(runtime.on_lifecycle(self._on_lifecycle))
        # Start from the plan published before the timeline existed (subscribed first, so a
        # newer snapshot arriving meanwhile wins by revision and this one is then refused).
        latest = getattr(source, "latest_plan", None)
        current = latest() if callable(latest) else None
        if isinstance(current, Event):
            self._on_event(current, initial=True)

    # ---- recording -----------------------------------------------------------------------

    def _on_lifecycle(self, record: Any) -> None:
        """A session's ``update_plan`` call starts before its snapshot is emitted: remember its id."""
        if getattr(getattr(record, "tool_name", None), "name", None) != "update_plan":
            return
        self._why.on_lifecycle(record)
        with self._lock:
            calls = self._calls.setdefault(record.turn_id, [])
            if record.phase == "start":
                calls.append(record.call_id)
            elif record.call_id in calls:
                calls.remove(record.call_id)
            if not calls:
                del self._calls[record.turn_id]

    def _on_event(self, event: Event, *, initial: bool = False) -> None:
        kind = event.msg.type
        if kind != "plan_update":
            if event.thread_id == self.thread_id and not initial:
                self._on_other(event)
            return
        if event.thread_id != self.thread_id:
            with self._lock:
                self.other_thread += 1
            return
        now = self._clock()
        with self._lock:
            if initial and self._kept:
                return  # the cached plan was already delivered through the subscription: not a drop
            if event.revision is not None and self._newest is not None and event.revision <= self._newest:
                self.dropped_out_of_order += 1
                self._out_of_order.append(
                    DroppedRevision(revision=event.revision, newest=self._newest, time=now, turn_id=event.turn_id)
                )
                return
            if event.revision is not None:
                self._newest = event.revision
            revision = self._record(event, now)
            if len(self._kept) == self.max_revisions:
                self.dropped_oldest += 1
            self._kept.append(revision)
            self._next_index += 1
        if not initial:
            self._why.on_event(event)
        self._observers.notify(revision)
        self._changes.notify(None)

    def _on_other(self, event: Event) -> None:
        """Turn boundaries and Plan mode's proposed plans (the app-server's ``plan`` item)."""
        self._why.on_event(event)
        msg: Any = event.msg
        item = getattr(msg, "item", None)
        if msg.type == "item_completed" and isinstance(item, dict) and item.get("type") == "plan":
            self._propose(event, item)
        elif msg.type == "user_message":
            self._message(event, "user", msg.message)
        elif msg.type == "agent_message":
            self._message(event, "assistant", msg.message)
        elif msg.type == "item_completed" and isinstance(item, dict) and item.get("type") == "agentMessage":
            self._message(event, "assistant", item.get("text"))  # the app-server says it as an item
        elif msg.type == "turn_started":
            with self._lock:
                self._meter.start_turn()
        elif msg.type == "token_count":
            self._count(event)
        elif msg.type == "turn_diff":
            self._diff(event)
        elif isinstance(msg, AutoApprovalReview):
            self._review(msg)
        elif msg.type == "thread_rewound":
            self._rewind(msg.turn_ids)
        elif isinstance(msg, GoalUpdated):
            self._goal(event, msg)
        elif msg.type in ("acp_notice", "acp_compaction", "acp_subagent"):
            self._notice(event)
        elif msg.type in ("turn_complete", "turn_aborted"):
            self._end_proposals(
                event.turn_id or getattr(msg, "turn_id", None), getattr(msg, "last_agent_message", None)
            )

    def _propose(self, event: Event, item: dict[str, Any]) -> None:
        raw = item.get("text")
        text = well_formed(raw if isinstance(raw, str) else "")
        truncated = len(text) > MAX_PROPOSAL_TEXT
        if truncated:
            text = text[:MAX_PROPOSAL_TEXT] + _CUT.format(len(text) - MAX_PROPOSAL_TEXT)
        item_id = item.get("id")
        with self._lock:
            if len(self._proposals) == MAX_PROPOSALS:
                self.dropped_proposals += 1
            self._proposals.append(
                PlanProposal(
                    index=self._next_proposal,
                    time=self._clock(),
                    thread_id=event.thread_id,
                    turn_id=event.turn_id,
                    item_id=well_formed(item_id) if isinstance(item_id, str) else None,
                    source_kind=self.source_kind,
                    text=text,
                    truncated=truncated,
                )
            )
            self._next_proposal += 1
        self._changes.notify(None)

    def _message(self, event: Event, role: Literal["user", "assistant"], raw: object) -> None:
        text = well_formed(raw) if isinstance(raw, str) else ""
        if not text:
            return
        truncated = len(text) > MAX_TEXT
        if truncated:
            text = text[:MAX_TEXT] + _CUT.format(len(text) - MAX_TEXT)
        turn_id = event.turn_id or getattr(event.msg, "turn_id", None)
        with self._lock:
            if len(self._messages) == MAX_MESSAGES:
                self.dropped_messages += 1
            self._messages.append(
                ConversationMessage(
                    index=self._next_message,
                    time=self._clock(),
                    turn_id=turn_id,
                    role=role,
                    text=text,
                    truncated=truncated,
                )
            )
            self._next_message += 1
        self._changes.notify(None)

    def _count(self, event: Event) -> None:
        """Keep the turn's usage as the meter shows it after this ``token_count``."""
        turn_id = event.turn_id
        with self._lock:
            if not self._meter.count(getattr(event.msg, "info", None)):
                return
            figures = self._meter.figures
            self._usage.pop(turn_id, None)  # re-inserted: the dict's order is the turns' order
            self._usage[turn_id] = TurnUsage(
                turn_id=turn_id,
                context_used=figures.get("context_used"),
                context_window=figures.get("context_window"),
                turn=figures.get("turn"),
                total=figures.get("total"),
            )
            while len(self._usage) > MAX_TURN_USAGE:
                del self._usage[next(iter(self._usage))]
        self._changes.notify(None)

    def _notice(self, event: Event) -> None:
        """Keep an ACP agent's notice, or the latest state of its compaction or subagent."""
        msg: Any = event.msg
        kind: Literal["notice", "compaction", "subagent"]
        with self._lock:
            index = self._next_notice
            if msg.type == "acp_notice":
                kind, key, title, status, text = "notice", str(index), msg.title, msg.severity, msg.description or ""
            elif msg.type == "acp_compaction":
                kind, key, title, status = "compaction", msg.compaction_id, "Context compaction", msg.status
                text = msg.error or msg.summary
            else:
                kind, key, title, status = "subagent", msg.session_id, msg.name, msg.state
                text = f"{msg.tool_calls} tool call(s), {msg.messages} message(s)" + (
                    f": {msg.last_message}" if msg.last_message else ""
                )
            before = self._notices.pop((kind, key), None)
            self._notices[(kind, key)] = AgentNotice(
                index=index if before is None else before.index,
                time=self._clock(),
                turn_id=event.turn_id,
                kind=kind,
                key=well_formed(key),
                title=well_formed(title),
                status=well_formed(status),
                text=well_formed(text)[:MAX_TEXT],
            )
            if before is None:
                self._next_notice += 1
            while len(self._notices) > MAX_NOTICES:
                del self._notices[next(iter(self._notices))]
        self._changes.notify(None)

    def _diff(self, event: Event) -> None:
        """Keep the turn's latest diff (each ``turn_diff`` is the whole turn's so far)."""
        msg: Any = event.msg
        turn_id = msg.turn_id or event.turn_id
        text = well_formed(msg.unified_diff)
        summary = diff_files(text)
        changes = TurnChanges(
            turn_id=turn_id,
            files=tuple(FileChange(path=f.path, kind=f.kind, added=f.added, removed=f.removed) for f in summary.files),
            more_files=summary.more_files,
            unified_diff=text,
            cut_chars=msg.cut_chars,
        )
        with self._lock:
            self._changes_by_turn.pop(turn_id, None)  # re-inserted: the dict's order is the turns' order
            self._changes_by_turn[turn_id] = changes
            while len(self._changes_by_turn) > MAX_TURN_CHANGES:
                del self._changes_by_turn[next(iter(self._changes_by_turn))]
        self._changes.notify(None)

    def _review(self, msg: AutoApprovalReview) -> None:
        """Keep each automatic review as its latest event said (an override comes again)."""
        with self._lock:
            self._reviews.pop(msg.review_id, None)
            self._reviews[msg.review_id] = msg
            while len(self._reviews) > MAX_AUTO_REVIEWS:
                del self._reviews[next(iter(self._reviews))]

    def _rewind(self, turn_ids: list[str]) -> None:
        """Mark the turns a rewind undid (their revisions stay, drawn as undone)."""
        with self._lock:
            for turn_id in turn_ids:
                self._rewound[well_formed(turn_id)] = None
            while len(self._rewound) > MAX_REWOUND_TURNS:
                del self._rewound[next(iter(self._rewound))]
        self._changes.notify(None)

    def _goal(self, event: Event, msg: GoalUpdated) -> None:
        """A new record when the goal is set, changes status, objective or budget, or is cleared;
        a usage update alone refreshes the newest record's figures."""
        goal = msg.goal
        turn_id = msg.turn_id or event.turn_id
        with self._lock:
            newest = self._goals[-1] if self._goals else None
            if goal is None:
                if newest is None or newest.status == "cleared":
                    return  # nothing was set here: a clearing of nothing is not a change
                record = GoalRecord(
                    index=self._next_goal,
                    time=self._clock(),
                    turn_id=turn_id,
                    status="cleared",
                    objective=newest.objective,
                    token_budget=newest.token_budget,
                    tokens_used=newest.tokens_used,
                    time_used_seconds=newest.time_used_seconds,
                )
            else:
                record = GoalRecord(
                    index=self._next_goal,
                    time=self._clock(),
                    turn_id=turn_id,
                    status=goal.status,
                    objective=well_formed(goal.objective),
                    token_budget=goal.token_budget,
                    tokens_used=goal.tokens_used,
                    time_used_seconds=goal.time_used_seconds,
                )
                if newest is not None and (newest.status, newest.objective, newest.token_budget) == (
                    record.status,
                    record.objective,
                    record.token_budget,
                ):
                    if (newest.tokens_used, newest.time_used_seconds) == (record.tokens_used, record.time_used_seconds):
                        return
                    record = dataclasses.replace(
                        newest, tokens_used=record.tokens_used, time_used_seconds=record.time_used_seconds
                    )
                    self._goals.pop()  # the same change: its usage is refreshed, not a new record
            self._goals.append(record)
            self._next_goal = max(self._next_goal, record.index + 1)
        self._changes.notify(None)

    def _end_proposals(self, turn_id: str | None, message: object) -> None:
        with self._lock:
            changed = False
            for i, proposal in enumerate(self._proposals):
                if proposal.turn_id == turn_id and not proposal.turn_ended:
                    said = well_formed(message)[:MAX_TEXT] if isinstance(message, str) else None
                    self._proposals[i] = dataclasses.replace(proposal, turn_ended=True, agent_message=said)
                    changed = True
        if changed:
            self._changes.notify(None)

    def _record(self, event: Event, now: float, *, loaded: bool = False) -> PlanRevision:
        """The record of ``event``; ``loaded``: from a rollout read by ``load_rollout``, not the source."""
        msg: Any = event.msg
        items = msg.plan
        truncated = False
        steps = []
        interned = self._steps
        for item in items[:MAX_STEPS]:
            status = item.status
            key = (item.step, status)
            step = interned.get(key)
            if step is None:
                # most revisions repeat most steps: one record per distinct (text, status)
                text, cut = _capped(str(item.step))
                truncated |= cut
                step = PlanStep(step=text, status=getattr(status, "value", None) or str(status))
                if len(interned) >= MAX_INTERNED:
                    interned.clear()
                interned[key] = step
            elif len(step.step) != len(item.step):
                truncated = True  # the kept text was cut
            steps.append(step)
        explanation = msg.explanation
        if explanation is not None:
            explanation, cut = _capped(str(explanation))
            truncated |= cut
        return PlanRevision(
            index=self._next_index,
            revision=event.revision,
            time=now,
            thread_id=event.thread_id,
            turn_id=event.turn_id,
            call_id=event.id if loaded else self._call_id(event),
            notification=None if loaded else self._capabilities.plan_notification,
            source_kind=SourceKind.ROLLOUT if loaded else self.source_kind,
            explanation=explanation,
            steps=tuple(steps),
            steps_omitted=max(0, len(items) - MAX_STEPS),
            truncated=truncated,
        )

    def _call_id(self, event: Event) -> str | None:
        if self._capabilities.replay:
            return event.id  # a replay names each snapshot's event after its update_plan call
        calls = self._calls.get(event.turn_id)
        # The oldest running update_plan call of the turn: each call emits at most one snapshot.
        return calls.pop(0) if calls else None

    def load_rollout(self, rollout: Any) -> int:
        """Record every accepted plan of a saved Codex session, whole and in order, after what
        this timeline holds; returns how many were recorded.

        ``rollout`` is a rollout path, a ``cx.rollouts.Rollout`` or a ``cx.RolloutReplay``
        (its whole history, wherever it is scrubbed to). Each revision keeps the rollout's
        turn, ``update_plan`` call and time, and has no source revision number (so it is never
        refused as out of order); the cap applies as to any revision.
        """
        from ..rollouts.rollout_replay import RolloutReplay
        from ..rollouts.rollout import Rollout, read_rollout

        if isinstance(rollout, RolloutReplay):
            rollout = rollout.rollout
        if not isinstance(rollout, Rollout):
            rollout = read_rollout(rollout)
        thread = rollout.session_id if isinstance(rollout.session_id, str) and rollout.session_id else rollout.path.stem
        for snapshot in rollout.plans:
            event = Event(
                id=snapshot.call_id, msg=PlanUpdate.from_args(snapshot.args), thread_id=thread, turn_id=snapshot.turn_id
            )
            when = _timestamp(snapshot.timestamp)
            with self._lock:
                revision = self._record(event, self._clock() if when is None else when, loaded=True)
                if len(self._kept) == self.max_revisions:
                    self.dropped_oldest += 1
                self._kept.append(revision)
                self._next_index += 1
            self._observers.notify(revision)
        if rollout.plans:
            self._changes.notify(None)
        return len(rollout.plans)

    # ---- reading -------------------------------------------------------------------------

    @property
    def revisions(self) -> tuple[PlanRevision, ...]:
        """The kept revisions, oldest first (a snapshot of the history: it does not grow)."""
        with self._lock:
            return tuple(self._kept)

    @property
    def out_of_order(self) -> tuple[DroppedRevision, ...]:
        """The latest refused out-of-order snapshots (at most ``MAX_DROPPED_LISTED``)."""
        with self._lock:
            return tuple(self._out_of_order)

    @property
    def proposals(self) -> tuple[PlanProposal, ...]:
        """Plan mode's proposed plans, oldest first (at most ``MAX_PROPOSALS``)."""
        with self._lock:
            return tuple(self._proposals)

    @property
    def messages(self) -> tuple[ConversationMessage, ...]:
        """The conversation in order: the person's words and the agent's answers (the newest
        ``MAX_MESSAGES``)."""
        with self._lock:
            return tuple(self._messages)

    @property
    def notices(self) -> tuple[AgentNotice, ...]:
        """An ACP agent's notices, context compactions and subagents (each as it last stood), in the order
        each first came; at most ``MAX_NOTICES``."""
        with self._lock:
            return tuple(sorted(self._notices.values(), key=lambda n: n.index))

    @property
    def usage(self) -> tuple[TurnUsage, ...]:
        """Each turn's token usage as its source last reported it, in the order reported (the
        newest ``MAX_TURN_USAGE`` turns); empty when the source reports none."""
        with self._lock:
            return tuple(self._usage.values())

    @property
    def turn_changes(self) -> tuple[TurnChanges, ...]:
        """Each turn's changes as its source's last diff of the turn said, in the order of their
        latest diffs (the newest ``MAX_TURN_CHANGES`` turns); empty when none changed one."""
        with self._lock:
            return tuple(self._changes_by_turn.values())

    @property
    def auto_reviews(self) -> tuple[AutoApprovalReview, ...]:
        """Codex's automatic reviews of approvals (a real Codex thread with ``approvals_reviewer =
        "auto_review"``), each as its latest event said, in the order of their latest
        events (the newest ``MAX_AUTO_REVIEWS``); never the person's answers, which are ``answers``."""
        with self._lock:
            return tuple(self._reviews.values())

    @property
    def rewound_turns(self) -> tuple[str, ...]:
        """The turns a rewind undid (``thread_rewound``), in the order undone (the newest
        ``MAX_REWOUND_TURNS``): their revisions, messages and changes stay, marked as undone."""
        with self._lock:
            return tuple(self._rewound)

    @property
    def goals(self) -> tuple[GoalRecord, ...]:
        """A real Codex thread's goal as it was set, changed status (paused, blocked, complete,
        out of budget or usage, active again) or was cleared, in order, with its objective, budget
        and usage (the newest ``MAX_GOAL_RECORDS``); empty when the source has no goal."""
        with self._lock:
            return tuple(self._goals)

    @property
    def answers(self) -> tuple[AnswerRecord, ...]:
        """A person's answers to this plan (every ``PlanAnswers`` on this timeline), in the order
        given; the JSON and Markdown reports include them."""
        return tuple(a for source in self._answer_sources for a in source())

    def add_answers(self, source: Callable[[], tuple[AnswerRecord, ...]]) -> Callable[[], None]:
        """Report the answers ``source()`` returns with this timeline (``PlanAnswers`` calls it);
        returns a remover."""
        self._answer_sources.append(source)
        return lambda: self._answer_sources.remove(source) if source in self._answer_sources else None

    @property
    def no_plan(self) -> NoPlan | None:
        """Why the latest ended turn has no plan (None if it had one, or no fact says why)."""
        return self._why.latest

    def __len__(self) -> int:
        return len(self._kept)

    def __iter__(self) -> Iterator[PlanRevision]:
        return iter(self.revisions)

    def __getitem__(self, index: int) -> PlanRevision:
        """The revision with timeline ``index``; a negative one counts back from the newest kept."""
        with self._lock:
            if index < 0:
                if -index > len(self._kept):
                    raise IndexError(f"revision {index} is out of range: {len(self._kept)} are kept")
                return self._kept[index]
            first = self._next_index - len(self._kept)
            if index < first:
                raise IndexError(
                    f"revision {index} was evicted: this timeline keeps the newest {self.max_revisions} "
                    f"({self.dropped_oldest} dropped); the oldest kept is {first}"
                )
            if index >= self._next_index:
                raise IndexError(f"revision {index} does not exist yet: the newest is {self._next_index - 1}")
            return self._kept[index - first]

    def diff(self, a: int | PlanRevision | None, b: int | PlanRevision) -> PlanDiff:
        """The step-level changes from revision ``a`` to revision ``b`` (indices or records;
        ``a=None`` compares ``b`` with no plan). See ``codex_nb.timeline.diff`` for how steps match."""
        old = None if a is None else self._resolve(a)
        new = self._resolve(b)
        return diff_plans(
            () if old is None else old.steps,
            new.steps,
            old_index=None if old is None else old.index,
            new_index=new.index,
            explanation_changed=(None if old is None else old.explanation) != new.explanation,
        )

    def changes(self, index: int | PlanRevision) -> PlanDiff:
        """What revision ``index`` changed against the one before it (the first kept: against none)."""
        new = self._resolve(index)
        with self._lock:
            first = self._next_index - len(self._kept)
        previous = new.index - 1 if new.index > first else None
        return self.diff(previous, new)

    def _resolve(self, ref: int | PlanRevision) -> PlanRevision:
        if isinstance(ref, PlanRevision):
            return ref
        if type(ref) is not int:
            raise TypeError(f"a revision is an int index or a PlanRevision, got {type(ref).__name__}")
        return self[ref]

    def on_revision(self, fn: Callable[[PlanRevision], object]) -> Callable[[], None]:
        """Call ``fn(revision)`` after each recorded revision; returns a remover (a raising one is detached)."""
        return self._observers.add(fn)

    def on_change(self, fn: Callable[[], object]) -> Callable[[], None]:
        """Call ``fn()`` after anything shown changed (a revision, a proposal, the no-plan line)."""
        if not callable(fn):
            raise TypeError(f"on_change expects a callable taking no arguments, got {type(fn).__name__}")
        return self._changes.add(lambda _none: fn())

    def _fault_change(self, fn: Callable[[None], object], err: Exception, _none: None) -> None:
        log.warning("timeline observer %r raised %s: %s; it was detached", fn, type(err).__name__, err)

    def _fault(self, fn: Callable[[PlanRevision], object], err: Exception, revision: PlanRevision) -> None:
        log.warning(
            "timeline observer %r raised %s: %s on revision %d; it was detached",
            fn,
            type(err).__name__,
            err,
            revision.index,
        )

    # ---- reports -------------------------------------------------------------------------

    def to_json(self) -> str:
        """The history as a JSON string (its stable shape is documented in ``codex_nb.timeline.report``)."""
        return timeline_json(self)

    def to_dict(self) -> dict[str, Any]:
        """The data of ``to_json()``, not yet encoded."""
        return timeline_data(self)

    def to_markdown(self, *, last: int | None = 100) -> str:
        """A Markdown report (each revision with its changes), e.g. for a pull-request comment."""
        return timeline_markdown(self, last=last)

    def text(self, *, last: int = 50) -> str:
        """The revision list as plain text, one line each (the newest ``last``)."""
        return timeline_text(self, last=last)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text("PlanTimeline(...)" if cycle else self.text())

    def __repr__(self) -> str:
        return self.text()

    # ---- teardown ------------------------------------------------------------------------

    def close(self) -> None:
        """Stop recording (what was recorded stays readable)."""
        with self._lock:
            removers, self._unsubscribe = self._unsubscribe, []
            self._calls.clear()
        for remove in removers:
            remove()

    @property
    def closed(self) -> bool:
        """True once ``close()`` (or the end of a ``with`` block) stopped the recording."""
        return not self._unsubscribe

    def __enter__(self) -> PlanTimeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _timestamp(text: str | None) -> float | None:
    """A rollout line's ISO 8601 timestamp as seconds since the epoch (None if there is none)."""
    if not text:
        return None
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _capped(text: str) -> tuple[str, bool]:
    if len(text) <= MAX_TEXT:
        return text, False
    return text[:MAX_TEXT] + _CUT.format(len(text) - MAX_TEXT), True
