"""The ``update_plan`` argument types (Codex ``plan_tool.rs``), strict like serde.

Unknown keys are rejected at both levels, ``plan`` is required (it may be empty) and
``explanation`` may be missing or null. Field order is the wire order. A plan step is a
pydantic dataclass (see ``PlanItemArg``); the plan itself is a model.
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache

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


def plan_step(step: str, status: StepStatus) -> PlanItemArg:
    """``PlanItemArg(step=step, status=status)``, shared with earlier plans that had the same step.

    A peer (the app-server, an ACP agent) sends the whole plan on every update, and most steps
    repeat; the step is frozen, so one object serves them all. Measured on a 6-step app-server
    plan update: 7-10 us with it, 20-35 us building and validating every step anew, the same as
    the slot writes it replaced (2026-12-04, tests/benchmarks/bench_app_server.py). At most 256
    steps of up to 1,000 characters are kept, so a peer's long or many steps cost no memory.
    """
    if len(step) > 1_000:
        return PlanItemArg(step=step, status=status)
    return _shared_step(step, status)


@lru_cache(maxsize=256)
def _shared_step(step: str, status: StepStatus) -> PlanItemArg:
    return PlanItemArg(step=step, status=status)


class UpdatePlanArgs(BaseModel):
    """The whole plan snapshot the model sends; also the PlanUpdate event payload."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    explanation: str | None = None
    plan: list[PlanItemArg]
