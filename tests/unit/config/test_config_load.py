"""``Config.load``: a Codex home and a project read as Codex 0.169 reads them, and every bad input
named (the differential scenarios in tests/conformance/corpus/config_layers.py check the layering
itself against the binary)."""

from __future__ import annotations

from pathlib import Path

import pytest

import codex_nb as cx


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("<ROOT>", str(tmp_path)), encoding="utf-8")
    (tmp_path / "home").mkdir(exist_ok=True)
    return tmp_path


def test_malformed_user_layer_names_its_file_and_line(tmp_path: Path) -> None:
    _tree(tmp_path, {"home/config.toml": 'model = "a"\napproval_policy = \n'})
    with pytest.raises(cx.ConfigError) as err:
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path)
    assert f"{tmp_path / 'home' / 'config.toml'}: line 2, column" in str(err.value)


def test_malformed_trusted_project_layer_names_its_file(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "home/config.toml": '[projects."<ROOT>/repo"]\ntrust_level = "trusted"\n',
            "repo/.git/HEAD": "ref: x\n",
            "repo/.codex/config.toml": "x = [1,\n",
        },
    )
    with pytest.raises(cx.ConfigError, match=r"repo/\.codex/config\.toml: line \d+, column \d+"):
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path / "repo")


def test_bad_value_in_a_file_names_the_file_and_line(tmp_path: Path) -> None:
    _tree(tmp_path, {"home/config.toml": 'model = "a"\n\napproval_policy = "sometimes"\n'})
    with pytest.raises(cx.ConfigError) as err:
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path)
    text = str(err.value)
    assert f"{tmp_path / 'home' / 'config.toml'}:3:" in text and "approval_policy" in text and "sometimes" in text


def test_unknown_profile_lists_the_profiles_that_exist(tmp_path: Path) -> None:
    _tree(tmp_path, {"home/fast.config.toml": 'model = "f"\n', "home/deep.config.toml": 'model = "d"\n'})
    with pytest.raises(cx.ConfigError, match=r"no profile 'nope'.*profiles in .*: deep, fast"):
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path, profile="nope")


def test_profile_file_layers_over_the_user_config(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {"home/config.toml": 'model = "base"\napproval_policy = "never"\n', "home/fast.config.toml": 'model = "f"\n'},
    )
    config = cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path, profile="fast")
    assert config.model_slug == "f" and config.approval_policy == "never"
    assert [(la.source, la.profile) for la in config.layers] == [("system", None), ("user", None), ("user", "fast")]
    assert config.origins["model"].endswith("fast.config.toml (profile fast)")


def test_legacy_profile_key_is_refused_as_codex_refuses_it(tmp_path: Path) -> None:
    _tree(tmp_path, {"home/config.toml": 'profile = "fast"\n[profiles.fast]\nmodel = "x"\n'})
    with pytest.raises(cx.ConfigError, match=r"legacy `profile = \"fast\"` config is no longer supported"):
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path)


def test_bad_override_value_names_its_key(tmp_path: Path) -> None:
    _tree(tmp_path, {})
    with pytest.raises(cx.ConfigError, match=r"^override approval_policy=5: "):
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path, overrides=["approval_policy=5"])
    with pytest.raises(cx.ConfigError, match=r"^override features.hooks=\"maybe\": "):
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path, overrides={"features.hooks": "maybe"})
    with pytest.raises(cx.ConfigError, match="an override is 'key=value'"):
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path, overrides=["model"])


def test_override_values_are_toml_or_the_raw_string(tmp_path: Path) -> None:
    _tree(tmp_path, {})
    config = cx.Config.load(
        codex_home=tmp_path / "home", cwd=tmp_path, overrides=["model=gpt-5", "tools.update_plan.enabled=true"]
    )
    assert config.model_slug == "gpt-5" and config.update_plan_enabled is True
    assert config.origins["model"] == "session flags (-c overrides)"


def test_hooks_carry_codex_source_and_real_path(tmp_path: Path) -> None:
    hook = '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}'
    _tree(
        tmp_path,
        {
            "home/config.toml": '[projects."<ROOT>/repo"]\ntrust_level = "trusted"\n',
            "home/hooks.json": hook,
            "repo/.git/HEAD": "ref: x\n",
            "repo/.codex/hooks.json": hook,
        },
    )
    config = cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path / "repo")
    got = [(s.source, s.source_path, s.needs_trust) for s in config.hooks.specs]
    assert got == [
        ("user", str(tmp_path / "home" / "hooks.json"), True),
        ("project", str(tmp_path / "repo" / ".codex" / "hooks.json"), True),
    ]
    inline = cx.Config.from_toml('[[hooks.PreToolUse]]\nhooks = [{type = "command", command = "true"}]\n')
    assert [(s.source, s.source_path) for s in inline.hooks.specs] == [("session_flags", "<config.toml>")]


def test_a_project_cannot_trust_its_own_hooks(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "home/config.toml": '[projects."<ROOT>/repo"]\ntrust_level = "trusted"\n',
            "repo/.git/HEAD": "ref: x\n",
            "repo/.codex/config.toml": (
                '[[hooks.PreToolUse]]\nhooks = [{type = "command", command = "true"}]\n'
                '[hooks.state."<ROOT>/repo/.codex/config.toml:pre_tool_use:0:0"]\ntrusted_hash = "sha256:x"\n'
            ),
        },
    )
    config = cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path / "repo")
    assert config.hooks.state == {}
    assert cx.Session(config).hook_engine.hooks()[0].status == "untrusted"


def test_untrusted_project_is_listed_with_codex_reason_and_contributes_nothing(tmp_path: Path) -> None:
    _tree(tmp_path, {"repo/.git/HEAD": "ref: x\n", "repo/.codex/config.toml": 'model = "evil"\n'})
    config = cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path / "repo")
    project = config.layers[-1]
    assert project.source == "project" and config.model_slug == "scripted"
    assert project.disabled_reason == (
        f"To load project-local config, hooks, and exec policies, add {tmp_path.resolve() / 'repo'} as a trusted "
        f"project in {tmp_path / 'home' / 'config.toml'}."
    )


def test_repr_shows_where_each_setting_came_from_and_masks_secrets(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {"home/config.toml": 'model = "m"\n[mcp_servers.s]\ncommand = "x"\nenv = { API_TOKEN = "sk-secret-123" }\n'},
    )
    config = cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path, overrides={"approval_policy": "never"})
    text = repr(config)
    flat = " ".join(text.split())
    assert f'model = "m" <- user {tmp_path / "home" / "config.toml"}' in flat
    assert 'approval_policy = "never" <- session flags (-c overrides)' in flat
    assert "sk-secret-123" not in text and "'***'" in text
    assert "Config(" in repr(cx.Config())  # an inline config keeps pydantic's repr


def test_codex_home_defaults_to_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, {"elsewhere/config.toml": 'model = "from-env"\n'})
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "elsewhere"))
    assert cx.Config.load(cwd=tmp_path).model_slug == "from-env"


def test_a_bad_hook_table_names_the_file_once(tmp_path: Path) -> None:
    _tree(tmp_path, {"home/config.toml": '[[hooks.PreToolUse]]\nmatcher = "x"\nbogus = 1\n'})
    with pytest.raises(cx.ConfigError) as err:
        cx.Config.load(codex_home=tmp_path / "home", cwd=tmp_path)
    text = str(err.value)
    assert text.startswith(str(tmp_path / "home" / "config.toml")) and "<config.toml>" not in text
    assert "unknown key 'bogus'" in text
