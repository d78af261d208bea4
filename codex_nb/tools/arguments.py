"""Parsing a tool call's JSON arguments into an object, with serde-style messages.

Handlers differ only in the prefix Codex puts before the parser's message
(``failed to parse function arguments: ...``, ``failed to parse tool_search arguments: ...``)
and the struct name an invalid type is reported against.
"""

from __future__ import annotations

from typing import Any

from ..protocol.serde import SerdeError, loads
from ..protocol.serde_json import missing_field
from .tool_errors import RespondToModel

FUNCTION_ARGUMENTS = "failed to parse function arguments"


def parse_object(
    text: str,
    struct: str,
    *,
    prefix: str = FUNCTION_ARGUMENTS,
    error: type[Exception] = RespondToModel,
    blank: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The arguments as a dict; ``blank`` (if given) stands for empty text; raises ``error``."""
    if blank is not None and not text.strip():
        return dict(blank)
    try:
        raw = loads(text)
    except SerdeError as err:
        raise error(f"{prefix}: {err}") from None
    if not isinstance(raw, dict):
        raise error(f"{prefix}: invalid type: expected struct {struct}")
    return raw


def require_str(
    raw: dict[str, Any], key: str, *, prefix: str = FUNCTION_ARGUMENTS, error: type[Exception] = RespondToModel
) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise error(f"{prefix}: {missing_field(key)}")
    return value
