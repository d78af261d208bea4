"""``update_plan``: parse the checklist, emit one PlanUpdate, answer ``Plan updated``
(codex-rs/core/src/tools/handlers/plan.rs).

The order of checks is Codex's: payload kind, Plan mode (before parsing), strict
parse, then the event. The handler keeps no plan state. An optional validation
(``Config.plan_validation``) for "at most one in_progress" runs after parsing;
``off`` (the default) is Codex behaviour.
"""

from __future__ import annotations

import logging
from typing import Any

from ...protocol.events import PlanUpdate, WarningEvent
from ...protocol.plan import StepStatus, UpdatePlanArgs
from ...protocol.serde import SerdeError, parse_strict
from ..base import Tool
from ..tool_errors import RespondToModel
from ..invocation import ModeKind, ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec

log = logging.getLogger("codex_nb.update_plan")

DESCRIPTION = (
    "Updates the task plan.\n"
    "Provide an optional explanation and a list of plan items, each with a step and status.\n"
    "At most one step can be in_progress at a time.\n"
)
PLAN_MODE_ERROR = "update_plan is a TODO/checklist tool and is not allowed in Plan mode"
UNSUPPORTED_PAYLOAD = "update_plan handler received unsupported payload"
RECEIPT = "Plan updated"


def update_plan_parameters() -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {
            "status": {
                "type": "string",
                "description": "Step status.",
                "enum": ["pending", "in_progress", "completed"],
            },
            "step": {"type": "string", "description": "Task step text."},
        },
        "required": ["step", "status"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "explanation": {"type": "string", "description": "Optional explanation for this plan update."},
            "plan": {"type": "array", "description": "The list of steps", "items": item},
        },
        "required": ["plan"],
        "additionalProperties": False,
    }


def too_many_in_progress(args: UpdatePlanArgs) -> str | None:
    count = sum(1 for item in args.plan if item.status is StepStatus.IN_PROGRESS)
    if count <= 1:
        return None
    return (
        f"plan validation failed: {count} steps are in_progress, but at most one step can be "
        f"in_progress at a time; mark the others pending or completed"
    )


_PLAN_MODE = ModeKind.PLAN  # an enum member read through its class costs a lookup on every call


class UpdatePlanTool(Tool):
    is_control_tool = True
    inline_start = True  # parse, emit, return: nothing to wait for

    def __init__(self) -> None:
        super().__init__("update_plan")

    def spec(self) -> dict[str, Any]:
        return function_spec("update_plan", DESCRIPTION, update_plan_parameters())

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel(UNSUPPORTED_PAYLOAD)
        if invocation.turn.mode == _PLAN_MODE:
            raise RespondToModel(PLAN_MODE_ERROR)
        try:
            args = parse_strict(UpdatePlanArgs, invocation.payload_text)
        except SerdeError as err:
            raise RespondToModel(f"failed to parse function arguments: {err}") from None
        if invocation.turn.config.plan_validation != "off":
            await self._validate(invocation, args)
        await invocation.emit(PlanUpdate.from_args(args), revision=invocation.turn.next_plan_revision())
        return ToolOutput(body=RECEIPT, success=True, code_mode_result={})

    @staticmethod
    async def _validate(invocation: ToolInvocation, args: UpdatePlanArgs) -> None:
        policy = invocation.turn.config.plan_validation
        problem = too_many_in_progress(args) if policy != "off" else None
        if problem is None:
            return
        if policy == "reject":
            raise RespondToModel(problem)
        log.warning(problem)
        await invocation.emit(WarningEvent(message=problem))
