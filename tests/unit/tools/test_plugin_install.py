"""Plugin install suggestions: registration gate, listing, errors, and the elicitation answered headless."""

from __future__ import annotations

import json

import pytest

import codex_nb as cx

TOML = """
[[codex_nb.install_candidates]]
id = "calendar@openai"
name = "Calendar"
description = "Read and create calendar events."
tool_type = "plugin"
mcp_server_names = ["calendar"]

[[codex_nb.install_candidates]]
id = "connector_abc"
name = "Asana"
tool_type = "connector"
"""


def session(extra_toml="", policy="recommended"):
    s = cx.Session(cx.Config.from_toml(TOML + extra_toml))
    s.answer_policy = policy
    return s


def install(
    tool_id="calendar@openai", tool_type="plugin", action="install", reason="You asked for your calendar.", call_id="i"
):
    return cx.function_call(
        "request_plugin_install",
        {"tool_type": tool_type, "action_type": action, "tool_id": tool_id, "suggest_reason": reason},
        call_id=call_id,
    )


def test_registered_only_with_candidates_and_features():
    assert "request_plugin_install" not in cx.Session(cx.Config.from_toml("")).planner.plan().tool_names
    names = session().planner.plan().tool_names
    assert names.index("list_available_plugins_to_install") + 1 == names.index("request_plugin_install")
    off = cx.Session(cx.Config.from_toml(TOML + "[features]\nplugins = false\n")).planner.plan().tool_names
    assert "request_plugin_install" not in off
    spec = next(s for s in session().planner.plan().specs if s.get("name") == "request_plugin_install")
    assert spec["description"].endswith("IMPORTANT: DO NOT call this tool in parallel with other tools.")


async def test_listing_is_sorted_by_name_then_id():
    model = cx.ScriptedModel(
        [[cx.function_call("list_available_plugins_to_install", {}, call_id="l")], [cx.assistant_message("ok")]]
    )
    out = json.loads((await session().run_turn("go", model=model)).outputs()["l"])
    assert [t["name"] for t in out["tools"]] == ["Asana", "Calendar"]
    assert list(out["tools"][1]) == [
        "id",
        "name",
        "description",
        "tool_type",
        "has_skills",
        "mcp_server_names",
        "app_connector_ids",
    ]


@pytest.mark.parametrize(
    "call, error",
    [
        (install(action="uninstall"), 'plugin install requests currently support only action_type="install"'),
        (install(reason="  "), "suggest_reason must not be empty"),
        (
            install(tool_id="nope"),
            "tool_id must match one of the discoverable tools returned by list_available_plugins_to_install",
        ),
    ],
)
async def test_errors(call, error):
    model = cx.ScriptedModel([[call], [cx.assistant_message("ok")]])
    assert (await session().run_turn("go", model=model)).outputs()["i"] == error


async def test_confirmed_and_declined():
    model = cx.ScriptedModel([[install()], [cx.assistant_message("ok")]])
    result = json.loads((await session().run_turn("go", model=model)).outputs()["i"])
    assert result == {
        "completed": True,
        "user_confirmed": True,
        "tool_type": "plugin",
        "action_type": "install",
        "tool_id": "calendar@openai",
        "tool_name": "Calendar",
        "suggest_reason": "You asked for your calendar.",
    }
    declined = session(policy=[{"answers": {"install": {"answers": ["Not now"]}}}])
    model = cx.ScriptedModel([[install()], [cx.assistant_message("ok")]])
    result = json.loads((await declined.run_turn("go", model=model)).outputs()["i"])
    assert (result["completed"], result["user_confirmed"]) == (False, False)
