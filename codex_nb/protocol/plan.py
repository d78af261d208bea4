"""The ``update_plan`` argument types (Codex ``plan_tool.rs``), strict like serde.

Unknown keys are rejected at both levels, ``plan`` is required (it may be empty) and
``explanation`` may be missing or null. Field order is the wire order.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class StepStatus(StrEnum):
    """A plan step's status; snake_case on the model and core-event surfaces."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


class PlanItemArg(BaseModel):
    """One checklist step."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    step: str
    status: StepStatus


class UpdatePlanArgs(BaseModel):
    """The whole plan snapshot the model sends; also the PlanUpdate event payload."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    explanation: str | None = None
    plan: list[PlanItemArg]
