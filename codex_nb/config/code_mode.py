"""Code Mode configuration: ``[features] code_mode / code_mode_only`` and ``[features.code_mode]``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError

CORE_DEFAULT_EXEC_YIELD_TIME_MS = 30_000


class ToolMode(StrEnum):
    """How tools reach the model: all direct, Code Mode (``exec`` beside them) or Code Mode only."""

    DIRECT = "direct"
    CODE_MODE = "code_mode"
    CODE_MODE_ONLY = "code_mode_only"


class CodeModeSettings(BaseModel):
    """Keyword-only; ``Config(code_mode=CodeModeSettings(enabled=True))`` turns Code Mode on."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    enabled: bool = False
    """``[features] code_mode`` or ``[features.code_mode] enabled``."""
    only: bool = False
    """``[features] code_mode_only``: nested tools leave the top level."""
    tool_mode: ToolMode | None = None
    """Like ``model_info.tool_mode``: when set, it wins over the two feature flags."""
    direct_only_tool_namespaces: tuple[str, ...] = ()
    excluded_tool_namespaces: tuple[str, ...] = ()
    default_exec_yield_time_ms: int = Field(default=CORE_DEFAULT_EXEC_YIELD_TIME_MS, ge=0)
    memory_limit_bytes: int = Field(default=256 * 1024 * 1024, ge=0)
    """Hard V8 heap cap per cell, and the same cap again for live ArrayBuffer bytes (codex_nb);
    the script fails with ``JavaScript memory limit reached``."""
    max_live_cells: int = Field(default=16, ge=1)
    """Running cells per session; a further ``exec`` is refused until one ends (codex_nb)."""
    max_notify_bytes: int = Field(default=1024 * 1024, ge=0)
    """Bytes ``notify()`` may add to the conversation per cell; the rest is dropped (codex_nb)."""
    max_wall_time_s: float = Field(default=600.0, gt=0)
    """A cell still running after this is terminated, waited on or not (codex_nb)."""

    @property
    def mode(self) -> ToolMode:
        """The tool mode in effect: ``tool_mode`` when set, else ``code_mode_only`` if ``only``,
        ``code_mode`` if ``enabled``, else ``direct``."""
        if self.tool_mode is not None:
            return self.tool_mode
        if self.only:
            return ToolMode.CODE_MODE_ONLY
        if self.enabled:
            return ToolMode.CODE_MODE
        return ToolMode.DIRECT


def code_mode_settings_from_toml(data: dict[str, Any]) -> CodeModeSettings:
    """Read the Code Mode keys of a parsed config.toml."""
    features = data.get("features", {})
    if not isinstance(features, dict):
        raise ConfigError(f"[features] must be a table, got {type(features).__name__}")
    values: dict[str, Any] = {}
    table = features.get("code_mode")
    if isinstance(table, bool):
        values["enabled"] = table
    elif isinstance(table, dict):
        known = {"enabled", "direct_only_tool_namespaces", "excluded_tool_namespaces", "default_exec_yield_time_ms"}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(f"[features.code_mode] does not know {unknown}; known keys: {sorted(known)}")
        if "enabled" in table:
            values["enabled"] = _bool(table["enabled"], "features.code_mode.enabled")
        for key in ("direct_only_tool_namespaces", "excluded_tool_namespaces"):
            if key in table:
                value = table[key]
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(f"features.code_mode.{key} must be a list of namespace strings, got {value!r}")
                values[key] = tuple(value)
        if "default_exec_yield_time_ms" in table:
            value = table["default_exec_yield_time_ms"]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(
                    f"features.code_mode.default_exec_yield_time_ms must be a non-negative integer, got {value!r}"
                )
            values["default_exec_yield_time_ms"] = value
    elif table is not None:
        raise ConfigError(f"features.code_mode must be true/false or a table, got {table!r}")
    if "code_mode_only" in features:
        values["only"] = _bool(features["code_mode_only"], "features.code_mode_only")
    return CodeModeSettings(**values)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where} must be true or false, got {value!r}")
    return value
