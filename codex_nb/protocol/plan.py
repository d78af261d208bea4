"""The ``update_plan`` argument types (Codex ``plan_tool.rs``), strict like serde.

Unknown keys are rejected at both levels, ``plan`` is required (it may be empty) and
``explanation`` may be missing or null. Field order is the wire order. A plan step is a
pydantic dataclass (see ``PlanItemArg``); the plan itself is a model.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import dataclass


class StepStatus(StrEnum):
    """A plan step's status; snake_case on the model and core-event surfaces."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


# A slotted pydantic dataclass, not a model: a turn keeps every plan it is sent, and one
# object per step (a model is three) is what the garbage collector then walks.
@dataclass(frozen=True, slots=True, kw_only=True, config=ConfigDict(defer_build=True, extra="forbid"))
class PlanItemArg:
    """One checklist step (frozen; validated like a model: ``PlanItemArg(step=..., status=...)``)."""

    step: str
    status: StepStatus


class UpdatePlanArgs(BaseModel):
    """The whole plan snapshot the model sends; also the PlanUpdate event payload."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    explanation: str | None = None
    plan: list[PlanItemArg]
