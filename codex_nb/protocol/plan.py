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


MAX_SHARED = 256
"""At most this many steps of up to 1,000 characters are kept for sharing, so a peer's long or
many steps cost no memory (the whole table is dropped when it is full)."""
_SHARED: dict[tuple[str, StepStatus], PlanItemArg] = {}


def plan_step(step: str, status: StepStatus) -> PlanItemArg:
    """``PlanItemArg(step=step, status=status)``, shared with earlier plans that had the same step.

    An ACP agent sends the whole plan on every update, and most steps repeat; the step is frozen,
    so one object serves them all (the ACP mapping builds its changed steps here). The app-server's
    mapping reuses the previous plan's step at the same place instead (``plan_update``): one C-level
    comparison of the whole plan, where looking each new text up here cost it 2 us of a plan of
    eight new steps (2026-12-05).
    """
    key = (step, status)
    item = _SHARED.get(key)
    if item is None:
        item = PlanItemArg(step=step, status=status)
        if len(step) <= 1_000:
            if len(_SHARED) >= MAX_SHARED:
                _SHARED.clear()
            _SHARED[key] = item
    return item


class UpdatePlanArgs(BaseModel):
    """The whole plan snapshot the model sends; also the PlanUpdate event payload."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    explanation: str | None = None
    plan: list[PlanItemArg]
