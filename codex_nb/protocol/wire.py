"""JSON bytes as Codex (serde_json) writes them: compact separators, raw non-ASCII.

Key order is the caller's job (dict insertion order); this module only fixes the
separators and escaping so that equal structures give equal bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_core import from_json

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# json.dumps(**options) builds an encoder per call; these are built once. Every call's arguments
# and output are written through dumps, so the first skips the cycle check (a set of ids kept per
# container: half the time of a 50-step plan); a cycle then ends in RecursionError, and the second
# encodes again to raise json's own "Circular reference detected".
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
_CHECKED = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Serialise ``value`` the way serde_json does: ``{"a":1}``, non-ASCII kept raw."""
    try:
        return _ENCODER.encode(value)
    except RecursionError:
        return _CHECKED.encode(value)


def loads(data: bytes | str) -> Any:
    """One JSON text, as ``json.loads`` reads it. pydantic-core's parser reads a peer's line (a
    plan notification, a cassette interaction) in about a third of the time ``json.loads`` takes;
    the few texts it refuses that ``json.loads`` reads (a lone UTF-16 surrogate escape, say) go the
    standard way, so every text reads as before and a bad one raises ``json.loads``'s ValueError."""
    try:
        return from_json(data)
    except ValueError:
        return json.loads(data)


def well_formed(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate replaced by U+FFFD, a pair joined into one character.

    Python strings may hold lone surrogates (``json.loads('"\\ud800"')``), UTF-8 cannot.
    Codex never has them: it rejects them in tool arguments and its V8 bridge writes
    U+FFFD for them; codex_nb does the same wherever text leaves the process (comms, hook
    stdin, logs).
    """
    if text.isascii() or _LONE_SURROGATE.search(text) is None:  # isascii reads a flag the str keeps
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def well_formed_json(value: Any) -> Any:
    """``value`` with ``well_formed`` applied to every string in it (dict keys included)."""
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, dict):
        return {well_formed_json(k): well_formed_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [well_formed_json(v) for v in value]
    return value
