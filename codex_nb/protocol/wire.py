"""JSON bytes as Codex (serde_json) writes them: compact separators, raw non-ASCII.

Key order is the caller's job (dict insertion order); this module only fixes the
separators and escaping so that equal structures give equal bytes.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _json import make_encoder

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # json.dumps(**options) builds one per call

# The C encoder behind _ENCODER, built once: JSONEncoder.encode builds a new one per call.
# Without a markers dict it cannot share state between threads or keep stale marks after an
# error; it does not detect cycles either, so every failure (a cycle ends in RecursionError)
# is retried through _ENCODER, which raises its usual, clear error. (c_make_encoder is None
# where the _json accelerator is missing; typeshed does not declare it, hence getattr.)
_C_MAKE_ENCODER: type[make_encoder] | None = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODER = (
    _C_MAKE_ENCODER(None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",", False, False, True)
    if _C_MAKE_ENCODER is not None
    else None
)


def dumps(value: Any) -> str:
    """Serialise ``value`` the way serde_json does: ``{"a":1}``, non-ASCII kept raw."""
    if _C_ENCODER is not None and type(value) in (dict, list):
        try:
            return "".join(_C_ENCODER(value, 0))
        except Exception:
            pass
    return _ENCODER.encode(value)


def well_formed(text: str) -> str:
    """``text`` with every lone UTF-16 surrogate replaced by U+FFFD, a pair joined into one character.

    Python strings may hold lone surrogates (``json.loads('"\\ud800"')``), UTF-8 cannot.
    Codex never has them: it rejects them in tool arguments and its V8 bridge writes
    U+FFFD for them; codex_nb does the same wherever text leaves the process (comms, hook
    stdin, logs).
    """
    if _LONE_SURROGATE.search(text) is None:
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
