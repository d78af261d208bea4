"""``plan_step``: the step a peer's plan update names, shared with the plans before it."""

from __future__ import annotations

import pytest

from codex_nb.protocol.plan import PlanItemArg, StepStatus, plan_step


@pytest.mark.parametrize("status", list(StepStatus))
def test_a_step_is_the_validated_step_and_a_repeated_one_is_the_same_object(status: StepStatus) -> None:
    step = plan_step("Write the tests", status)
    assert step == PlanItemArg(step="Write the tests", status=status) and type(step.status) is StepStatus
    assert plan_step("Write the tests", status) is step
    assert (
        plan_step("Write the tests", StepStatus.PENDING if status is not StepStatus.PENDING else StepStatus.COMPLETED)
        != step
    )


def test_long_steps_are_not_kept() -> None:
    long = "x" * 1_001
    assert plan_step(long, StepStatus.PENDING) == PlanItemArg(step=long, status=StepStatus.PENDING)
    assert plan_step(long, StepStatus.PENDING) is not plan_step(long, StepStatus.PENDING)
