"""The subset of Codex's ``config.toml`` that codex_nb understands, as one ``Config``.

A leaf layer: ``Config`` and the settings types it holds (``config.code_mode``,
``config.hooks`` with ``config.hook_matchers``) stand below ``tools/``, so every layer
can read settings without importing the adapters (Code Mode, the hook engine) they
configure.

Two defaults, both documented in the README: ``Config()`` is the *notebook profile*
(``update_plan`` on, because this product exists to show plans), while
``Config.from_toml(text)`` follows newest Codex (0.156 and later): a missing
``[tools.update_plan]`` table means ``update_plan`` is OFF.

Modules:

* ``code_mode``: the Code Mode settings.
* ``codex_home``: ``Config.load``, a person's own Codex setup, with where each setting came from.
* ``files``: the one bounded reader for files a person points at.
* ``hook_matchers``: which hooks a tool call wakes.
* ``hooks``: ``hooks.json`` and ``[hooks]`` tables parsed into hook specs.
* ``layers``: which config files Codex reads, in which order, and which of them count (trust).
* ``notebook_tools``: ``[codex_nb.notebook_tools]``, the live-notebook tools' switches and bounds.

Layer: above ``protocol/`` (which it may import), beside ``frontend/`` and ``events/``; ``tools/``
and everything above may import it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, ValidationError
from pydantic_core import CoreSchema, core_schema

from .code_mode import CodeModeSettings, ToolMode, code_mode_settings_from_toml
from ..errors import ConfigError
from .hooks import HooksConfig, parse_hooks_table
from .layers import ConfigLayer
from .notebook_tools import NotebookToolsSettings, notebook_tools_from_toml

__all__ = ["CodeModeSettings", "Config", "ConfigError", "ConfigLayer", "NotebookToolsSettings", "ToolMode"]

PlanValidation = Literal["off", "warn", "reject"]
ApprovalPolicy = Literal["untrusted", "on-failure", "on-request", "never"]
WebSearchMode = Literal["disabled", "cached", "indexed", "live"]


class _Held:
    """A field held as given: neither validated nor serialized (every such field is ``exclude=True``).
    Unlike ``SkipValidation``, pydantic builds no schema for the type, so the first ``Config()``
    does not walk the hook and layer dataclasses it would never use."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.any_schema()


class Config(BaseModel):
    """Runtime settings. Keyword-only; unknown fields are rejected with a clear error."""

    model_config = ConfigDict(defer_build=True, extra="forbid", validate_assignment=True)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as err:
            raise config_error(type(self), err) from None

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as err:
            raise config_error(type(self), err) from None

    update_plan_enabled: bool = True
    """``[tools.update_plan] enabled``: register ``update_plan`` at all."""
    plan_validation: PlanValidation = "off"
    """Optional check for more than one in_progress step: off (Codex), warn, or reject."""
    hooks_enabled: bool = True
    """``[features] hooks`` (stable in Codex, on by default)."""
    hooks: Annotated[HooksConfig, _Held] = Field(default_factory=HooksConfig, exclude=True)
    """The ``[hooks]`` tables: hooks given in code are trusted; ``[hooks.state]`` entries
    record trust for hooks loaded from files."""
    namespace_tools: bool = True
    """Provider supports namespace specs; when False every namespaced tool (clock.*) is hidden."""
    default_mode_request_user_input: bool = False
    """``[features] default_mode_request_user_input``: allow request_user_input outside Plan mode."""
    request_user_input_enabled: bool = True
    """``[tools] experimental_request_user_input.enabled`` (absent table = enabled)."""
    forward_auto_resolution: bool = True
    """Offer and honour ``autoResolutionMs`` (the notebook profile). ``Config.from_toml`` turns it off, as
    Codex 0.169 has no auto-resolution (no parameter in the spec, the key ignored); TOML
    ``[codex_nb] auto_resolution = true`` turns it back on."""
    request_permissions_tool: bool = False
    """``[features] request_permissions_tool`` (under development in Codex, off by default)."""
    approval_policy: ApprovalPolicy = "on-request"
    """Codex ``approval_policy``; ``never`` makes request_permissions grant nothing without asking."""
    model_slug: str = "scripted"
    view_image: bool = False
    """``[features] view_image``: on in Codex (``from_toml``); off in the notebook profile so a bare
    ``Config()`` keeps the short tool list the teaching notebooks show."""
    web_search: WebSearchMode = "disabled"
    """Codex ``web_search`` (``disabled`` / ``cached`` / ``indexed`` / ``live``): declares the hosted tool.
    Codex's default is ``cached`` (``from_toml``); the notebook profile leaves it off."""
    code_mode: CodeModeSettings = Field(default_factory=CodeModeSettings)
    """Code Mode: ``[features] code_mode``, ``code_mode_only`` and ``[features.code_mode]``."""
    notebook_tools: NotebookToolsSettings = Field(default_factory=NotebookToolsSettings)
    """``[codex_nb.notebook_tools]``: the tools that read, run and edit the live notebook (off by default)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Tables from the TOML that other components parse (``hooks``, ``features.code_mode`` ...)."""
    layers: Annotated[tuple[ConfigLayer, ...], _Held] = Field(default=(), exclude=True)
    """``Config.load`` only: the files read, lowest precedence first (project layers Codex would not
    trust are listed with their ``disabled_reason``)."""
    origins: Annotated[dict[str, str], _Held] = Field(default_factory=dict, exclude=True)
    """``Config.load`` only: dotted key (as Codex's ``config/read`` spells it) -> the layer that set it."""

    @classmethod
    def load(
        cls,
        codex_home: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        profile: str | None = None,
        overrides: Mapping[str, Any] | Iterable[str] | None = None,
    ) -> Config:
        """Read what Codex 0.169 reads for a thread in ``cwd``: ``/etc/codex/config.toml``,
        ``$CODEX_HOME/config.toml`` (``~/.codex`` by default), ``<profile>.config.toml`` next to it,
        the trusted project's ``.codex/config.toml`` layers from the repo root down to ``cwd``
        (default: the current directory), then ``overrides`` (``-c`` style: ``["model=\"o3\""]``
        or ``{"model": "o3"}``). Hooks keep Codex's ``source`` and real ``source_path``;
        ``repr(config)`` shows where each setting came from."""
        from .codex_home import load_config  # only Codex-home users pay for discovery

        config: Config = load_config(cls, codex_home, cwd, profile, overrides)
        return config

    def describe_origins(self) -> str:
        """The layers read and each setting with the layer that set it (``Config.load`` configs)."""
        from .codex_home import describe

        return describe(self) if self.layers else "inline config (no layers: built in code or from TOML text)"

    def __repr__(self) -> str:
        if not self.layers:
            return super().__repr__()
        return "Config.load(...)\n" + self.describe_origins()

    @classmethod
    def from_toml(cls, text: str) -> Config:
        """Parse Codex ``config.toml`` text with newest-Codex defaults (absent table = update_plan off)."""
        if not isinstance(text, str):
            raise ConfigError(
                f"Config.from_toml() takes TOML text (str), got {type(text).__name__}; "
                f"to read a file use Config.from_toml(path.read_text())"
            )
        import tomllib  # only TOML users pay for the parser

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"config TOML does not parse: {err}. Fix the TOML syntax and try again.") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """``from_toml`` for a table already parsed (what ``tomllib.loads`` returns, or the merged layers
        ``Config.load`` reads), with the same newest-Codex defaults; ``data`` itself is kept as ``extra``.
        Raises ``ConfigError`` naming the key when a value has the wrong type or is not allowed."""
        fields: dict[str, Any] = {"update_plan_enabled": _update_plan_enabled(data)}
        features = _table(data, "features")
        for key, field in (
            ("hooks", "hooks_enabled"),
            ("default_mode_request_user_input", "default_mode_request_user_input"),
            ("request_permissions_tool", "request_permissions_tool"),
        ):
            if key in features:
                fields[field] = _bool(features[key], f"features.{key}")
        fields["view_image"] = _bool(features.get("view_image", True), "features.view_image")
        fields["web_search"] = data.get("web_search", "cached")
        fields["code_mode"] = code_mode_settings_from_toml(data)
        fields["notebook_tools"] = notebook_tools_from_toml(data)
        codex_nb = _table(data, "codex_nb")
        if "plan_validation" in codex_nb:
            fields["plan_validation"] = codex_nb["plan_validation"]
        # Codex 0.169 has no request_user_input auto-resolution; [codex_nb] auto_resolution brings it back.
        fields["forward_auto_resolution"] = _bool(codex_nb.get("auto_resolution", False), "codex_nb.auto_resolution")
        rui = _table(_table(data, "tools"), "experimental_request_user_input")
        if "enabled" in rui:
            fields["request_user_input_enabled"] = _bool(
                rui["enabled"], "tools.experimental_request_user_input.enabled"
            )
        if "approval_policy" in data:
            fields["approval_policy"] = data["approval_policy"]
        if "model" in data:
            fields["model_slug"] = str(data["model"])
        fields["hooks"] = parse_hooks_table(_table(data, "hooks"), source_path="<config.toml>", from_file=False)
        fields["extra"] = data
        return cls(**fields)


def config_error(model: type[BaseModel], err: ValidationError) -> ConfigError:
    """A ``ConfigError`` naming the field, what it accepts and, for a typo, the likely name."""
    problem = err.errors(include_url=False)[0]
    field = ".".join(str(p) for p in problem["loc"])
    name = f"{model.__name__}.{field}" if field else model.__name__
    if problem["type"] == "extra_forbidden":
        known = sorted(model.model_fields)
        return ConfigError(
            f"{model.__name__} has no field `{field}`{_did_you_mean(field, known)}; known fields: {', '.join(known)}"
        )
    expected = problem.get("ctx", {}).get("expected")
    if problem["type"] == "literal_error" and expected:
        choices = re.findall(r"'([^']*)'", expected)
        got = problem.get("input")
        hint = _did_you_mean(got, choices) if isinstance(got, str) else ""
        return ConfigError(f"{name} must be one of {', '.join(map(repr, choices))}, got {got!r}{hint}")
    return ConfigError(f"{name}: {problem['msg']}, got {problem.get('input')!r}")


def _did_you_mean(word: str, choices: list[str]) -> str:
    import difflib  # an error path

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{key}] must be a table, got {type(value).__name__}")
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false, got {value!r}")
    return value


def _update_plan_enabled(data: dict[str, Any]) -> bool:
    """Newest Codex's rule (``resolve_update_plan_enabled`` in codex-rs/core/src/config/mod.rs):
    enabled only if ``[tools.update_plan]`` exists and says ``enabled = true``."""
    table = _table(_table(data, "tools"), "update_plan")
    if "enabled" not in table:
        return False
    return _bool(table["enabled"], "tools.update_plan.enabled")
