"""PlanAnswers decides how an answer reaches an agent from the source's ``capabilities`` alone.

A source made outside codex_nb (its kind is ``other``: no module of codex_nb names it) that says
it queues gets its answers queued through its own ``send_during_turn``; one that says it steers
has them steered; one that says it needs a model gets ``model=``. Before capabilities, PlanAnswers
chose by the source's kind and refused every source it did not know."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers.plan_timelines import BusSource

import codex_nb as cx
from codex_nb.protocol.capabilities import PlanReview, Sent
from codex_nb.protocol.events import ItemCompleted, TurnComplete, TurnStarted
from codex_nb.timeline.answer_records import PlanAnswerError
from codex_nb.timeline.answers import PlanAnswers
from codex_nb.timeline.records import SourceKind


class Turn:
    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self.task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def done(self) -> bool:
        return self.task.done()

    def interrupt(self) -> bool:
        return False

    def __await__(self) -> Any:
        return self.task.__await__()


class ThirdPartyAgent(BusSource):
    """An agent source of its own: it says what it offers and implements the verbs as it can."""

    def __init__(self, capabilities: cx.Capabilities) -> None:
        super().__init__("third-party")
        self.capabilities = capabilities
        self.active_turn: Turn | None = None
        self.started: list[tuple[str, dict[str, Any]]] = []
        self.during: list[str] = []
        self._queue: asyncio.Future[Any] | None = None

    def start_turn(self, text: str, **options: Any) -> Turn:
        self.started.append((text, options))
        self.active_turn = Turn(f"t{len(self.started)}")
        self.bus.emit(TurnStarted(turn_id=self.active_turn.turn_id), id="x", turn_id=self.active_turn.turn_id)
        return self.active_turn

    def end_turn(self) -> None:
        turn, self.active_turn = self.active_turn, None
        assert turn is not None
        self.bus.emit(TurnComplete(turn_id=turn.turn_id), id="x", turn_id=turn.turn_id)
        turn.task.set_result("completed")

    def send_during_turn(self, text: str) -> Sent:
        assert self.active_turn is not None
        self.during.append(text)
        if self.capabilities.mid_turn == "steer":
            return Sent(how="steered", turn_id=self.active_turn.turn_id)
        if self._queue is None:
            self._queue = asyncio.get_running_loop().create_future()
            self.active_turn.task.add_done_callback(lambda _t: self._send_queue())
        return Sent(how="queued", turn_id=None, next_turn=self._queue)

    def _send_queue(self) -> None:
        waiter, self._queue = self._queue, None
        assert waiter is not None
        waiter.set_result(self.start_turn("\n\n".join(self.during)))


PLAN = [("Read the data", "in_progress"), ("Plot it", "pending")]


@pytest.mark.parametrize("mid_turn", ["steer", "queue"])
async def test_an_answer_goes_the_way_the_source_says(mid_turn: str) -> None:
    caps = cx.Capabilities(agent="my agent", runs_turns=True, mid_turn=mid_turn, interrupt=True)  # type: ignore[arg-type]
    source = ThirdPartyAgent(caps)
    answers = PlanAnswers(source)
    assert answers.kind is SourceKind.OTHER  # a label only: nothing below reads it
    source.start_turn("plot the data")
    source.plan(PLAN, revision=1)
    comment = answers.comment(1, "Use bars")
    assert source.during == ['Comment on step 2 of your plan ("Plot it"):\nUse bars']
    if mid_turn == "steer":
        assert comment.delivery == "steered" and comment.turn_id == "t1"
        assert answers.notices == []
    else:
        assert comment.delivery == "queued" and comment.turn_id is None
        assert answers.notices == [
            "my agent takes no input while a turn runs: your comment will be sent as the next prompt when the turn ends"
        ]
        sent = asyncio.Event()
        answers.on_change(lambda: answers.turns and sent.set())
        source.end_turn()
        await sent.wait()  # the source sent its queue as the next turn, and said so
        assert answers.comments[0].delivery == "queued" and answers.comments[0].turn_id == "t2"
        assert answers.turns == [source.active_turn]
    answers.close()


async def test_a_source_that_needs_a_model_gets_it_and_one_that_does_not_never_does() -> None:
    model = object()
    needs = ThirdPartyAgent(cx.Capabilities(runs_turns=True, needs_model=True))
    answers = PlanAnswers(needs, model=model)
    needs.plan(PLAN, revision=1)
    answers.comment(0, "Read it twice")  # no turn runs: the answer starts one
    assert needs.started[-1][1] == {"model": model, "mode": "default"}
    brings = ThirdPartyAgent(cx.Capabilities(runs_turns=True, needs_model=False))
    own = PlanAnswers(brings, model=model)
    brings.plan(PLAN, revision=1)
    own.comment(0, "Read it twice")
    assert brings.started[-1][1] == {"mode": "default"}
    answers.close()
    own.close()


class ReviewingAgent(ThirdPartyAgent):
    """A source of its own whose agent waits on its proposed plan (``capabilities.plan_review``)
    and whose first answer cannot be sent (its connection dropped a moment)."""

    def __init__(self) -> None:
        super().__init__(cx.Capabilities(agent="my agent", runs_turns=True, mid_turn="queue", plan_review=True))
        self.plan_review: PlanReview | None = None
        self.answered: list[str] = []
        self.fail_next = True
        self._followers: list[Any] = []

    def on_plan_review(self, fn: Any) -> Any:
        self._followers.append(fn)
        return lambda: self._followers.remove(fn)

    def propose(self, text: str) -> None:
        turn = self.active_turn
        assert turn is not None
        item = {"type": "plan", "id": "plan-1", "text": text}
        self.bus.emit(ItemCompleted(thread_id="t", turn_id=turn.turn_id, item=item, completed_at_ms=0), id="x")
        self.plan_review = PlanReview(id="r1", turn_id=turn.turn_id, item_id="plan-1", text=text)
        for fn in self._followers:
            fn()

    def answer_plan_review(self, decision: str) -> PlanReview:
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("the agent's connection dropped")
        review, self.plan_review = self.plan_review, None
        assert review is not None
        self.answered.append(decision)
        for fn in self._followers:
            fn()
        return review


async def test_a_review_decision_that_fails_to_send_leaves_the_proposal_open() -> None:
    source = ReviewingAgent()
    answers = PlanAnswers(source)
    changed: list[int] = []
    answers.on_change(lambda: changed.append(1))
    source.start_turn("plan it")
    source.propose("1. Read\n2. Write")
    assert changed and answers.proposal is not None and answers.proposal.text == "1. Read\n2. Write"
    # the turn runs while the agent waits: the decision answers it, it does not wait for the end
    with pytest.raises(PlanAnswerError, match="the decision was not sent: the agent's connection dropped"):
        answers.approve()
    assert answers.decisions[0].delivery == "failed" and answers.proposal is not None
    decision = answers.approve()
    assert (decision.delivery, decision.turn_id, source.answered) == ("answered", "t1", ["approve"])
    assert answers.proposal is None and source.started == [("plan it", {})]
    answers.close()
    assert source._followers == []
