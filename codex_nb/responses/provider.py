"""Codex's model-provider settings (``[model_providers.NAME]``) with Codex's defaults.

Mirrors ``codex-rs/model-provider-info``: the built-in ``openai``, ``ollama`` and
``lmstudio`` providers, user-defined providers that extend (never replace) them, the
``wire_api`` check (only ``"responses"``; ``"chat"`` gets Codex's removal message),
retry and idle-timeout defaults with Codex's hard caps, and header resolution from
literal values and environment variables. Secrets are held in ``Secret`` so no repr,
event or error message can show them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._records import record
from ..errors import ConfigError
from ..protocol.serde_json import unknown_variant

DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000
DEFAULT_STREAM_MAX_RETRIES = 5
DEFAULT_REQUEST_MAX_RETRIES = 4
MAX_STREAM_MAX_RETRIES = 100
MAX_REQUEST_MAX_RETRIES = 100
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
CHAT_WIRE_API_REMOVED_ERROR = (
    '`wire_api = "chat"` is no longer supported.\nHow to fix: set `wire_api = "responses"` in your provider '
    "config.\nMore info: https://github.com/openai/codex/discussions/7782"
)
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
REASONING_SUMMARIES = ("auto", "concise", "detailed", "none")

_PROVIDER_KEYS = frozenset(
    {
        "name",
        "base_url",
        "env_key",
        "env_key_instructions",
        "experimental_bearer_token",
        "wire_api",
        "query_params",
        "http_headers",
        "env_http_headers",
        "request_max_retries",
        "stream_max_retries",
        "stream_idle_timeout_ms",
        "websocket_connect_timeout_ms",
        "requires_openai_auth",
        "supports_websockets",
        "supports_standalone_web_search",
    }
)
_UNSUPPORTED_KEYS = {"auth": "command-backed bearer tokens", "aws": "AWS SigV4 signing"}


class Secret:
    """A string that never shows itself: repr, str and format all print ``'***'``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__

    def __reduce__(self) -> Any:  # a pickled or copied model must not carry the key out
        raise TypeError("a codex_nb Secret cannot be pickled")


@record(frozen=True, kw_only=True)
class ProviderInfo:
    """One model provider, as Codex's ``ModelProviderInfo`` (only the Responses wire API)."""

    id: str
    name: str = ""
    base_url: str | None = None
    env_key: str | None = None
    env_key_instructions: str | None = None
    experimental_bearer_token: Secret | None = field(default=None, repr=False)
    query_params: dict[str, str] = field(default_factory=dict)
    http_headers: dict[str, str] = field(default_factory=dict)
    env_http_headers: dict[str, str] = field(default_factory=dict)
    request_max_retries: int | None = None
    stream_max_retries: int | None = None
    stream_idle_timeout_ms: int | None = None
    requires_openai_auth: bool = False
    supports_standalone_web_search: bool = False
    """The provider answers ``POST alpha/search`` (Codex then declares ``web.run``)."""

    # -- Codex's effective values --------------------------------------------------------
    @property
    def effective_request_max_retries(self) -> int:
        value = DEFAULT_REQUEST_MAX_RETRIES if self.request_max_retries is None else self.request_max_retries
        return min(value, MAX_REQUEST_MAX_RETRIES)

    @property
    def effective_stream_max_retries(self) -> int:
        value = DEFAULT_STREAM_MAX_RETRIES if self.stream_max_retries is None else self.stream_max_retries
        return min(value, MAX_STREAM_MAX_RETRIES)

    @property
    def stream_idle_timeout(self) -> float:
        """Seconds without a stream event before the stream counts as dropped."""
        ms = DEFAULT_STREAM_IDLE_TIMEOUT_MS if self.stream_idle_timeout_ms is None else self.stream_idle_timeout_ms
        return ms / 1000

    @property
    def key_env_var(self) -> str | None:
        """The environment variable the API key comes from (``OPENAI_API_KEY`` for openai)."""
        return self.env_key or ("OPENAI_API_KEY" if self.requires_openai_auth else None)

    def resolved_base_url(self) -> str:
        return (self.base_url or OPENAI_DEFAULT_BASE_URL).rstrip("/")

    def headers(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """Literal ``http_headers`` plus ``env_http_headers`` whose variable is set and non-empty."""
        environ = os.environ if environ is None else environ
        headers = dict(self.http_headers)
        for header, var in self.env_http_headers.items():
            value = environ.get(var, "")
            if value.strip():
                headers[header] = value
        return headers

    def api_key(self, environ: Mapping[str, str] | None = None) -> Secret | None:
        """The key from ``env_key`` (required if set), else the bearer token, else None.

        A missing required variable raises ``ConfigError`` with Codex's text
        (``Missing environment variable: `NAME`.``) and the provider's instructions.
        """
        environ = os.environ if environ is None else environ
        var = self.key_env_var
        if var is not None:
            value = environ.get(var, "")
            if value.strip():
                return Secret(value)
            if self.experimental_bearer_token is None:
                text = f"Missing environment variable: `{var}`."
                if self.env_key_instructions:
                    text += f" {self.env_key_instructions}"
                elif self.requires_openai_auth:
                    text += " Set it to your OpenAI API key, or pass api_key=... to cx.ResponsesModel."
                raise ConfigError(text)
        return self.experimental_bearer_token


def builtin_providers(
    environ: Mapping[str, str] | None = None, *, openai_base_url: str | None = None
) -> dict[str, ProviderInfo]:
    """Codex's built-in providers: ``openai`` (OPENAI_API_KEY, OPENAI_BASE_URL), ``ollama``, ``lmstudio``."""
    environ = os.environ if environ is None else environ
    openai_url = openai_base_url or environ.get("OPENAI_BASE_URL", "").strip() or None
    oss_port = environ.get("CODEX_OSS_PORT", "").strip()
    oss_url = environ.get("CODEX_OSS_BASE_URL", "").strip() or None

    def oss(provider_id: str, name: str, port: int) -> ProviderInfo:
        chosen = int(oss_port) if oss_port.isdigit() else port
        return ProviderInfo(id=provider_id, name=name, base_url=oss_url or f"http://localhost:{chosen}/v1")

    return {
        "openai": ProviderInfo(
            id="openai",
            name="OpenAI",
            base_url=openai_url,
            requires_openai_auth=True,
            env_http_headers={"OpenAI-Organization": "OPENAI_ORGANIZATION", "OpenAI-Project": "OPENAI_PROJECT"},
        ),
        "ollama": oss("ollama", "Ollama", 11434),
        "lmstudio": oss("lmstudio", "LM Studio", 1234),
    }


def parse_provider(provider_id: str, table: object) -> ProviderInfo:
    """One ``[model_providers.NAME]`` table -> ``ProviderInfo`` (unknown keys are errors, as in Codex)."""
    where = f"[model_providers.{provider_id}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table, got {type(table).__name__}")
    for key, what in _UNSUPPORTED_KEYS.items():
        if key in table:
            raise ConfigError(f"{where} {key}: {what} are not supported by codex_nb; use env_key with an API key")
    unknown = sorted(set(table) - _PROVIDER_KEYS)
    if unknown:
        raise ConfigError(f"{where} has unknown key(s) {unknown}; known keys: {sorted(_PROVIDER_KEYS)}")
    wire_api = table.get("wire_api", "responses")
    if wire_api == "chat":
        raise ConfigError(CHAT_WIRE_API_REMOVED_ERROR)
    if wire_api != "responses":
        raise ConfigError(f"{where} wire_api: {unknown_variant(str(wire_api), ['responses'])}")
    token = _opt_str(table, "experimental_bearer_token", where)
    return ProviderInfo(
        id=provider_id,
        name=_opt_str(table, "name", where) or provider_id,
        base_url=_opt_str(table, "base_url", where),
        env_key=_opt_str(table, "env_key", where),
        env_key_instructions=_opt_str(table, "env_key_instructions", where),
        experimental_bearer_token=Secret(token) if token else None,
        query_params=_str_map(table, "query_params", where),
        http_headers=_str_map(table, "http_headers", where),
        env_http_headers=_str_map(table, "env_http_headers", where),
        request_max_retries=_opt_count(table, "request_max_retries", where),
        stream_max_retries=_opt_count(table, "stream_max_retries", where),
        stream_idle_timeout_ms=_opt_count(table, "stream_idle_timeout_ms", where, minimum=1),
        requires_openai_auth=bool(table.get("requires_openai_auth", False)),
        supports_standalone_web_search=table.get("supports_standalone_web_search") is True,
    )


def provider_catalog(config: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> dict[str, ProviderInfo]:
    """Built-in providers extended by the config's ``[model_providers]`` tables."""
    catalog = builtin_providers(environ, openai_base_url=_opt_str(config, "openai_base_url", "config"))
    tables = config.get("model_providers", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"[model_providers] must be a table of providers, got {type(tables).__name__}")
    for provider_id, table in tables.items():
        if provider_id in catalog:
            raise ConfigError(
                f"[model_providers.{provider_id}] cannot replace Codex's built-in `{provider_id}` provider (Codex "
                f"ignores such a table); give yours another name, e.g. [model_providers.my-{provider_id}], and set "
                f'model_provider = "my-{provider_id}"'
            )
        catalog[provider_id] = parse_provider(provider_id, table)
    return catalog


def check_choice(value: object, allowed: tuple[str, ...], key: str) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise ConfigError(f"{key} must be one of {', '.join(allowed)}; got {value!r}")
    return str(value)


def _opt_str(table: Mapping[str, Any], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{where} {key} must be a string, got {type(value).__name__}")
    return value


def _opt_count(table: Mapping[str, Any], key: str, where: str, *, minimum: int = 0) -> int | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ConfigError(f"{where} {key} must be an integer >= {minimum}, got {value!r}")
    return value


def _str_map(table: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = table.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ConfigError(f'{where} {key} must be a table of string values, e.g. {key} = {{ name = "value" }}')
    return dict(value)
