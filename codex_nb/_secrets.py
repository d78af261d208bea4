"""The secrets codex_nb knows by value, for the one cassette scrubber to mask wherever they appear.

Two kinds: the values of the environment's secret-looking variables (a ``GITHUB_TOKEN`` a person
pasted into a prompt, or an agent echoed), and every token codex_nb mints itself (the notebook MCP
server's bearer token). A pattern cannot find them: a token drawn by ``secrets.token_urlsafe`` may
hold no digit and look like a word, and a variable's value has whatever shape its issuer chose.
The minted tokens are kept for the life of the process, because a recording may repeat one after
the server that used it has closed. At the bottom layer, so whatever mints a token can register it.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Mapping

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE", re.IGNORECASE)
"""Environment variable names whose values never land in a cassette."""
MIN_SECRET = 8
"""Shorter values are too common to replace (``1``, ``true``, ``enabled``) and are no real key."""

_minted: tuple[str, ...] = ()
"""Replaced whole on each mint, so a reader needs no lock (and a scrubber sees a change by identity)."""
_lock = threading.Lock()  # tokens are minted on the kernel's thread and on server threads


def mint_token(nbytes: int = 32) -> str:
    """A new ``secrets.token_urlsafe`` token, remembered so that no cassette ever writes it."""
    global _minted
    token = secrets.token_urlsafe(nbytes)
    with _lock:
        _minted = tuple(sorted((*_minted, token), key=len, reverse=True))
    return token


def minted() -> tuple[str, ...]:
    """Every token ``mint_token`` made in this process, the longest first (one holding another is
    masked whole), the same tuple until the next mint."""
    return _minted


def secret_values(env: Mapping[str, str]) -> list[str]:
    """The values of the variables in ``env`` whose names say secret (an API key, a token)."""
    return [v for k, v in env.items() if SECRET_NAME.search(k) and isinstance(v, str) and len(v) >= MIN_SECRET]
