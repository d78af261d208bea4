"""request_user_input in and out of Plan mode, and request_permissions."""

from __future__ import annotations

from ..scenario import UPDATE_PLAN_ON, Scenario
from ._build import DONE, call

Q = {
    "id": "q1",
    "header": "Pick",
    "question": "Which one?",
    "options": [{"label": "A (Recommended)", "description": "first"}, {"label": "B", "description": "second"}],
}
A = {"answers": {"q1": {"answers": ["A (Recommended)"]}}}
RUI_DEFAULT = UPDATE_PLAN_ON + "\n[features]\ndefault_mode_request_user_input = true\n"
PERMS = UPDATE_PLAN_ON + "\n[features]\nrequest_permissions_tool = true\n"


def rui(
    name: str,
    args: object,
    *,
    mode: str = "plan",
    answers: list | None = None,
    config: str = UPDATE_PLAN_ON,
    responses: list | None = None,
) -> Scenario:
    return Scenario(
        name=name,
        mode=mode,
        config=config,
        answers=answers if answers is not None else [A],
        responses=responses or [[call("request_user_input", args)], DONE],
    )


SCENARIOS = [
    rui("rui_plan_mode_one_question", {"questions": [Q]}),
    rui("rui_default_mode", {"questions": [Q]}, mode="default"),
    Scenario(
        name="rui_default_mode_feature_on",
        mode="default",
        config=RUI_DEFAULT,
        answers=[A],
        responses=[[call("request_user_input", {"questions": [Q]})], DONE],
    ),
    rui(
        "rui_plan_two_questions",
        {"questions": [Q, {**Q, "id": "q2", "header": "Other"}]},
        answers=[{"answers": {"q1": {"answers": ["B"]}, "q2": {"answers": ["A (Recommended)"]}}}],
    ),
    rui(
        "rui_plan_no_options",
        {"questions": [{"id": "q1", "header": "Name", "question": "Your name?"}]},
        answers=[{"answers": {"q1": {"answers": ["Ada"]}}}],
    ),
    rui("rui_plan_is_other_false", {"questions": [{**Q, "isOther": False}]}),
    rui("rui_plan_is_secret", {"questions": [{**Q, "isSecret": True}]}),
    rui("rui_plan_empty_questions", {"questions": []}, answers=[{"answers": {}}]),
    rui("rui_plan_missing_questions", {}, answers=[]),
    rui("rui_plan_questions_not_list", {"questions": "which?"}, answers=[]),
    rui("rui_plan_question_missing_id", {"questions": [{"header": "h", "question": "q"}]}, answers=[]),
    rui("rui_plan_bad_json", "{questions", answers=[]),
    rui("rui_plan_empty_answer", {"questions": [Q]}, answers=[{"answers": {}}]),
    rui("rui_plan_auto_resolution", {"questions": [Q], "autoResolutionMs": 60000}),
    rui("rui_plan_auto_resolution_negative", {"questions": [Q], "autoResolutionMs": -1}),
    rui(
        "rui_plan_unknown_option_key",
        {"questions": [{**Q, "options": [{"label": "A", "description": "a", "x": 1}]}]},
        answers=[{"answers": {"q1": {"answers": ["A"]}}}],
    ),
    rui("rui_plan_question_is_number", {"questions": [5]}, answers=[]),
    rui("rui_plan_questions_null", {"questions": None}, answers=[]),
    rui("rui_plan_options_not_list", {"questions": [{**Q, "options": "A or B"}]}, answers=[]),
    rui("rui_plan_option_missing_description", {"questions": [{**Q, "options": [{"label": "A"}]}]}, answers=[]),
    rui(
        "rui_plan_four_questions",
        {"questions": [{**Q, "id": f"q{i}"} for i in range(1, 5)]},
        answers=[{"answers": {f"q{i}": {"answers": ["B"]} for i in range(1, 5)}}],
    ),
    rui("rui_plan_answer_other_text", {"questions": [Q]}, answers=[{"answers": {"q1": {"answers": ["my own words"]}}}]),
    rui("rui_default_mode_bad_args", "{nope", mode="default", answers=[]),
    rui("rui_plan_struct_as_array", [[Q]]),
    Scenario(
        name="perm_request_read",
        config=PERMS,
        answers=[{"permissions": {"fileSystem": {"read": ["/tmp/x"]}}, "scope": "turn"}],
        responses=[
            [call("request_permissions", {"reason": "need it", "permissions": {"file_system": {"read": ["/tmp/x"]}}})],
            DONE,
        ],
    ),
    Scenario(
        name="perm_request_denied",
        config=PERMS,
        answers=[{"permissions": {}, "scope": "turn"}],
        responses=[[call("request_permissions", {"permissions": {"network": {"enabled": True}}})], DONE],
    ),
    Scenario(
        name="perm_unknown_key",
        config=PERMS,
        responses=[[call("request_permissions", {"permissions": {"gpu": True}})], DONE],
    ),
    Scenario(
        name="perm_missing_permissions", config=PERMS, responses=[[call("request_permissions", {"reason": "x"})], DONE]
    ),
    Scenario(
        name="perm_reason_number",
        config=PERMS,
        responses=[[call("request_permissions", {"reason": 3, "permissions": {"network": {"enabled": True}}})], DONE],
    ),
    Scenario(name="perm_bad_json", config=PERMS, responses=[[call("request_permissions", '{"permissions": ')], DONE]),
    Scenario(
        name="perm_write_relative_path",
        config=PERMS,
        responses=[[call("request_permissions", {"permissions": {"file_system": {"write": ["out/reports"]}}})], DONE],
    ),
    Scenario(
        name="perm_on_request_granted_turn",
        config=PERMS,
        approval_policy="on-request",
        answers=[{"permissions": {"network": {"enabled": True}}, "scope": "turn"}],
        responses=[
            [call("request_permissions", {"reason": "fetch docs", "permissions": {"network": {"enabled": True}}})],
            DONE,
        ],
    ),
    Scenario(
        name="perm_on_request_granted_session_fs",
        config=PERMS,
        approval_policy="on-request",
        answers=[{"permissions": {"fileSystem": {"write": ["<WORK>/out"]}}, "scope": "session"}],
        responses=[[call("request_permissions", {"permissions": {"file_system": {"write": ["out"]}}})], DONE],
    ),
    Scenario(
        name="perm_on_request_denied",
        config=PERMS,
        approval_policy="on-request",
        answers=[{"permissions": {}, "scope": "turn"}],
        responses=[[call("request_permissions", {"permissions": {"network": {"enabled": True}}})], DONE],
    ),
    Scenario(name="perm_tool_off", responses=[[call("request_permissions", {"permissions": {}})], DONE]),
    Scenario(name="perm_bad_args", config=PERMS, responses=[[call("request_permissions", {"permissions": 5})], DONE]),
    Scenario(
        name="perm_empty_permissions",
        config=PERMS,
        responses=[[call("request_permissions", {"permissions": {}})], DONE],
    ),
]
