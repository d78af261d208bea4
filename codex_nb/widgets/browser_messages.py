"""Browser -> kernel message validation, from the shared ``protocol.json``.

``protocol.json`` is the single definition of the message kinds (``js/protocol.js`` reads
the same file). A message is ``{"id": str, "kind": str, **fields}``; field types are
``string``, ``integer`` (not bool), ``boolean``, ``object``, ``array`` or ``null``, joined with ``|``;
``absent`` among them makes the field optional (a view of an earlier release omits it). Unknown
kinds, missing or extra fields and wrong types are rejected with a :class:`ProtocolError`
whose message names the problem.
"""

from __future__ import annotations

from typing import Any

from ._static import load_json

MAX_ID_LENGTH = 200

_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


class ProtocolError(ValueError):
    """A message from a widget view does not match protocol.json."""


def protocol() -> dict[str, Any]:
    """The parsed ``protocol.json``."""
    return load_json("protocol.json")


def kinds(widget: str, direction: str) -> tuple[str, ...]:
    """Message kinds of ``widget`` in ``direction`` (``to_kernel`` or ``to_view``)."""
    return tuple(protocol()["widgets"][widget][direction])


def _type_ok(spec: str, value: object) -> bool:
    return any(_CHECKS[name](value) for name in spec.split("|") if name != "absent")


def validate_to_kernel(widget: str, message: object) -> dict[str, Any]:
    """Return ``message`` if it is a valid request from a ``widget`` view, else raise."""
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object {{id, kind, ...}}, got {type(message).__name__}")
    kind = message.get("kind")
    specs = protocol()["widgets"][widget]["to_kernel"]
    if not isinstance(kind, str) or kind not in specs:
        raise ProtocolError(f"unknown message kind {kind!r}; expected one of {sorted(specs)}")
    fields: dict[str, str] = specs[kind]
    msg_id = message.get("id")
    if not isinstance(msg_id, str) or not msg_id or len(msg_id) > MAX_ID_LENGTH:
        raise ProtocolError(f"{kind}: 'id' must be a non-empty string of at most {MAX_ID_LENGTH} characters")
    extra = sorted(set(message) - set(fields) - {"kind"})
    if extra:
        raise ProtocolError(f"{kind}: unexpected field(s) {extra}")
    for name, spec in fields.items():
        if name not in message and "absent" in spec.split("|"):
            continue
        if name not in message:
            raise ProtocolError(f"{kind}: missing field {name!r}")
        if not _type_ok(spec, message[name]):
            raise ProtocolError(f"{kind}: field {name!r} must be {spec}, got {type(message[name]).__name__}")
    return message
