"""App-server v2 shapes that consumers written for Codex expect
(codex-rs/app-server-protocol/src/protocol/v2), so they read ours unchanged.

Only the notification the plan widget mirrors lives here for now:
``turn/plan/updated`` with camelCase keys and ``inProgress``.
"""

from __future__ import annotations

from typing import Any

from .plan import PlanItemArg, StepStatus, UpdatePlanArgs

_V2_STATUS = {StepStatus.PENDING: "pending", StepStatus.IN_PROGRESS: "inProgress", StepStatus.COMPLETED: "completed"}


def _coerce_args(args: UpdatePlanArgs | dict[str, Any] | Any) -> UpdatePlanArgs:
    if isinstance(args, UpdatePlanArgs):
        return args
    if isinstance(args, dict):
        return UpdatePlanArgs.model_validate(args)
    if hasattr(args, "plan"):  # a PlanUpdate event message
        return UpdatePlanArgs(explanation=getattr(args, "explanation", None), plan=list(args.plan))
    raise TypeError(f"expected UpdatePlanArgs, a PlanUpdate or a dict, got {type(args).__name__}")


def v2_status(status: StepStatus | str) -> str:
    """Core ``in_progress`` -> app-server ``inProgress``."""
    return _V2_STATUS[StepStatus(status)]


def turn_plan_updated(thread_id: str, turn_id: str, args: UpdatePlanArgs | dict[str, Any]) -> dict[str, Any]:
    """The ``turn/plan/updated`` notification; ``explanation`` is always present (null if absent)."""
    parsed = _coerce_args(args)
    return {
        "method": "turn/plan/updated",
        "params": {
            "threadId": thread_id,
            "turnId": turn_id,
            "explanation": parsed.explanation,
            "plan": [_v2_step(item) for item in parsed.plan],
        },
    }


def _v2_step(item: PlanItemArg) -> dict[str, str]:
    return {"step": item.step, "status": v2_status(item.status)}
