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


def test_the_kept_steps_are_bounded_and_dropped_together_when_full() -> None:
    from codex_nb.protocol import plan

    first = plan_step("kept 0", StepStatus.PENDING)
    for n in range(1, plan.MAX_SHARED + 1):
        plan_step(f"kept {n}", StepStatus.PENDING)
    assert len(plan._SHARED) <= plan.MAX_SHARED
    assert ("kept 0", StepStatus.PENDING) not in plan._SHARED
    assert plan_step("kept 0", StepStatus.PENDING) == first


def test_an_app_server_plan_shares_the_steps_it_repeats_and_validates_the_new_ones() -> None:
    from codex_nb.app_server.notifications import plan_update

    def update(*steps: tuple[str, str]) -> list[PlanItemArg]:
        return plan_update({"explanation": None, "plan": [{"step": s, "status": st} for s, st in steps]}).plan

    before = update(("Read the code", "completed"), ("Write the fix", "inProgress"))
    after = update(("Read the code", "completed"), ("Write the fix", "completed"), ("Run the tests", "pending"))
    assert after[0] is before[0] and after[1] is not before[1]
    assert [(s.step, s.status) for s in after] == [
        ("Read the code", StepStatus.COMPLETED),
        ("Write the fix", StepStatus.COMPLETED),
        ("Run the tests", StepStatus.PENDING),
    ]
    assert all(type(s) is PlanItemArg and type(s.status) is StepStatus for s in after)


def test_an_app_server_plan_is_what_was_sent_when_the_caller_changed_the_last_one() -> None:
    from codex_nb.app_server.notifications import plan_update

    params = {
        "explanation": None,
        "plan": [{"step": "Read", "status": "pending"}, {"step": "Fix", "status": "pending"}],
    }
    first = plan_update(params)
    params["plan"][0]["status"] = "completed"  # the same dicts, changed in place, sent again
    first.plan.reverse()
    again = plan_update(params).plan
    assert [(s.step, s.status) for s in again] == [("Read", StepStatus.COMPLETED), ("Fix", StepStatus.PENDING)]
    assert again[1] is first.plan[0]  # the unchanged step, reused from where it was sent
