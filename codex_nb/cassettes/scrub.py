"""Secrets never land on disk: every string of an interaction is scrubbed before it is written.

Masked: header values whose name says secret (``Authorization``, ``api-key``, ``*-token``,
``cookie``, ...) or that the caller names (a provider's ``env_http_headers``); by value,
wherever it appears, every given secret (the API key, the values of those env vars), the
value of every secret-looking variable of the environment (``*TOKEN*``, ``*KEY*``,
``*SECRET*``, ``*PASSW*``, ``*CREDENTIAL*``, ...: ``codex_nb._secrets``) and every token
codex_nb minted, whatever its characters; any bearer-token or ``sk-...`` shape; and whatever
the user's ``cassette_filters`` match (a literal string, a compiled regex, or a function from
text to text). Every cassette kind (model, app-server, ACP) writes through this one class.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .._secrets import minted, secret_values
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
    """Masks secrets in headers and in every string of a JSON value: ``secrets`` and the secret
    values of ``env`` (a peer's environment) beside those of ``os.environ`` and codex_nb's minted
    tokens, which are read again when a new one was minted since."""

    def __init__(
        self,
        *,
        secrets: Iterable[str | None] = (),
        headers: Iterable[str] = (),
        filters: Iterable[Callable[[str], str]] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        given = {s for s in secrets if s and len(s) >= 4}
        given.update(secret_values(os.environ), secret_values(env or {}))
        self._given = given
        self._minted: tuple[str, ...] | None = None
        self._secrets: list[str] = []
        self._headers = frozenset(h.lower() for h in headers)
        self._filters = list(filters)
        self._known()

    def _known(self) -> list[str]:
        """Every secret value, the longest first (one holding another is masked whole)."""
        tokens = minted()
        if tokens is not self._minted:  # a token was minted since (or this is the first call)
            self._minted = tokens
            self._secrets = sorted(self._given.union(tokens), key=len, reverse=True)
        return self._secrets

    def text(self, value: str) -> str:
        for secret in self._known():
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
        return any(secret in text for secret in self._known())
