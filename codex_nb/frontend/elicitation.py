"""MCP elicitations as prompts: a form's JSON Schema read into fields, and answers checked.

A form elicitation's ``requestedSchema`` is an object of primitive fields (MCP 2025-11-25,
the shape Codex's app-server declares as ``McpElicitationSchema``): strings (with
``format``, ``minLength``/``maxLength``), numbers and integers (with bounds), booleans, and
enums (``enum`` with optional ``enumNames``, titled ``oneOf``, or an ``array`` of them for a
multi-select). ``read_schema`` reads every field or raises ``UnsupportedSchema`` naming the
first field it cannot show, so a form is never shown half-way: the asking source declines
the elicitation and says why.

An answer is ``"accept"`` / ``"decline"`` / ``"cancel"``, ``{"action": ..., "content": {...}}``
or, for a form, the content mapping alone (accept). Accepted content is checked against the
fields (types, required, bounds, formats, options); a bad value is an ``AnswerError`` naming
the field. URL elicitations take no content: accepting means the person agrees to go to the
URL themselves (codex_nb never opens it).

Codex also asks whether an MCP tool may run as a form elicitation without fields, marked
``_meta.codex_approval_kind = "mcp_tool_call"`` with the longer approvals it offers in
``_meta.persist``; ``accept_for_session`` / ``accept_always`` answer with ``_meta.persist``
as Codex reads it.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from ..protocol.frontend import ElicitationField, ElicitationRequestEvent, McpToolApproval, QuestionOption

MAX_FIELDS = 50
MAX_OPTIONS = 200
MAX_TEXT = 10_000
MAX_URL = 4096
ACTIONS = ("accept", "decline", "cancel")
FORMATS = ("email", "uri", "date", "date-time")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class UnsupportedSchema(ValueError):
    """A form schema codex_nb cannot show as a whole (the message names the field)."""


class ContentError(ValueError):
    """Accepted content that does not fit the form (the message names the field)."""


def _text(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise UnsupportedSchema(f"{where} must be text, got {type(value).__name__}")
    return value[:MAX_TEXT]


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UnsupportedSchema(f"{where} must be a finite number, got {value!r:.100}")
    return float(value)


def _count(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UnsupportedSchema(f"{where} must be a non-negative integer, got {value!r:.100}")
    return value


def _options(values: Any, names: Any, where: str) -> list[QuestionOption]:
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise UnsupportedSchema(f"{where} must be a non-empty list of strings")
    if len(values) > MAX_OPTIONS:
        raise UnsupportedSchema(f"{where} lists {len(values)} options; at most {MAX_OPTIONS} are shown")
    if names is not None and (
        not isinstance(names, list) or len(names) != len(values) or not all(isinstance(n, str) for n in names)
    ):
        raise UnsupportedSchema(f"{where}: enumNames must be one string per enum value")
    labels = names or values
    return [
        QuestionOption(label=label[:MAX_TEXT], description=value) for label, value in zip(labels, values, strict=True)
    ]


def _titled(items: Any, where: str) -> list[QuestionOption]:
    if not isinstance(items, list) or not items:
        raise UnsupportedSchema(f"{where} must be a non-empty list of {{const, title}}")
    out = []
    for item in items[: MAX_OPTIONS + 1]:
        if not isinstance(item, Mapping) or not isinstance(item.get("const"), str):
            raise UnsupportedSchema(f"{where} must be a list of {{const, title}}, got {item!r:.100}")
        title = item.get("title", item["const"])
        out.append(QuestionOption(label=str(title)[:MAX_TEXT], description=item["const"]))
    if len(out) > MAX_OPTIONS:
        raise UnsupportedSchema(f"{where} lists more than {MAX_OPTIONS} options")
    return out


def _field(name: str, raw: Any, required: bool) -> ElicitationField:
    where = f"field {name!r}"
    if not isinstance(raw, Mapping):
        raise UnsupportedSchema(f"{where} has no schema object")
    kind = raw.get("type")
    common: dict[str, Any] = {
        "name": name,
        "title": _text(raw.get("title"), f"{where}: title"),
        "description": _text(raw.get("description"), f"{where}: description"),
        "required": required,
    }
    default = raw.get("default")
    if kind == "string" and ("enum" in raw or "oneOf" in raw):
        options = (
            _options(raw["enum"], raw.get("enumNames"), f"{where}: enum")
            if "enum" in raw
            else _titled(raw["oneOf"], f"{where}: oneOf")
        )
        if default is not None and default not in [o.description for o in options]:
            raise UnsupportedSchema(f"{where}: default {default!r:.100} is not one of its options")
        return ElicitationField(type="enum", options=options, default=default, **common)
    if kind == "string":
        fmt = raw.get("format")
        if fmt is not None and fmt not in FORMATS:
            raise UnsupportedSchema(f"{where} has format {fmt!r:.100}; supported formats are {', '.join(FORMATS)}")
        if default is not None and not isinstance(default, str):
            raise UnsupportedSchema(f"{where}: default must be a string")
        return ElicitationField(
            type="string",
            format=fmt,
            min_length=_count(raw.get("minLength"), f"{where}: minLength"),
            max_length=_count(raw.get("maxLength"), f"{where}: maxLength"),
            default=default,
            **common,
        )
    if kind in ("number", "integer"):
        if default is not None:
            _number(default, f"{where}: default")
        return ElicitationField(
            type=kind,
            minimum=_number(raw.get("minimum"), f"{where}: minimum"),
            maximum=_number(raw.get("maximum"), f"{where}: maximum"),
            default=default,
            **common,
        )
    if kind == "boolean":
        if default is not None and not isinstance(default, bool):
            raise UnsupportedSchema(f"{where}: default must be true or false")
        return ElicitationField(type="boolean", default=default, **common)
    if kind == "array":
        items = raw.get("items")
        if not isinstance(items, Mapping):
            raise UnsupportedSchema(f"{where} is an array without enum items; only multi-select enums are supported")
        if "enum" in items:
            options = _options(items["enum"], None, f"{where}: items.enum")
        elif "anyOf" in items:
            options = _titled(items["anyOf"], f"{where}: items.anyOf")
        else:
            raise UnsupportedSchema(f"{where} is an array of {items.get('type')!r:.50}; only enum items are supported")
        if default is not None and (
            not isinstance(default, list) or any(d not in [o.description for o in options] for d in default)
        ):
            raise UnsupportedSchema(f"{where}: default must be a list of its options")
        return ElicitationField(
            type="multi_enum",
            options=options,
            min_items=_count(raw.get("minItems"), f"{where}: minItems"),
            max_items=_count(raw.get("maxItems"), f"{where}: maxItems"),
            default=default,
            **common,
        )
    raise UnsupportedSchema(
        f"{where} has type {kind!r:.50}; an elicitation form takes only string, number, integer, boolean "
        f"and enum fields"
    )


def read_schema(schema: Any) -> list[ElicitationField]:
    """The form's fields in the server's order, or ``UnsupportedSchema`` naming what is wrong."""
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise UnsupportedSchema("requestedSchema must be a JSON Schema object with type 'object'")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UnsupportedSchema("requestedSchema.properties must be an object")
    if len(properties) > MAX_FIELDS:
        raise UnsupportedSchema(f"requestedSchema has {len(properties)} fields; at most {MAX_FIELDS} are shown")
    required = schema.get("required") or []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise UnsupportedSchema("requestedSchema.required must be a list of field names")
    unknown = [r for r in required if r not in properties]
    if unknown:
        raise UnsupportedSchema(f"required field {unknown[0]!r} is not in requestedSchema.properties")
    return [_field(str(name), raw, name in required) for name, raw in properties.items()]


def domain_of(url: str) -> str:
    """The host a URL points at (what a person should check before going there)."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def check_url(url: Any) -> str:
    if not isinstance(url, str) or not url:
        raise UnsupportedSchema("a URL elicitation needs a non-empty url")
    if len(url) > MAX_URL:
        raise UnsupportedSchema(f"the elicitation URL is longer than {MAX_URL} characters")
    if urlsplit(url).scheme not in ("https", "http") or not domain_of(url):
        raise UnsupportedSchema(f"the elicitation URL {url[:200]!r} is not an http(s) URL with a host")
    return url


MAX_MESSAGE = 10_000
MAX_PARAMS_TEXT = 2_000
PERSIST: tuple[Literal["session", "always"], ...] = ("session", "always")


def tool_approval(meta: Any) -> McpToolApproval | None:
    """Codex's MCP tool-call approval, read from the elicitation's ``_meta`` (None for any other)."""
    if not isinstance(meta, Mapping) or meta.get("codex_approval_kind") != "mcp_tool_call":
        return None
    persist = meta.get("persist")
    offered = [persist] if isinstance(persist, str) else persist if isinstance(persist, list) else []
    params = meta.get("tool_params")
    text = None
    if params is not None:
        try:
            text = json.dumps(params, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(params)
    return McpToolApproval(
        tool_name=str(meta["tool_name"])[:200] if meta.get("tool_name") is not None else None,
        tool_description=str(meta["tool_description"])[:MAX_TEXT] if meta.get("tool_description") else None,
        tool_params=None if text is None else text[:MAX_PARAMS_TEXT],
        persist=[p for p in PERSIST if p in offered],
    )


def event_from_params(
    params: Mapping[str, Any], *, call_id: str, turn_id: str, server_name: str
) -> ElicitationRequestEvent:
    """An MCP ``elicitation/create`` request's params (wire names: ``mode``, ``message``,
    ``requestedSchema``, ``url``, ``elicitationId``) as the event a prompt shows; raises
    ``UnsupportedSchema`` (naming the field or mode) when it cannot be shown whole."""
    mode = params.get("mode", "form")  # MCP before 2025-11-25 had forms only, without a mode
    message = params.get("message")
    if not isinstance(message, str):
        raise UnsupportedSchema("the elicitation has no message")
    common: dict[str, Any] = {
        "call_id": call_id,
        "turn_id": turn_id,
        "server_name": server_name[:200],
        "message": message[:MAX_MESSAGE],
    }
    if mode == "form":
        return ElicitationRequestEvent(
            mode="form",
            fields=read_schema(params.get("requestedSchema")),
            tool_approval=tool_approval(params.get("_meta")),
            **common,
        )
    if mode == "url":
        url = check_url(params.get("url"))
        elicitation_id = params.get("elicitationId")
        return ElicitationRequestEvent(
            mode="url",
            url=url,
            domain=domain_of(url),
            elicitation_id=str(elicitation_id)[:200] if elicitation_id is not None else None,
            **common,
        )
    raise UnsupportedSchema(f"elicitation mode {mode!r:.100} is not supported (codex_nb shows 'form' and 'url')")


# -- answers ------------------------------------------------------------------------------
def normalize_elicitation_answer(msg: ElicitationRequestEvent, response: Any) -> dict[str, Any]:
    """``{"action": ..., "content"?: {...}}`` checked against the request; raises ``ContentError``."""
    if isinstance(response, str):
        action, content = response, None
    elif isinstance(response, Mapping) and "action" in response:
        extra = sorted(set(response) - {"action", "content", "persist"})
        if extra:
            raise ContentError(f"an elicitation answer takes 'action', 'content' and 'persist'; unexpected {extra}")
        action, content = response["action"], response.get("content")
        if response.get("persist") is not None:
            if action != "accept":
                raise ContentError("'persist' goes with the 'accept' action only")
            persist = {"session": "accept_for_session", "always": "accept_always"}.get(response["persist"])
            if persist is None:
                raise ContentError(f"'persist' must be 'session' or 'always', got {response['persist']!r:.100}")
            action = persist
    elif isinstance(response, Mapping) and msg.mode == "form":
        action, content = "accept", response
    else:
        raise ContentError(
            f"an elicitation answer must be 'accept', 'decline', 'cancel' or {{'action': ..., 'content': {{...}}}}; "
            f"got {response!r:.200}"
        )
    persist = _persist(msg, action)
    if persist is not None:
        return {"action": "accept", "content": {}, "_meta": {"persist": persist}}
    if action not in ACTIONS:
        raise ContentError(f"elicitation action must be one of {', '.join(ACTIONS)}; got {action!r:.100}")
    if action != "accept":
        return {"action": action}
    if msg.mode == "url":
        if content not in (None, {}):
            raise ContentError("a URL elicitation is accepted without content")
        return {"action": "accept"}
    return {"action": "accept", "content": check_content(msg.fields, content if content is not None else {})}


def _persist(msg: ElicitationRequestEvent, action: Any) -> str | None:
    """``accept_for_session`` / ``accept_always``: the longer approvals of an MCP tool call, when offered."""
    wanted = (
        {"accept_for_session": "session", "accept_always": "always"}.get(action) if isinstance(action, str) else None
    )
    if wanted is None:
        return None
    offered = msg.tool_approval.persist if msg.tool_approval is not None else []
    if wanted not in offered:
        choices = ", ".join(
            [
                "accept",
                "decline",
                "cancel",
                *(f"accept_for_{p}" if p == "session" else "accept_always" for p in offered),
            ]
        )
        raise ContentError(f"{action!r} is not offered for this request; the answers are {choices}")
    return wanted


def defaults(fields: list[ElicitationField]) -> dict[str, Any] | None:
    """The form filled with its defaults, or None when a required field has none."""
    out: dict[str, Any] = {}
    for field in fields:
        if field.default is not None:
            out[field.name] = field.default
        elif field.required:
            return None
    return out


def check_content(fields: list[ElicitationField], content: Any) -> dict[str, Any]:
    if not isinstance(content, Mapping):
        raise ContentError(f"elicitation content must be an object of field values, got {type(content).__name__}")
    by_name = {f.name: f for f in fields}
    unknown = sorted(set(content) - set(by_name))
    if unknown:
        raise ContentError(f"unknown field {unknown[0]!r}; the form's fields are {list(by_name)}")
    out: dict[str, Any] = {}
    for field in fields:
        value = content.get(field.name)
        if value is None or value == "":
            if field.required:
                raise ContentError(f"field {field.name!r} is required")
            continue
        out[field.name] = _check_value(field, value)
    return out


def _check_value(field: ElicitationField, value: Any) -> Any:
    where = f"field {field.name!r}"
    if field.type == "boolean":
        if not isinstance(value, bool):
            raise ContentError(f"{where} must be true or false, got {value!r:.100}")
        return value
    if field.type in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ContentError(f"{where} must be a number, got {value!r:.100}")
        if field.type == "integer":
            if value != int(value):
                raise ContentError(f"{where} must be a whole number, got {value!r:.100}")
            value = int(value)
        if field.minimum is not None and value < field.minimum:
            raise ContentError(f"{where} must be at least {field.minimum:g}, got {value!r}")
        if field.maximum is not None and value > field.maximum:
            raise ContentError(f"{where} must be at most {field.maximum:g}, got {value!r}")
        return value
    values = [o.description for o in field.options or []]
    if field.type == "enum":
        if value not in values:
            raise ContentError(f"{where} must be one of {values[:20]}, got {value!r:.100}")
        return value
    if field.type == "multi_enum":
        if not isinstance(value, list) or any(v not in values for v in value):
            raise ContentError(f"{where} must be a list of {values[:20]}, got {value!r:.100}")
        if field.min_items is not None and len(value) < field.min_items:
            raise ContentError(f"{where} needs at least {field.min_items} choices")
        if field.max_items is not None and len(value) > field.max_items:
            raise ContentError(f"{where} takes at most {field.max_items} choices")
        return list(value)
    if not isinstance(value, str):
        raise ContentError(f"{where} must be text, got {type(value).__name__}")
    if len(value) > MAX_TEXT:
        raise ContentError(f"{where} is longer than {MAX_TEXT} characters")
    if field.min_length is not None and len(value) < field.min_length:
        raise ContentError(f"{where} needs at least {field.min_length} characters")
    if field.max_length is not None and len(value) > field.max_length:
        raise ContentError(f"{where} takes at most {field.max_length} characters")
    _check_format(field, value)
    return value


def _check_format(field: ElicitationField, value: str) -> None:
    where = f"field {field.name!r}"
    if field.format == "email" and not _EMAIL.match(value):
        raise ContentError(f"{where} must be an email address, got {value!r:.100}")
    if field.format == "uri" and not urlsplit(value).scheme:
        raise ContentError(f"{where} must be a URI with a scheme, got {value!r:.100}")
    try:
        if field.format == "date":
            datetime.date.fromisoformat(value)
        elif field.format == "date-time":
            datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ContentError(f"{where} must be an ISO {field.format}, got {value!r:.100}") from None
