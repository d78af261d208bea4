"""What a person said back to the plan: comments on steps, suggested changes, decisions on proposals.

The agent's plan is its own (a checklist still replaces it whole on every snapshot); these
records sit beside it. Each is frozen: ``PlanAnswers`` replaces a record with a new one as its
state moves (sent, answered, adopted...), so a report or a test holding one sees a fixed fact.
``answer_data`` is the JSON form every export and cassette uses.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from dataclasses import dataclass
from ..errors import CodexNbError

Delivery = Literal["steered", "queued", "new_turn", "answered", "not_sent", "failed"]
"""How a person's answer reached the agent: ``steered`` into the running turn (codex_nb's runtime,
``turn/steer``), ``queued`` for the next prompt (an ACP agent has no steering), ``new_turn`` (no turn
was running), ``answered`` (the decision answered the agent's own request: an ACP plan review),
``not_sent`` (only recorded, e.g. a rejected proposal) or ``failed`` (``error`` says why)."""

CommentState = Literal["pending", "sent", "answered", "step_removed", "step_renamed"]
SuggestionState = Literal["pending", "sent", "adopted", "partly_adopted", "ignored"]
Decision = Literal["approved", "revised", "rejected"]


@dataclass(frozen=True, kw_only=True, slots=True)
class StepComment:
    """A person's comment on one step of the agent's plan."""

    id: str
    time: float
    who: str
    step_index: int
    """0-based position of the step in the snapshot the person commented on."""
    step: str
    """The step's text then."""
    text: str
    turn_id: str | None = None
    """The turn it was steered into, or the turn it started."""
    delivery: Delivery = "queued"
    state: CommentState = "pending"
    renamed_to: str | None = None
    """For ``step_renamed``: the step's new text in the agent's newer snapshot."""
    error: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class PlanSuggestion:
    """A change to the plan a person proposed: the whole list of steps as they want it."""

    id: str
    time: float
    who: str
    before: tuple[str, ...]
    """The agent's steps when the person suggested the change."""
    after: tuple[str, ...]
    """The steps the person proposed."""
    diff: str
    """The readable diff sent to the agent (``suggestion_diff``)."""
    turn_id: str | None = None
    delivery: Delivery = "queued"
    state: SuggestionState = "pending"
    held: tuple[str, ...] = ()
    """Once decided: the proposed changes the agent's next snapshot carries."""
    missed: tuple[str, ...] = ()
    """Once decided: the proposed changes it does not."""
    error: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class ProposalAnswer:
    """A person's answer to a proposed plan of Plan mode."""

    id: str
    time: float
    who: str
    proposal_index: int
    """``PlanTimeline.proposals`` index of the proposed plan answered."""
    decision: Decision
    comment: str | None = None
    message: str | None = None
    """What was sent to the agent (``Implement the plan.`` on approval, as Codex's TUI sends)."""
    mode: str | None = None
    """The collaboration mode of the turn it started (``default`` to implement, ``plan`` to revise)."""
    turn_id: str | None = None
    delivery: Delivery = "not_sent"
    error: str | None = None


AnswerRecord = StepComment | PlanSuggestion | ProposalAnswer

KIND = {StepComment: "comment", PlanSuggestion: "suggestion", ProposalAnswer: "proposal_answer"}


def answer_data(answer: AnswerRecord) -> dict[str, Any]:
    """The JSON form of one record, with its ``kind``."""
    data = dataclasses.asdict(answer)
    for key, value in data.items():
        if isinstance(value, tuple):
            data[key] = list(value)
    return {"kind": KIND[type(answer)], **data}


def answer_line(answer: AnswerRecord) -> str:
    """One answer in one line, as a report lists it: who, what, and what the agent did with it."""
    if isinstance(answer, StepComment):
        after = f" (renamed to “{answer.renamed_to}”)" if answer.renamed_to else ""
        return (
            f"{answer.who} commented on step {answer.step_index + 1} “{answer.step}”: {answer.text} "
            f"[{answer.delivery}, {answer.state}{after}]"
        )
    if isinstance(answer, PlanSuggestion):
        changes = "; ".join(line for line in answer.diff.splitlines() if line and line[0] in "+-~>")
        return f"{answer.who} suggested a change ({changes}) [{answer.delivery}, {answer.state}]"
    note = f": {answer.comment}" if answer.comment else ""
    return f"{answer.who} {answer.decision} proposed plan {answer.proposal_index}{note} [{answer.delivery}]"


def answer_from_data(data: dict[str, Any]) -> AnswerRecord:
    """The record ``answer_data`` wrote (what a cassette replays)."""
    fields = {k: v for k, v in data.items() if k != "kind"}
    kind = data.get("kind")
    for cls, name in KIND.items():
        if name == kind:
            names = {f.name for f in dataclasses.fields(cls)}
            if set(fields) - names:
                raise ValueError(f"a recorded {kind} has unknown fields {sorted(set(fields) - names)}")
            for key in ("before", "after", "held", "missed"):
                if key in fields:
                    fields[key] = tuple(fields[key])
            answer: AnswerRecord = cls(**fields)
            return answer
    raise ValueError(f"unknown answer kind {kind!r}: expected comment, suggestion or proposal_answer")


class PlanAnswerError(CodexNbError, ValueError):
    """A comment, suggestion or decision was refused; the message says what was wrong and what to do.
    Nothing was sent."""
