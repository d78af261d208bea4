"""Code Mode tool modes, exposures and model-visible specs, including Codex's two
update_plan exposure tests (``spec_plan_tests.rs``)."""

from __future__ import annotations

import pytest

import codex_nb as cx
from codex_nb.config.code_mode import CodeModeSettings, ToolMode, code_mode_settings_from_toml
from codex_nb.config import Config
from codex_nb.errors import ConfigError
from codex_nb.tools.exposure import ToolExposure

UPDATE_PLAN_ON = "[tools.update_plan]\nenabled = true\n"


def session_for(toml: str) -> cx.Session:
    return cx.Session(Config.from_toml(toml))


@pytest.fixture(autouse=True)
def _close_runtimes(monkeypatch):
    sessions: list[cx.Session] = []
    original = cx.Session.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        sessions.append(self)

    monkeypatch.setattr(cx.Session, "__init__", init)
    yield
    for s in sessions:
        for finalizer in s.planner.finalizers:
            getattr(finalizer, "close", lambda: None)()


def ours(plan) -> list[str]:
    """Model-visible names, minus built-ins other components add (request_user_input ...)."""
    return [n for n in plan.tool_names if n in ("exec", "wait", "update_plan", "ask", "only_nested", "secret")]


def exec_spec(plan):
    return next(s for s in plan.specs if s.get("name") == "exec")


# -- the two Codex tests (spec_plan_tests.rs) ------------------------------------------------
def test_code_mode_only_exposes_default_namespace_tools_directly():
    session = session_for(
        "[features]\ncode_mode_only = true\n[features.code_mode]\nenabled = true\n"
        'direct_only_tool_namespaces = ["functions"]\n' + UPDATE_PLAN_ON
    )
    plan = session.tool_plan()
    assert "update_plan" in plan.tool_names
    assert plan.exposure("update_plan") is ToolExposure.DirectModelOnly
    spec = exec_spec(plan)
    assert spec["type"] == "custom" and spec["format"]["type"] == "grammar"
    assert "update_plan(args:" not in spec["description"]


def test_code_mode_excludes_default_namespace_tools():
    session = session_for(
        '[features.code_mode]\nenabled = true\nexcluded_tool_namespaces = ["functions"]\n' + UPDATE_PLAN_ON
    )
    plan = session.tool_plan()
    assert "update_plan" in plan.tool_names
    assert plan.exposure("update_plan") is ToolExposure.Direct
    assert "update_plan(args:" not in exec_spec(plan)["description"]
    update_plan = next(s for s in plan.specs if s.get("name") == "update_plan")
    assert "exec tool declaration" not in update_plan["description"]  # not nested, so not augmented


# -- modes side by side --------------------------------------------------------------------------
def test_direct_mode_has_no_exec():
    plan = session_for(UPDATE_PLAN_ON).tool_plan()
    assert ours(plan) == ["update_plan"]
    assert plan.exposure("exec") is None


def test_code_mode_prepends_exec_wait_and_augments_descriptions():
    session = session_for("[features]\ncode_mode = true\n" + UPDATE_PLAN_ON)
    plan = session.tool_plan()
    assert ours(plan) == ["exec", "wait", "update_plan"]
    update_plan = next(s for s in plan.specs if s.get("name") == "update_plan")
    assert update_plan["description"].startswith("Updates the task plan.\n")
    assert (
        "\n\n\nexec tool declaration:\n```ts\ndeclare const tools: { update_plan(args: {\n"
        in update_plan["description"]
    )
    description = exec_spec(plan)["description"]
    assert "### `update_plan`" not in description  # CodeMode: template only
    assert "Defaults to 30000 ms." in description


def test_code_mode_only_nests_update_plan_and_lists_it():
    plan = session_for("[features]\ncode_mode_only = true\n" + UPDATE_PLAN_ON).tool_plan()
    assert ours(plan) == ["exec", "wait"]
    assert plan.exposure("update_plan") is ToolExposure.Direct
    assert "### `update_plan`\nUpdates the task plan." in exec_spec(plan)["description"]
    assert "update_plan(args: {" in exec_spec(plan)["description"]


def test_direct_model_only_and_hidden_tools_are_not_nested():
    session = session_for("[features]\ncode_mode_only = true\n")

    @session.tool(exposure=ToolExposure.DirectModelOnly)
    def ask(question: str) -> str:
        "Ask the user."
        return question

    @session.tool(exposure=ToolExposure.Hidden)
    def secret() -> str:
        "Hidden."
        return "x"

    @session.tool(exposure=ToolExposure.CodeModeOnly)
    def only_nested() -> str:
        "Only in scripts."
        return "x"

    plan = session.tool_plan()
    assert ours(plan) == ["exec", "wait", "ask"]
    description = exec_spec(plan)["description"]
    assert "### `only_nested`" in description
    assert "### `ask`" not in description and "### `secret`" not in description


def test_namespaced_tools_identifier_and_deferred_guidance():
    session = session_for("[features]\ncode_mode_only = true\n")

    @session.tool(namespace="mcp__weather", name="get-forecast")
    def forecast(city: str) -> str:
        "Forecast."
        return city

    @session.tool(exposure=ToolExposure.Deferred)
    def later() -> str:
        "Deferred."
        return "x"

    description = exec_spec(session.tool_plan())["description"]
    assert "### `mcp__weather__get_forecast` (`mcp__weather__get-forecast`)" in description
    assert "Some deferred nested tools may be omitted from this description." in description
    assert "### `later`" not in description


def test_registered_exec_is_replaced_in_code_mode():
    session = session_for("[features]\ncode_mode = true\n")

    @session.tool
    def wait(seconds: int) -> str:
        "A user tool that collides with Code Mode's wait."
        return "x"

    plan = session.tool_plan()
    assert plan.tool_names.count("wait") == 1 and plan.tool_names[:2] == ["exec", "wait"]
    assert plan.specs[1]["description"].startswith("Waits on a yielded `exec` cell")


# -- config ------------------------------------------------------------------------------------------
def test_settings_from_toml():
    assert code_mode_settings_from_toml({}).mode is ToolMode.DIRECT
    assert code_mode_settings_from_toml({"features": {"code_mode": True}}).mode is ToolMode.CODE_MODE
    settings = code_mode_settings_from_toml(
        {
            "features": {
                "code_mode_only": True,
                "code_mode": {
                    "enabled": True,
                    "default_exec_yield_time_ms": 500,
                    "excluded_tool_namespaces": ["mcp__x"],
                },
            }
        }
    )
    assert settings.mode is ToolMode.CODE_MODE_ONLY
    assert settings.default_exec_yield_time_ms == 500 and settings.excluded_tool_namespaces == ("mcp__x",)
    assert CodeModeSettings(enabled=True, tool_mode=ToolMode.DIRECT).mode is ToolMode.DIRECT
    assert Config().code_mode.mode is ToolMode.DIRECT


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ("[features]\ncode_mode = 1", "features.code_mode must be true/false or a table"),
        ("[features]\ncode_mode_only = 'yes'", "features.code_mode_only must be true or false"),
        ("[features.code_mode]\nfoo = 1", "[features.code_mode] does not know ['foo']"),
        ("[features.code_mode]\nexcluded_tool_namespaces = 'functions'", "must be a list of namespace strings"),
        ("[features.code_mode]\ndefault_exec_yield_time_ms = -5", "must be a non-negative integer"),
    ],
)
def test_bad_code_mode_config(toml, fragment):
    with pytest.raises(ConfigError) as err:
        Config.from_toml(toml)
    assert fragment in str(err.value)
