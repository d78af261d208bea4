"""Core events: ``Event{id, msg}`` with one class per ``msg.type`` (Codex ``EventMsg``).

``msg.model_dump(mode="json")`` is Codex's wire JSON, field order included. What
codex_nb adds (thread, turn, a per-thread plan ``revision``, a bus sequence number)
lives on the envelope and is excluded from the wire form, so the payload stays exact.
Other modules define further message kinds by subclassing ``EventMsg``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from .plan import PlanItemArg, UpdatePlanArgs


class EventMsg(BaseModel):
    """Base of every event payload; subclasses set ``type`` to the Codex wire name."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")
    type: str

    def to_wire(self) -> dict[str, Any]:
        """This payload as Codex's wire JSON (the ``msg`` of an event): ``type`` and the fields in
        Codex's order, with what codex_nb adds for itself (e.g. an ACP plan's priorities) left out."""
        return self.model_dump(mode="json")


class PlanUpdate(EventMsg):
    """``plan_update``: the complete plan, exactly as parsed (explanation always present)."""

    type: Literal["plan_update"] = "plan_update"
    explanation: str | None = None
    plan: list[PlanItemArg]

    @classmethod
    def from_args(cls, args: UpdatePlanArgs) -> PlanUpdate:
        """The event for an accepted ``update_plan`` call's parsed arguments."""
        return cls(explanation=args.explanation, plan=list(args.plan))

    def args(self) -> UpdatePlanArgs:
        """The plan as ``update_plan`` arguments again (explanation and steps), e.g. to diff or render."""
        return UpdatePlanArgs(explanation=self.explanation, plan=list(self.plan))


class TurnStarted(EventMsg):
    type: Literal["turn_started"] = "turn_started"
    turn_id: str
    model_context_window: int | None = None
    collaboration_mode_kind: str = "default"


class TurnComplete(EventMsg):
    type: Literal["turn_complete"] = "turn_complete"
    turn_id: str
    last_agent_message: str | None = None


class TurnAborted(EventMsg):
    """``turn_aborted``; reason is one of interrupted | replaced | review_ended | budget_limited."""

    type: Literal["turn_aborted"] = "turn_aborted"
    turn_id: str | None = None
    reason: str = "interrupted"
    started_at: int | None = None
    completed_at: int | None = None
    duration_ms: int | None = None


class AgentMessage(EventMsg):
    type: Literal["agent_message"] = "agent_message"
    message: str


class UserMessage(EventMsg):
    """Codex's ``user_message``: what the person said, as it was sent (a prompt, steered input, a
    comment from the plan widget, a queued ACP prompt) or as an agent replays it; every source
    emits it, so a transcript shows both sides of the conversation."""

    type: Literal["user_message"] = "user_message"
    message: str


class AgentMessageDelta(EventMsg):
    """``agent_message_delta``: a chunk of the assistant's streamed reply (Codex core event)."""

    type: Literal["agent_message_delta"] = "agent_message_delta"
    delta: str


class ErrorEvent(EventMsg):
    """``error``: the turn failed; ``message`` is e.g. ``Fatal error: ...``."""

    type: Literal["error"] = "error"
    message: str


class WarningEvent(EventMsg):
    """``warning``: something went wrong that did not stop the turn (e.g. a detached subscriber)."""

    type: Literal["warning"] = "warning"
    message: str


class ItemStarted(EventMsg):
    """``item_started`` for a core ``TurnItem`` (here only ``{"type":"Sleep",...}``); not persisted."""

    type: Literal["item_started"] = "item_started"
    thread_id: str
    turn_id: str
    item: dict[str, Any]
    started_at_ms: int


class ItemCompleted(EventMsg):
    """``item_completed``; a ``Sleep`` item's completion is persisted to the rollout, as Codex does."""

    type: Literal["item_completed"] = "item_completed"
    thread_id: str
    turn_id: str
    item: dict[str, Any]
    completed_at_ms: int


class Event(BaseModel):
    """The envelope every consumer receives. Wire form: ``{"id": ..., "msg": {...}}``."""

    model_config = ConfigDict(defer_build=True, frozen=True)  # a BaseModel takes keywords only

    id: str
    msg: SerializeAsAny[EventMsg]
    thread_id: str = Field(default="", exclude=True)
    turn_id: str | None = Field(default=None, exclude=True)
    seq: int = Field(default=0, exclude=True)
    revision: int | None = Field(default=None, exclude=True)
    """Per-thread monotonic plan revision (PlanUpdate only); not part of Codex's payload."""
