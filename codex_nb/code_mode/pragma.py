"""Parse the ``exec`` input: an optional first-line ``// @exec: {json}`` pragma, then JS.

Errors are values the model reads; the texts are Codex's.
"""

from __future__ import annotations

from dataclasses import dataclass
import json

from .description import PRAGMA_PREFIX

MAX_SAFE_INTEGER = (1 << 53) - 1
EMPTY_SOURCE_ERROR = (
    "exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with first-line "
    '`// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`.'
)
_FIELDS = "`yield_time_ms` and `max_output_tokens`"


class PragmaError(ValueError):
    """The exec input is not runnable; ``str(err)`` is the exact text for the model."""


@dataclass(frozen=True, kw_only=True)
class ParsedExecSource:
    code: str
    yield_time_ms: int | None = None
    max_output_tokens: int | None = None


def parse_exec_source(source: str) -> ParsedExecSource:
    if not source.strip():
        raise PragmaError(EMPTY_SOURCE_ERROR)
    first, _, rest = source.partition("\n")
    stripped = first.lstrip()
    if not stripped.startswith(PRAGMA_PREFIX):
        return ParsedExecSource(code=source)
    if not rest.strip():
        raise PragmaError("exec pragma must be followed by JavaScript source on subsequent lines")
    directive = stripped[len(PRAGMA_PREFIX) :].strip()
    not_object = f"exec pragma must be a JSON object with supported fields {_FIELDS}"
    if not directive:
        raise PragmaError(not_object)
    try:
        value = json.loads(directive)
    except ValueError as err:
        raise PragmaError(f"exec pragma must be valid JSON with supported fields {_FIELDS}: {err}") from None
    if not isinstance(value, dict):
        raise PragmaError(not_object)
    for key in value:
        if key not in ("yield_time_ms", "max_output_tokens"):
            raise PragmaError(f"exec pragma only supports {_FIELDS}; got `{key}`")
    for key in ("yield_time_ms", "max_output_tokens"):
        field = value.get(key)
        if field is None:
            continue
        if isinstance(field, bool) or not isinstance(field, int) or field < 0:
            raise PragmaError(
                f"exec pragma fields {_FIELDS} must be non-negative safe integers: invalid value {field!r}"
            )
        if field > MAX_SAFE_INTEGER:
            raise PragmaError(f"exec pragma field `{key}` must be a non-negative safe integer")
    return ParsedExecSource(
        code=rest, yield_time_ms=value.get("yield_time_ms"), max_output_tokens=value.get("max_output_tokens")
    )
