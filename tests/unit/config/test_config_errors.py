"""``cx.Config`` errors name the field, what it accepts and the likely typo, never a raw pydantic dump."""

from __future__ import annotations

import pytest

import codex_nb as cx

FIELDS = (
    "approval_policy, code_mode, default_mode_request_user_input, extra, forward_auto_resolution, hooks, "
    "hooks_enabled, layers, model_slug, namespace_tools, notebook_tools, origins, plan_validation, request_permissions_tool, "
    "request_user_input_enabled, update_plan_enabled, view_image, web_search"
)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            {"plan_validaton": "warn"},
            f"Config has no field `plan_validaton` (did you mean `plan_validation`?); known fields: {FIELDS}",
        ),
        ({"plan_validation": "strict"}, "Config.plan_validation must be one of 'off', 'warn', 'reject', got 'strict'"),
        (
            {"plan_validation": "rejct"},
            "Config.plan_validation must be one of 'off', 'warn', 'reject', got 'rejct' (did you mean `reject`?)",
        ),
        (
            {"approval_policy": "on_request"},
            "Config.approval_policy must be one of 'untrusted', 'on-failure', "
            "'on-request', 'never', got 'on_request' (did you mean `on-request`?)",
        ),
    ],
)
def test_bad_config_values_raise_config_error(values, message):
    with pytest.raises(cx.ConfigError) as caught:
        cx.Config(**values)
    assert str(caught.value) == message
    assert "pydantic" not in str(caught.value) and "https://" not in str(caught.value)


def test_assignment_and_toml_give_the_same_error():
    config = cx.Config()
    with pytest.raises(
        cx.ConfigError,
        match=r"^Config.plan_validation must be one of 'off', 'warn', 'reject', "
        r"got 'strict'$",
    ):
        config.plan_validation = "strict"
    with pytest.raises(cx.ConfigError, match=r"^Config.plan_validation must be one of"):
        cx.Config.from_toml('[codex_nb]\nplan_validation = "strict"')
