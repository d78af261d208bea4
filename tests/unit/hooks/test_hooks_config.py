"""Hook configuration, matchers, tool-name aliases and the trust step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.hooks import HookEngine, Matcher, matcher_inputs, parse_hooks_json, parse_hooks_toml
from codex_nb.config.hooks import load_hooks_path

HOOKS_JSON = {
    "description": "demo",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "^Bash$",
                "hooks": [
                    {
                        "type": "command",
                        "command": "python3 /path/hook.py",
                        "timeout": 30,
                        "async": False,
                        "statusMessage": "running pre tool use hook",
                        "commandWindows": "py hook.py",
                        "additionalContextLimit": 2500,
                    }
                ],
            }
        ],
        "PostToolUse": [{"hooks": [{"type": "command", "command": "true"}]}],
    },
}

HOOKS_TOML = """
[features]
hooks = true

[[hooks.PreToolUse]]
matcher = '^Bash$'

[[hooks.PreToolUse.hooks]]
type = "command"
command = 'python3 /path/hook.py'
timeout = 30
commandWindows = "py hook.py"
statusMessage = "running pre tool use hook"

[[hooks.PostToolUse]]
[[hooks.PostToolUse.hooks]]
type = "command"
command = "true"
"""


def test_json_and_toml_shapes_parse_to_the_same_hooks():
    from_json = parse_hooks_json(json.dumps(HOOKS_JSON), source_path="/layer")
    from_toml = parse_hooks_toml(HOOKS_TOML, source_path="/layer", from_file=True)
    assert [(s.key, s.trust_hash) for s in from_json.specs] == [(s.key, s.trust_hash) for s in from_toml.specs]
    first = from_json.specs[0]
    assert first.key == "/layer:pre_tool_use:0:0"
    assert first.handler.command == "python3 /path/hook.py" and first.handler.timeout == 30
    assert first.handler.status_message == "running pre tool use hook"
    assert from_json.specs[1].handler.timeout == 600  # default


def test_timeout_minimum_is_one_second():
    doc = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}
    assert parse_hooks_json(json.dumps(doc), source_path="/p").specs[0].handler.timeout == 1


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ({"hooks": {}, "extra": 1}, "unknown key 'extra'"),
        ({"hooks": {"PreToolUse": [{"matcher": "x", "hook": []}]}}, "unknown key 'hook'"),
        (
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeOut": 3}]}]}},
            "unknown key 'timeOut'",
        ),
        ({"hooks": {"PreToolUSE": []}}, "unknown key 'PreToolUSE'"),
        ({"hooks": {"PreToolUse": [{"hooks": [{"type": "shell", "command": "x"}]}]}}, "'type' must be one of"),
        (
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}},
            "'timeout' must be int",
        ),
        (
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "on_error": "deny"}]}]}},
            "'on_error' must be",
        ),
    ],
)
def test_unknown_keys_and_bad_values_are_rejected(doc, needle):
    with pytest.raises(cx.errors.HookError, match=needle) as info:
        parse_hooks_json(json.dumps(doc), source_path="/etc/hooks.json")
    assert "/etc/hooks.json" in str(info.value)


def test_regex_that_does_not_compile_is_a_load_time_error_naming_the_hook_and_fix():
    doc = {"hooks": {"PreToolUse": [{"hooks": []}, {"matcher": "Bash(", "hooks": []}]}}
    with pytest.raises(cx.errors.HookError) as info:
        parse_hooks_json(json.dumps(doc), source_path="/p/hooks.json")
    msg = str(info.value)
    assert "/p/hooks.json: hooks.PreToolUse[1]" in msg and "'Bash('" in msg
    assert "Fix the matcher" in msg


def test_prompt_agent_and_mcp_handlers_parse_but_are_skipped():
    doc = {
        "hooks": {
            "PreToolUse": [
                {
                    "hooks": [
                        {"type": "prompt", "prompt": "is this ok?"},
                        {"type": "agent", "prompt": "check"},
                        {"type": "mcp_tool", "server": "s", "tool": "t", "input": {}, "timeout": 5},
                    ]
                }
            ]
        }
    }
    cfg = parse_hooks_json(json.dumps(doc), source_path="/p")
    assert cfg.warnings == (
        "/p:pre_tool_use:0:0: prompt hooks are not supported yet; skipped",
        "/p:pre_tool_use:0:1: agent hooks are not supported yet; skipped",
        "/p:pre_tool_use:0:2: mcp_tool hooks are not supported by codex_nb (no MCP client); skipped",
    )


@pytest.mark.parametrize(
    ("pattern", "name", "expected"),
    [
        (None, "update_plan", True),
        ("", "anything", True),
        ("*", "anything", True),
        ("update_plan", "update_plan", True),
        ("update_plan", "update_plan_x", False),
        ("Bash|update_plan", "update_plan", True),
        ("Bash|apply_patch", "update_plan", False),
        ("plan", "update_plan", False),  # exact, not substring
        ("pl.n", "update_plan", True),  # regex, unanchored (re.search)
        ("^update", "update_plan", True),
        ("^plan", "update_plan", False),
        ("Write", "apply_patch", True),  # alias
        ("^Edit$", "apply_patch", True),
        ("Agent", "spawn_agent", True),
        ("mcp__.*", "mcp__docs__search", True),
    ],
)
def test_matchers(pattern, name, expected):
    assert Matcher(pattern).matches(matcher_inputs(name)) is expected


def test_mcp_tool_names():
    from codex_nb.hooks import mcp_hook_tool_name

    assert mcp_hook_tool_name("docs", "search") == "mcp__docs__search"


# -- trust -----------------------------------------------------------------------------


def write_hooks(path: Path, command: str = "echo hi") -> Path:
    doc = {"hooks": {"PreToolUse": [{"matcher": "update_plan", "hooks": [{"type": "command", "command": command}]}]}}
    path.write_text(json.dumps(doc))
    return path


def test_file_hooks_need_trust_and_a_changed_hook_is_untrusted_again(tmp_path):
    path = write_hooks(tmp_path / "hooks.json")
    engine = HookEngine()
    engine.load(path)
    key = f"{path.resolve()}:pre_tool_use:0:0"
    assert [(h.key, h.status) for h in engine.hooks()] == [(key, "untrusted")]
    assert engine.warnings == [f"hook {key} is untrusted; it will not run until trusted (session.trust_hooks())"]
    trusted = engine.trust()
    assert list(trusted) == [key] and trusted[key].startswith("sha256:")
    assert engine.hooks()[0].status == "trusted"
    assert engine.trust_toml() == f'[hooks.state."{key}"]\ntrusted_hash = "{trusted[key]}"\n'

    # Same definition reloaded in a new engine with the recorded hash: trusted.
    state = parse_hooks_toml(engine.trust_toml())
    fresh = HookEngine(config=state)
    fresh.load(path)
    assert fresh.hooks()[0].status == "trusted"

    # The file changes: the recorded hash no longer matches.
    write_hooks(path, command="echo changed")
    changed = HookEngine(config=state)
    changed.load(path)
    assert changed.hooks()[0].status == "modified"


def test_enabled_false_disables_and_code_hooks_are_managed(tmp_path):
    path = write_hooks(tmp_path / "hooks.json")
    key = f"{path.resolve()}:pre_tool_use:0:0"
    engine = HookEngine(config=parse_hooks_toml(f'[hooks.state."{key}"]\nenabled = false\n'))
    engine.load(path)
    assert engine.hooks()[0].status == "disabled"
    assert engine.trust()[key]  # trusting keeps enabled = false
    assert engine.hooks()[0].status == "disabled"
    code = HookEngine(config=parse_hooks_toml(HOOKS_TOML))
    assert {h.status for h in code.hooks()} == {"managed"}


def test_trust_unknown_key_is_an_error(tmp_path):
    engine = HookEngine()
    engine.load(write_hooks(tmp_path / "hooks.json"))
    with pytest.raises(cx.errors.HookError, match="no file hook with key or source path '/nope'"):
        engine.trust("/nope")
    assert engine.trust(str((tmp_path / "hooks.json").resolve()))  # by source path


def test_hash_covers_event_matcher_and_handler():
    base = {"hooks": {"PreToolUse": [{"matcher": "a", "hooks": [{"type": "command", "command": "x"}]}]}}
    variants = [
        {"hooks": {"PostToolUse": base["hooks"]["PreToolUse"]}},
        {"hooks": {"PreToolUse": [{"matcher": "b", "hooks": [{"type": "command", "command": "x"}]}]}},
        {"hooks": {"PreToolUse": [{"matcher": "a", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}},
        {
            "hooks": {
                "PreToolUse": [{"matcher": "a", "hooks": [{"type": "command", "command": "x", "on_error": "block"}]}]
            }
        },
    ]
    h0 = parse_hooks_json(json.dumps(base), source_path="/p").specs[0].trust_hash
    explicit_default = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "a", "hooks": [{"type": "command", "command": "x", "timeout": 600, "async": False}]}
            ]
        }
    }
    assert parse_hooks_json(json.dumps(explicit_default), source_path="/p").specs[0].trust_hash == h0
    for v in variants:
        assert parse_hooks_json(json.dumps(v), source_path="/p").specs[0].trust_hash != h0


def test_layer_directory_with_both_representations_warns(tmp_path):
    write_hooks(tmp_path / "hooks.json")
    (tmp_path / "config.toml").write_text(HOOKS_TOML)
    cfg = load_hooks_path(tmp_path)
    assert len(cfg.specs) == 3
    json_path, toml_path = (tmp_path / "hooks.json").resolve(), (tmp_path / "config.toml").resolve()
    assert cfg.warnings == (
        f"loading hooks from both {json_path} and {toml_path}; prefer a single representation for this layer",
    )
    assert all(s.needs_trust for s in cfg.specs)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(cx.errors.HookError, match="does not exist"):
        load_hooks_path(tmp_path / "nope.json")
