"""Keep API keys out of whatever a model server's text becomes (errors, events, widgets).

A server (or a proxy in front of it) may echo the request's key back: in an HTTP error
body, a ``response.failed`` message, an ``error`` event, an incomplete reason or a
malformed item. Every such text passes through ``redact`` before it leaves the model:
the configured key is replaced wherever it appears, and so is every token codex_nb minted
(``codex_nb._secrets``: a random token may have no shape to find) and anything shaped like a
bearer token or an OpenAI-style ``sk-...`` key (a proxy's own key, or one the server
invents), since codex_nb cannot know every key a peer might repeat.
"""

from __future__ import annotations

import re

from .._secrets import minted

MASK = "***"
# Long enough, and (for a bearer token) with a digit, that prose is left alone:
# "Bearer authentication is required" keeps its words.
_SHAPES = re.compile(
    r"(?P<bearer>\b[Bb]earer\s+)(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{16,}"
    r"|\bsk-[A-Za-z0-9_-]{16,}"
)


def redact(text: str, key: str | None = None) -> str:
    """``text`` with ``key``, codex_nb's minted tokens and every bearer-token or ``sk-...`` shape masked."""
    if key and len(key) >= 4:
        text = text.replace(key, MASK)
    for token in minted():
        text = text.replace(token, MASK)
    return _SHAPES.sub(lambda m: f"{m.group('bearer')}{MASK}" if m.group("bearer") else MASK, text)
