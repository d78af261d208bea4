"""Secrets never land on disk: every string of an interaction is scrubbed before it is written.

Masked: header values whose name says secret (``Authorization``, ``api-key``, ``*-token``,
``cookie``, ...) or that the caller names (a provider's ``env_http_headers``); every
given secret value (the API key, the values of those env vars) wherever it appears; any
bearer-token or ``sk-...`` shape; and whatever the user's ``cassette_filters`` match
(a literal string, a compiled regex, or a function from text to text).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from ..responses.redact import MASK, redact

_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|passw|session|credential|signature", re.I)


def check_filters(filters: Any) -> list[Callable[[str], str]]:
    """``cassette_filters`` as text functions: a ``str`` is masked literally, a ``re.Pattern`` by match."""
    if filters is None:
        return []
    if isinstance(filters, (str, re.Pattern)) or callable(filters):
        filters = [filters]
    out: list[Callable[[str], str]] = []
    for item in filters:
        if isinstance(item, str):
            if len(item) < 4:
                raise ConfigError(f"a cassette filter string must be at least 4 characters, got {item!r}")
            out.append(functools.partial(_literal, item))
        elif isinstance(item, re.Pattern):
            out.append(functools.partial(_pattern, item))
        elif callable(item):
            out.append(_checked(item))
        else:
            raise ConfigError(
                f"cassette_filters takes strings (masked where they appear), compiled regexes or functions "
                f"str -> str; got {type(item).__name__}"
            )
    return out


def _literal(secret: str, text: str) -> str:
    return text.replace(secret, MASK)


def _pattern(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(MASK, text)


def _checked(fn: Callable[[str], str]) -> Callable[[str], str]:
    def run(text: str) -> str:
        out = fn(text)
        if not isinstance(out, str):
            raise ConfigError(f"cassette filter {fn!r} returned {type(out).__name__}, not str")
        return out

    return run


class Scrubber:
    """Masks secrets in headers and in every string of a JSON value."""

    def __init__(
        self,
        *,
        secrets: Iterable[str | None] = (),
        headers: Iterable[str] = (),
        filters: Iterable[Callable[[str], str]] = (),
    ) -> None:
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
        self._headers = frozenset(h.lower() for h in headers)
        self._filters = list(filters)

    def text(self, value: str) -> str:
        for secret in self._secrets:
            value = value.replace(secret, MASK)
        value = redact(value)
        for fn in self._filters:
            value = fn(value)
        return value

    def secret_header(self, name: str) -> bool:
        return name.lower() in self._headers or bool(_SECRET_HEADER.search(name))

    def headers(self, headers: Mapping[str, Any]) -> dict[str, Any]:
        return {name: (MASK if self.secret_header(name) else self.value(value)) for name, value in headers.items()}

    def value(self, value: Any) -> Any:
        """``value`` (any JSON) with every string scrubbed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def leaks(self, text: str) -> bool:
        """Whether a known secret value survives in ``text`` (e.g. one split across stream chunks)."""
        return any(secret in text for secret in self._secrets)
