"""The public API: a grouped ``__all__``, nothing public outside it, keyword-only data types, no side effects."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import types

import pytest

import codex_nb as cx


# ``cx.__all__`` (derived from the package's re-exports, codex_nb._lazy): what a notebook needs, in
# groups, each sorted. Changing the public surface means changing this list (and, for a name that
# leaves, a CHANGELOG entry naming its new home).
GROUPS: list[list[str]] = [
    ["AnswerPolicy", "Config", "Session"],
    ["ResponsesModel", "ScriptedModel"],
    ["assistant_message", "custom_tool_call", "function_call", "tool_search_call", "user_message"],
    [
        "PlanChecklist",
        "PlanTimeline",
        "PromptsWidget",
        "ReplayScrubber",
        "SessionsBrowser",
        "Transcript",
        "TurnControls",
        "compare",
        "image_thumbnails",
    ],
    [
        "AcpAgent",
        "AgentSource",
        "Capabilities",
        "CodexAppServer",
        "McpServers",
        "RolloutReplay",
        "codex_sessions",
        "list_rollouts",
        "read_rollout",
    ],
    ["hooks"],
    ["CodexNbError", "ConfigError", "ModelError", "TurnError", "TurnInterrupted"],
    ["load_ipython_extension", "unload_ipython_extension"],
]


def test_all_is_the_groups_each_sorted() -> None:
    assert cx.__all__ == [name for group in GROUPS for name in group]
    for group in GROUPS:
        assert group == sorted(group), group
    assert len(set(cx.__all__)) == len(cx.__all__)
    # 34 since cx.codex_sessions, cx.SessionsBrowser and cx.compare joined; 36 with cx.AgentSource and
    # cx.Capabilities (what every source offers, read in notebooks); the next name goes to a submodule
    assert len(cx.__all__) <= 36, "a notebook user holds the top level in their head: use a public submodule"
    assert "extension" not in cx.__all__  # a star import must not load IPython
    for name in cx.__all__:
        assert hasattr(cx, name), name


def test_no_public_name_escapes_all() -> None:
    """Every public attribute of the package is in ``__all__`` (subpackages aside): internals
    are imported from their modules, so nothing becomes API by accident."""
    public = {
        name for name, value in vars(cx).items() if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public - set(cx.__all__) == set()


@pytest.mark.parametrize("name", [n for n in cx.__all__ if dataclasses.is_dataclass(getattr(cx, n, None))])
def test_public_data_types_are_keyword_only(name: str) -> None:
    cls = getattr(cx, name)
    positional = [
        p.name
        for p in inspect.signature(cls).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    allowed = {"ScriptedModel": ["responses"]}.get(name, [])
    assert positional == allowed, f"{name} takes {positional} positionally"


def test_import_has_no_side_effects() -> None:
    code = (
        "import sys, threading; before = set(sys.modules); import codex_nb; "
        "assert threading.active_count() == 1, threading.enumerate(); "
        "assert 'ipywidgets' not in sys.modules, 'widgets imported eagerly'; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "ok", out.stderr
