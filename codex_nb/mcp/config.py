"""``[mcp_servers.NAME]`` tables of Codex's ``config.toml`` (``codex-rs/core/src/config/types.rs``).

A server is either stdio (``command``, ``args``, ``env``, ``env_vars``, ``cwd``) or
streamable HTTP (``url``, ``bearer_token_env_var``, ``http_headers``,
``env_http_headers``). Both take ``enabled`` (default true), ``startup_timeout_sec``
(default 10), ``tool_timeout_sec`` (default 60), ``enabled_tools`` (an allow-list) and
``disabled_tools`` (applied after it). Unknown keys are an error that names the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._records import record
from ..errors import ConfigError

DEFAULT_STARTUP_TIMEOUT_SEC = 10.0
DEFAULT_TOOL_TIMEOUT_SEC = 60.0
_COMMON = {
    "enabled",
    "required",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
    "enabled_tools",
    "disabled_tools",
    "default_tools_approval_mode",
    "tools",
    "scopes",
    "oauth_resource",
}
_STDIO = _COMMON | {"command", "args", "env", "env_vars", "cwd"}
_HTTP = _COMMON | {"url", "bearer_token_env_var", "bearer_token", "http_headers", "env_http_headers"}


@record(frozen=True, kw_only=True)
class McpServerConfig:
    """One configured MCP server."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    env_vars: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    http_headers: Mapping[str, str] = field(default_factory=dict)
    env_http_headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True
    startup_timeout_sec: float = DEFAULT_STARTUP_TIMEOUT_SEC
    tool_timeout_sec: float = DEFAULT_TOOL_TIMEOUT_SEC
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "streamable_http"

    def allows(self, tool: str) -> bool:
        """``enabled_tools`` first (absent = all), then ``disabled_tools``."""
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools

    def headers(self) -> dict[str, str]:
        """HTTP headers: static ones, ones read from the environment, then the bearer token."""
        headers = dict(self.http_headers)
        for header, var in self.env_http_headers.items():
            value = os.environ.get(var)
            if value:
                headers[header] = value
        if self.bearer_token_env_var:
            token = os.environ.get(self.bearer_token_env_var)
            if not token:
                raise ConfigError(
                    f"MCP server {self.name!r}: environment variable {self.bearer_token_env_var} "
                    f"(bearer_token_env_var) is not set; export it or remove the key"
                )
            headers["Authorization"] = f"Bearer {token}"
        return headers


def parse_mcp_servers(data: Mapping[str, Any]) -> list[McpServerConfig]:
    """Every ``[mcp_servers.NAME]`` of a parsed config (``Config.extra``), in file order."""
    table = data.get("mcp_servers", {})
    if not isinstance(table, dict):
        raise ConfigError(f"[mcp_servers] must be a table of servers, got {type(table).__name__}")
    return [parse_mcp_server(name, raw) for name, raw in table.items()]


def parse_mcp_server(name: str, raw: Any) -> McpServerConfig:
    where = f"[mcp_servers.{name}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table, got {type(raw).__name__}")
    if ("command" in raw) == ("url" in raw):
        raise ConfigError(f"{where} needs exactly one of `command` (a stdio server) or `url` (streamable HTTP)")
    allowed = _STDIO if "command" in raw else _HTTP
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ConfigError(
            f"{where} has unknown key(s) {unknown}; a {'stdio' if 'command' in raw else 'HTTP'} "
            f"server takes {sorted(allowed)}"
        )
    fields: dict[str, Any] = {"name": name}
    for key in ("command", "cwd", "url", "bearer_token_env_var"):
        if key in raw:
            fields[key] = _str(raw[key], f"{where} {key}")
    for key in ("args", "env_vars", "disabled_tools"):
        if key in raw:
            fields[key] = tuple(_str_list(raw[key], f"{where} {key}"))
    if "enabled_tools" in raw:
        fields["enabled_tools"] = tuple(_str_list(raw["enabled_tools"], f"{where} enabled_tools"))
    for key in ("env", "http_headers", "env_http_headers"):
        if key in raw:
            fields[key] = _str_map(raw[key], f"{where} {key}")
    if "enabled" in raw:
        if not isinstance(raw["enabled"], bool):
            raise ConfigError(f"{where} enabled must be true or false, got {raw['enabled']!r}")
        fields["enabled"] = raw["enabled"]
    if "startup_timeout_ms" in raw:
        fields["startup_timeout_sec"] = _seconds(raw["startup_timeout_ms"], f"{where} startup_timeout_ms") / 1000
    for key in ("startup_timeout_sec", "tool_timeout_sec"):
        if key in raw:
            fields[key] = _seconds(raw[key], f"{where} {key}")
    return McpServerConfig(**fields)


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string, got {value!r}")
    return value


def _str_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings, got {value!r}")
    return list(value)


def _str_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where} must be a table of strings, got {value!r}")
    return dict(value)


def _seconds(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"{where} must be a positive number, got {value!r}")
    return float(value)
