"""Interrupting a turn mid-way (turn/interrupt), and the history the next turn sees."""

from __future__ import annotations

from ..scenario import INTERRUPT, Scenario
from ._build import DONE, call

P = {"plan": [{"step": "a", "status": "in_progress"}]}

SCENARIOS = [
    Scenario(
        name="followup_turn_sees_plan_history",
        responses=[[call("update_plan", P)], DONE],
        followup=[[call("update_plan", {"plan": [{"step": "a", "status": "completed"}]}, "c2")], DONE],
    ),
    Scenario(
        name="interrupt_after_two_calls",
        responses=[[call("update_plan", P, "c1"), call("nope", {}, "c2")], INTERRUPT],
        followup=[DONE],
    ),
    Scenario(name="interrupt_while_sampling_first", responses=[INTERRUPT], followup=[DONE]),
    Scenario(name="interrupt_after_plan", responses=[[call("update_plan", P)], INTERRUPT], followup=[DONE]),
    Scenario(
        name="interrupt_waiting_for_user_input",
        mode="plan",
        responses=[
            [
                call(
                    "request_user_input",
                    {
                        "questions": [
                            {
                                "id": "q1",
                                "header": "H",
                                "question": "Q?",
                                "options": [{"label": "A", "description": "a"}],
                            }
                        ]
                    },
                )
            ],
            INTERRUPT,
        ],
        answers=[{"answers": {"q1": {"answers": ["A"]}}}],
        followup=[DONE],
    ),
]
