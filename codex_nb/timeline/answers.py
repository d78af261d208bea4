"""``PlanAnswers``: the person answers the agent's plan, in the agent's own way.

The plan is one-way until here: the agent writes it, the checklist draws it. ``PlanAnswers(source)``
lets a person comment on a step, suggest a change to the plan, and approve, revise or reject a
proposed plan of Plan mode, from Python (notebooks, tests, headless runs) and from the widget that
sits on it. Each answer reaches the agent the way that agent takes input:

How is read from the source's ``capabilities`` (``cx.Capabilities.mid_turn``) and done with its
``send_during_turn``, never from what kind of source it is:

* codex_nb's runtime (``cx.Session``): steered into the running turn (``TurnHandle.steer``), so the
  next model request carries it; input the turn never read (it ended first) starts the next turn,
  so nothing is lost and nothing is sent twice;
* the real Codex (``CodexThread``): ``turn/steer`` into the running turn; if the turn ended first,
  a new turn (``turn/start``) carries it;
* an ACP agent, which has no steering: queued, and sent as the next prompt when the turn ends
  (``notices`` says so before it is sent);
* with no turn running, the answer starts the next turn.

A proposed plan of Plan mode is decided in a new turn where the turn ended with it (codex_nb's
runtime, the real Codex); where the agent waits on it instead (``capabilities.plan_review``: an ACP
agent's plan-review permission), the decision answers the agent's request (``answer_plan_review``)
and a revision note follows as the next prompt.

The agent's snapshot stays the agent's: nothing here edits it. Each answer is a record
(``answer_records``) that moves on as the agent answers: a comment is ``answered`` by the agent's
next plan snapshot or the end of the turn that read it, or says its step was ``step_removed`` /
``step_renamed``; a suggestion is ``adopted``, ``partly_adopted`` or ``ignored`` by comparing the
next snapshot with what was proposed (``suggestions.verdict``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..errors import TurnError
from ..events.observers import Observers
from ..events.source import EventSource
from ..protocol.capabilities import Capabilities, Sent, capabilities_of
from ..protocol.events import Event
from ..protocol.wire import well_formed
from .answer_records import (
    AnswerRecord,
    Delivery,
    PlanAnswerError,
    PlanSuggestion,
    ProposalAnswer,
    StepComment,
    answer_data,
)
from .diff import diff_plans
from .records import PlanProposal, PlanStep
from .recorder import PlanTimeline
from .suggestions import suggestion_diff, verdict

log = logging.getLogger("codex_nb.timeline.answers")

MAX_COMMENT = 20_000
"""Characters in one comment or revision note (a person's text, sent whole to the agent)."""
MAX_STEP = 2_000
"""Characters in one suggested step."""
MAX_STEPS = 200
"""Steps in one suggestion."""
IMPLEMENT_MESSAGE = "Implement the plan."
"""What Codex's TUI sends, in Default mode, when a person accepts a proposed plan (the pinned
binary's ``PLAN_IMPLEMENTATION_CODING_MESSAGE``)."""
QUEUED = "{agent} takes no input while a turn runs: your {what} will be sent as the next prompt when the turn ends"
"""What ``notices`` says when the source queued an answer for the running turn's end (an ACP agent)."""


def _text(value: object, what: str, limit: int = MAX_COMMENT) -> str:
    if not isinstance(value, str):
        raise PlanAnswerError(f"the {what} must be text (str), got {type(value).__name__}")
    text = well_formed(value).strip()
    if not text:
        raise PlanAnswerError(f"the {what} is empty: write what the agent should know")
    if len(text) > limit:
        raise PlanAnswerError(
            f"the {what} is {len(text):,} characters, more than the {limit:,} one answer may hold; "
            "shorten it (attach long material to a prompt instead)"
        )
    return text


def _fault(fn: Callable[[None], object], err: Exception, _none: None) -> None:
    log.warning("plan answers observer %r raised %s: %s; it was detached", fn, type(err).__name__, err)


def comment_message(index: int, step: str, text: str) -> str:
    """What the agent reads for a comment: the step it is about, by number and text, then the comment."""
    return f'Comment on step {index + 1} of your plan ("{step}"):\n{text}'


def suggestion_message(diff: str) -> str:
    """What the agent reads for a suggested change."""
    return f"I suggest this change to your plan. Update the plan with update_plan if you agree.\n{diff}"


class PlanAnswers:
    """A person's answers to the plan of ``source`` (a ``cx.Session``, a ``CodexThread`` or an
    ``AcpSession``): ``comment``, ``suggest``, ``approve``, ``revise``, ``reject``.

    ``model`` is what a new turn of codex_nb's runtime samples (the real Codex and ACP agents bring
    their own). ``await answers.settled()`` waits until every answer sent so far has reached the
    agent (steered, queued or started a turn). ``close()`` stops following the source."""

    def __init__(
        self,
        source: EventSource,
        *,
        model: Any = None,
        who: str = "person",
        timeline: PlanTimeline | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.source: Any = source
        self.timeline = timeline if timeline is not None else PlanTimeline(source)
        self._own_timeline = timeline is None
        self.kind = self.timeline.source_kind
        """The source's kind, as the timeline's records say it (a label: what is done reads ``capabilities``)."""
        self.model = model
        self.who = who
        self._clock = clock
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._records: dict[str, AnswerRecord] = {}
        self._waiting_for_snapshot: dict[str, int] = {}
        """Sent answers whose next snapshot decides them, by id -> timeline length when sent."""
        self._unseen: dict[str, str] = {}
        """Steered answers the agent has not read yet, by id -> the text sent."""
        self._snapshots: dict[str, tuple[str, ...]] = {}
        """The agent's steps when each comment was given (what its next snapshot is compared with)."""
        self._batches: dict[asyncio.Future[Any], list[str]] = {}
        """Answers the source queued for its running turn's end, by the future of the turn that sends them."""
        self._tasks: set[asyncio.Future[Any]] = set()
        self._watched: set[int] = set()
        self.turns: list[Any] = []
        """The handles of the turns answers started (``await answers.turns[-1]`` for its result)."""
        self.notices: list[str] = []
        """What the widget says beside the answers (an ACP queue, a failure), oldest first."""
        self._changes: Observers[None] = Observers(_fault, what="a callable taking no arguments")
        self._unsubscribe = source.subscribe(self._on_event)
        self._unsubscribe_revisions = self.timeline.on_revision(lambda _r: self._on_revision())
        self._unreport = self.timeline.add_answers(lambda: self.answers)
        self._unfollow_reviews: Callable[[], None] = lambda: None
        if self.capabilities.plan_review:  # the agent waits on its proposal: follow it (and be its reviewer)
            self._unfollow_reviews = source.on_plan_review(lambda: self._changes.notify(None))  # type: ignore[attr-defined]

    # -- reading --------------------------------------------------------------------------------
    @property
    def capabilities(self) -> Capabilities:
        """What the source offers (``cx.Capabilities``): how an answer reaches it is read from here."""
        return capabilities_of(self.source)

    @property
    def steps(self) -> tuple[str, ...]:
        """The agent's current steps (texts of its newest snapshot), what a comment refers to."""
        revisions = self.timeline.revisions
        return tuple(s.step for s in revisions[-1].steps) if revisions else ()

    @property
    def answers(self) -> tuple[AnswerRecord, ...]:
        """Every answer, in the order given, each in its latest state."""
        with self._lock:
            return tuple(self._records.values())

    @property
    def comments(self) -> tuple[StepComment, ...]:
        """The comments on steps, in the order given."""
        return tuple(a for a in self.answers if isinstance(a, StepComment))

    @property
    def suggestions(self) -> tuple[PlanSuggestion, ...]:
        """The suggested changes to the plan, in the order given."""
        return tuple(a for a in self.answers if isinstance(a, PlanSuggestion))

    @property
    def decisions(self) -> tuple[ProposalAnswer, ...]:
        """The answers to proposed plans (approved, revised, rejected), in the order given."""
        return tuple(a for a in self.answers if isinstance(a, ProposalAnswer))

    @property
    def proposal(self) -> PlanProposal | None:
        """The proposed plan waiting for a decision: the newest one whose turn ended with it, if no
        decision on it was delivered yet (one that failed to send, e.g. with no model or the source
        closed, leaves it open: the person can approve or revise it again)."""
        proposals = self.timeline.proposals
        if self.capabilities.plan_review:
            return self._reviewed_proposal(proposals)
        if not proposals or not proposals[-1].awaiting_decision:
            return None
        latest = proposals[-1]
        answered = any(d.proposal_index == latest.index and d.delivery != "failed" for d in self.decisions)
        return None if answered else latest

    def _reviewed_proposal(self, proposals: tuple[PlanProposal, ...]) -> PlanProposal | None:
        """The proposal the agent waits on (``source.plan_review``), unless a decision on it was sent."""
        review = self.source.plan_review
        if review is None or not proposals:
            return None
        same = [p for p in proposals if review.item_id is not None and p.item_id == review.item_id]
        latest = same[-1] if same else proposals[-1]
        answered = any(d.proposal_index == latest.index and d.delivery != "failed" for d in self.decisions)
        return None if answered else latest

    def on_change(self, fn: Callable[[], object]) -> Callable[[], None]:
        """Call ``fn()`` whenever an answer is added or moves on; returns a remover."""
        if not callable(fn):
            raise TypeError(f"on_change expects a callable taking no arguments, got {type(fn).__name__}")
        return self._changes.add(lambda _none: fn())

    def to_data(self) -> list[dict[str, Any]]:
        """Every answer as JSON-ready dicts (what ``to_json``, exports and cassettes hold)."""
        return [answer_data(a) for a in self.answers]

    def to_json(self) -> str:
        """``{"thread_id": ..., "answers": [...]}`` as indented JSON."""
        return json.dumps({"thread_id": self.timeline.thread_id, "answers": self.to_data()}, indent=2)

    async def settled(self) -> None:
        """Wait until every answer given so far has been sent (or queued, for an ACP agent)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- answering ------------------------------------------------------------------------------
    def comment(self, step: int | str, text: str) -> StepComment:
        """Comment on ``step`` (its 0-based index in ``steps``, or its exact text)."""
        body = _text(text, "comment")
        steps = self.steps
        if not steps:
            raise PlanAnswerError(
                "the agent has no plan yet, so there is no step to comment on; send your text as a prompt instead"
            )
        index = self._step_index(step, steps)
        record = StepComment(
            id=self._id("c"), time=self._clock(), who=self.who, step_index=index, step=steps[index], text=body
        )
        self._snapshots[record.id] = steps
        return self._send(record, comment_message(index, steps[index], body), "comment")

    def suggest(self, steps: Sequence[str]) -> PlanSuggestion:
        """Propose the plan as ``steps`` (the whole list of step texts as you want it)."""
        if isinstance(steps, str) or not isinstance(steps, Sequence):
            raise PlanAnswerError(f"suggest() takes the list of step texts you propose, got {type(steps).__name__}")
        after = tuple(_text(s, f"step {i + 1}", MAX_STEP) for i, s in enumerate(steps))
        if not after:
            raise PlanAnswerError(
                "this suggestion would empty the plan; to stop the work press Stop, or suggest the steps to keep"
            )
        if len(after) > MAX_STEPS:
            raise PlanAnswerError(f"a suggestion holds at most {MAX_STEPS} steps, got {len(after)}")
        before = self.steps
        if after == before:
            raise PlanAnswerError("this suggestion is the agent's plan as it is: change a step first")
        diff = suggestion_diff(before, after)
        record = PlanSuggestion(
            id=self._id("s"), time=self._clock(), who=self.who, before=before, after=after, diff=diff
        )
        return self._send(record, suggestion_message(diff), "suggestion")

    def approve(self) -> ProposalAnswer:
        """Accept the proposed plan: the agent implements it (Codex's TUI sends ``Implement the
        plan.`` in Default mode; so does this, for every source)."""
        return self._decide("approved", None, IMPLEMENT_MESSAGE, "default")

    def revise(self, comment: str) -> ProposalAnswer:
        """Ask for another plan: ``comment`` goes to the agent in a new Plan-mode turn."""
        return self._decide("revised", _text(comment, "revision note"), None, "plan")

    def reject(self) -> ProposalAnswer:
        """Decline the proposed plan; nothing is sent (Codex's TUI stays in Plan mode, silent)."""
        return self._decide("rejected", None, None, None)

    def _decide(self, decision: str, comment: str | None, message: str | None, mode: str | None) -> ProposalAnswer:
        if self.capabilities.plan_review:
            return self._answer_review(decision, comment, mode)
        with self._lock:
            proposal = self.proposal
            if proposal is None:
                raise PlanAnswerError(
                    "there is no proposed plan waiting for a decision (a Plan-mode turn must end with one, "
                    "and each is answered once)"
                )
            if self._busy():
                raise PlanAnswerError("the agent's turn is still running; decide on the plan when it has ended")
            message = message if message is not None else comment
            record = self._proposal_answer(proposal.index, decision, comment, message, mode)
            if message is None or mode is None:
                self._put(record)
                return record
            self._put(record)
        self._start(record.id, message, mode)
        return self._get(record.id)  # type: ignore[return-value]

    def _proposal_answer(
        self,
        proposal_index: int,
        decision: str,
        comment: str | None,
        message: str | None,
        mode: str | None,
        turn_id: str | None = None,
    ) -> ProposalAnswer:
        return ProposalAnswer(
            id=self._id("p"),
            time=self._clock(),
            who=self.who,
            proposal_index=proposal_index,
            decision=decision,  # type: ignore[arg-type]
            comment=comment,
            message=message,
            mode=mode,
            turn_id=turn_id,
        )

    def _answer_review(self, decision: str, comment: str | None, mode: str | None) -> ProposalAnswer:
        """The agent waits on its proposal (``capabilities.plan_review``): the decision answers its
        request (approve: it leaves Plan mode and implements, in the same turn); a revision note then
        goes to the agent as the next prompt, which stays in Plan mode. A decision that could not be
        sent is ``failed`` and leaves the proposal open."""
        with self._lock:
            proposal = self.proposal
            review = self.source.plan_review
            if proposal is None or review is None:
                raise PlanAnswerError(
                    f"there is no proposed plan waiting for a decision ({self.capabilities.agent} asks for one "
                    "when its Plan-mode turn proposes a plan, and each is answered once)"
                )
            mode = mode if decision != "rejected" else "plan"
            record = self._proposal_answer(proposal.index, decision, comment, comment, mode, review.turn_id)
            self._put(record)
        verb = {"approved": "approve", "revised": "revise"}.get(decision, "reject")
        try:
            self.source.answer_plan_review(verb)
        except Exception as err:
            self._update(record.id, delivery="failed", error=str(err))
            self.notices.append(f"could not send: {err}")
            raise PlanAnswerError(f"the decision was not sent: {err}") from None
        self._update(record.id, delivery="answered")
        if comment is not None:
            active = self.source.active_turn
            if active is None:
                self._start(record.id, comment, "default")
            else:
                self._during_turn(active, record.id, comment, "revision note")
        return self._get(record.id)  # type: ignore[return-value]

    # -- delivery -------------------------------------------------------------------------------
    def _send(self, record: AnswerRecord, message: str, what: str) -> Any:
        with self._lock:
            self._put(record)
            caps = self.capabilities
            active = self.source.active_turn if caps.runs_turns else None
            if not caps.runs_turns:
                self._update(record.id, delivery="failed", error=f"{caps.agent} takes no answers")
                raise PlanAnswerError(
                    f"{type(self.source).__name__} takes no answers ({caps.agent} runs no turn): "
                    "use a cx.Session, a CodexThread or an AcpSession"
                )
            if active is None or caps.mid_turn == "none":
                self._start(record.id, message, "default")
            else:
                self._during_turn(active, record.id, message, what)
        return self._get(record.id)

    def _during_turn(self, handle: Any, record_id: str, message: str, what: str) -> None:
        """Give the running turn the answer, as the source can (``send_during_turn``)."""
        try:
            sent = self.source.send_during_turn(message)
        except TurnError:  # it ended a moment ago: the answer starts the next turn
            self._after(handle, lambda: self._start(record_id, message, "default"))
            return
        if sent.how == "queued":
            self._queued(record_id, sent, what)
            return
        # expected before it is accepted: Codex may report the input recorded before it answers turn/steer
        self._unseen[record_id] = message
        if sent.accepted is None:
            self._steered(record_id, sent.turn_id or handle.turn_id, handle)
        else:
            self._spawn(self._steer_accepted(handle, sent.accepted, record_id, message))

    def _steered(self, record_id: str, turn_id: str | None, handle: Any) -> None:
        self._update(record_id, delivery="steered", turn_id=turn_id, state="sent")
        self._waiting_for_snapshot[record_id] = len(self.timeline)
        if self.capabilities.hands_back_unread:
            self._after(handle, lambda: self._leftover(handle))

    def _leftover(self, handle: Any) -> None:
        """Input steered into a turn that ended before reading it starts the next turn, once."""
        left = handle.take_unread_input()
        if not left:
            return
        ids = [rid for rid, text in list(self._unseen.items()) if text in left]
        for rid in ids:
            self._unseen.pop(rid, None)
        self._start(ids[0] if len(ids) == 1 else None, "\n\n".join(left), "default", also=ids)

    async def _steer_accepted(self, handle: Any, accepted: Any, record_id: str, message: str) -> None:
        try:
            await accepted
        except Exception as err:  # noqa: BLE001 - the turn ended first (or refused): start the next one
            self._unseen.pop(record_id, None)
            if not handle.done():
                with contextlib.suppress(Exception):
                    await asyncio.shield(handle.task)
            self.notices.append(f"the steer was refused ({err}); the answer starts the next turn instead")
            self._start(record_id, message, "default")
            return
        self._steered(record_id, handle.turn_id, handle)

    def _queued(self, record_id: str, sent: Sent, what: str) -> None:
        """The source holds the answer for the running turn's end; it goes in the next prompt."""
        self.notices.append(QUEUED.format(agent=self.capabilities.agent, what=what))
        self._update(record_id, delivery="queued")
        waiter = sent.next_turn
        if waiter is None:
            return
        if waiter not in self._batches:
            self._batches[waiter] = []
            waiter.add_done_callback(self._queue_sent)
        self._batches[waiter].append(record_id)

    def _queue_sent(self, waiter: asyncio.Future[Any]) -> None:
        ids = self._batches.pop(waiter, [])
        err = waiter.exception() if not waiter.cancelled() else asyncio.CancelledError("the queue was dropped")
        if err is not None:
            for rid in ids:
                self._update(rid, delivery="failed", error=str(err))
            self.notices.append(f"could not send after the turn ended: {err}")
            return
        self._started(waiter.result(), ids, "queued")

    def _start(
        self,
        record_id: str | None,
        message: str,
        mode: str,
        *,
        also: Sequence[str] = (),
        delivery: Delivery = "new_turn",
    ) -> None:
        ids = [i for i in [record_id, *also] if i is not None]
        try:
            if self.capabilities.needs_model:
                if self.model is None:
                    raise PlanAnswerError(
                        "no turn is running and this PlanAnswers has no model to start one: "
                        "make it with PlanAnswers(session, model=...)"
                    )
                handle = self.source.start_turn(message, model=self.model, mode=mode)
            else:
                handle = self.source.start_turn(message, mode=mode)
        except Exception as err:
            for rid in ids:
                self._update(rid, delivery="failed", error=str(err))
            self.notices.append(f"could not send: {err}")
            raise
        self._started(handle, ids, delivery)

    def _started(self, handle: Any, ids: Sequence[str], delivery: Delivery) -> None:
        self.turns.append(handle)
        for rid in ids:
            self._update(rid, delivery=delivery, state="sent", turn_id=handle.turn_id or None)
            self._waiting_for_snapshot[rid] = len(self.timeline)
        if self.capabilities.turn_ids == "later" and not handle.turn_id:
            self._spawn(self._turn_id_later(handle, ids))

    async def _turn_id_later(self, handle: Any, ids: Sequence[str]) -> None:
        """A source whose turn ids come later (``capabilities.turn_ids``): ``handle.started`` gives it."""
        try:
            turn_id = await asyncio.shield(handle.started)
        except Exception as err:  # noqa: BLE001 - the agent refused to start the turn: the answer never arrived
            for rid in ids:
                self._waiting_for_snapshot.pop(rid, None)
                self._update(rid, delivery="failed", state="pending", error=str(err))
            self.notices.append(f"could not send: {err}")
            return
        for rid in ids:
            self._update(rid, turn_id=turn_id)

    def _after(self, handle: Any, fn: Callable[[], None]) -> None:
        """Run ``fn`` once ``handle``'s turn has ended (and the source has let go of it)."""
        task = getattr(handle, "task", None)
        if task is None or task.done():
            fn()
            return

        def done(_task: object) -> None:
            try:
                fn()
            except Exception as err:  # noqa: BLE001 - a done callback must not raise into the loop
                self.notices.append(f"could not send after the turn ended: {err}")

        task.add_done_callback(done)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _busy(self) -> bool:
        return self.capabilities.runs_turns and self.source.active_turn is not None

    # -- the agent answers ----------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        kind = event.msg.type
        if kind == "item_started" or kind == "item_completed":
            item: Any = getattr(event.msg, "item", None)
            if isinstance(item, dict) and item.get("type") == "userMessage":  # Codex recorded steered input
                said = json.dumps(item.get("content"))
                for rid, text in list(self._unseen.items()):
                    if json.dumps(text)[1:-1] in said:
                        self._unseen.pop(rid, None)
        elif kind in ("turn_complete", "turn_aborted"):
            with self._lock:
                steps = self.steps
                for rid in list(self._waiting_for_snapshot):
                    record = self._records[rid]
                    if record.turn_id != event.turn_id or not self._seen(rid):
                        continue
                    # the agent read it and ended its turn without a newer plan: judged on the plan it left
                    self._waiting_for_snapshot.pop(rid)
                    if isinstance(record, StepComment):
                        self._update(rid, state="answered")
                    elif isinstance(record, PlanSuggestion):
                        state, held, missed = verdict(record.before, record.after, steps)
                        self._update(rid, state=state, held=held, missed=missed)

    def _seen(self, rid: str) -> bool:
        if rid not in self._unseen:
            return True
        if self.capabilities.hands_back_unread:
            active = self.source.active_turn
            if active is None or not active.unread_input():
                self._unseen.pop(rid, None)  # the runtime drained it into the request before this snapshot
                return True
        return False

    def _on_revision(self) -> None:
        steps = self.steps
        with self._lock:
            for rid, sent_at in list(self._waiting_for_snapshot.items()):
                if len(self.timeline) <= sent_at or not self._seen(rid):
                    continue
                self._waiting_for_snapshot.pop(rid)
                record = self._records[rid]
                if isinstance(record, StepComment):
                    self._comment_answered(record, steps)
                elif isinstance(record, PlanSuggestion):
                    state, held, missed = verdict(record.before, record.after, steps)
                    self._update(rid, state=state, held=held, missed=missed)

    def _comment_answered(self, record: StepComment, steps: tuple[str, ...]) -> None:
        """Answered, or its step is gone: matched as the timeline matches steps (``diff_plans``)."""
        before = self._snapshots.pop(record.id, ())
        diff = diff_plans(
            [PlanStep(step=t, status="pending") for t in before],
            [PlanStep(step=t, status="pending") for t in steps],
            old_index=0,
            new_index=1,
        )
        change = next((c for c in diff.changes if c.old_position == record.step_index), None)
        if change is None or not (change.renamed or change.kind == "removed"):
            self._update(record.id, state="answered")
        elif change.renamed:
            self._update(record.id, state="step_renamed", renamed_to=change.new_step)
        else:
            self._update(record.id, state="step_removed")

    # -- records --------------------------------------------------------------------------------
    def _step_index(self, step: int | str, steps: tuple[str, ...]) -> int:
        listed = "; ".join(f"{i}: {s[:60]}" for i, s in enumerate(steps[:20]))
        if isinstance(step, bool) or not isinstance(step, (int, str)):
            raise PlanAnswerError(f"name the step by its index or its text, got {type(step).__name__}")
        if isinstance(step, int):
            if 0 <= step < len(steps):
                return step
            raise PlanAnswerError(
                f"the agent's plan has no step {step} (it has {len(steps)}: {listed}); "
                "the plan may have changed: comment on a step it has now"
            )
        if step in steps:
            return steps.index(step)
        raise PlanAnswerError(
            f"the agent's plan has no step {step[:80]!r} now (its steps: {listed}); "
            "the agent may have removed or renamed it: comment on a step it has now"
        )

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids)}"

    def _put(self, record: AnswerRecord) -> None:
        with self._lock:
            self._records[record.id] = record
        self._changes.notify(None)

    def _get(self, record_id: str) -> AnswerRecord:
        with self._lock:
            return self._records[record_id]

    def _update(self, record_id: str, **changes: Any) -> None:
        with self._lock:
            record = self._records[record_id]
            if isinstance(record, ProposalAnswer):
                changes.pop("state", None)
            self._records[record_id] = replace(record, **changes)
        self._changes.notify(None)

    def close(self) -> None:
        """Stop following the source (the answers stay; queued ACP prompts are still sent)."""
        self._unsubscribe()
        self._unsubscribe_revisions()
        self._unfollow_reviews()
        if self._own_timeline:
            self._unreport()
        if self._own_timeline:
            self.timeline.close()

    def __repr__(self) -> str:
        return f"<PlanAnswers {self.timeline.thread_id} answers={len(self._records)}>"
