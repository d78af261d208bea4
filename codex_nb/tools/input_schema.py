"""A tool's JSON input schema as Codex 0.169 ingests it before anyone sees it.

Codex never sends a dynamic or MCP tool's schema as given: it lowers it to the subset its
``JsonSchema`` type holds, and that lowered schema is both the ``parameters`` sent to the
model and what Code Mode renders as TypeScript. ``parse_tool_input_schema`` does the same
steps in the same order:

1. sanitize: a boolean schema becomes ``{"type": "string"}``; ``const`` becomes a
   one-value ``enum``; a schema without a usable ``type`` gets one inferred from its
   keywords (``properties``/``required``/``additionalProperties`` -> object, ``items`` /
   ``prefixItems`` -> array, ``enum``/``format`` -> string, number bounds -> number), or,
   with no hint at all, becomes ``{}`` (a ``$ref`` or ``anyOf``/``oneOf``/``allOf`` keeps
   it as it is); objects get ``properties: {}`` and arrays ``items: {"type": "string"}``
   when missing; definition tables that are not objects are dropped;
2. definitions no ``$ref`` outside the tables reaches are dropped;
3. while the compact JSON of the result is over 5,000 UTF-8 bytes: every ``description``
   goes, then the definition tables (refs into them become ``{}``), then object-like
   schemas 3 or more levels down become ``{}``, then every composition becomes ``{}``;
4. only the keywords Codex keeps remain, in its key order: ``$ref, type, description,
   encrypted, enum, items, minItems, properties, required, additionalProperties, anyOf,
   oneOf, allOf, $defs, definitions`` (``$id``, ``format``, ``title``, ``default``, bounds
   and the rest are dropped).

A schema Codex cannot take (a keyword of the wrong JSON type, a root of type ``null``)
raises ``ToolDefinitionError`` saying which keyword is wrong; so does one nested deeper than
128 JSON levels (Codex's JSON reader refuses such a message before it sees the tool).

``parse_mcp_input_schema`` is the MCP variant: Codex first gives a root without
``properties`` (or with ``null``) an empty ``properties`` object, so a root without ``type``
is an object schema.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from ..errors import ToolDefinitionError
from ..protocol.serde_json import RECURSION_LIMIT

COMPACT_SCHEMA_BYTES = 5_000
COMPACT_DEPTH = 3
MAX_JSON_DEPTH = RECURSION_LIMIT  # serde_json's nesting limit: Codex cannot read a deeper message

_DEFINITION_TABLES = ("$defs", "definitions")
_CHILD_KEYS = ("items", "anyOf", "oneOf", "allOf")
_COMPOSITIONS = ("anyOf", "oneOf", "allOf")
_TYPES = ("string", "number", "boolean", "integer", "object", "array", "null")
_NUMBER_HINTS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def parse_tool_input_schema(schema: Any, *, max_bytes: int = COMPACT_SCHEMA_BYTES) -> dict[str, Any]:
    """``schema`` (any JSON value) as Codex's ``parameters`` for it; the input is not changed."""
    _check_depth(schema)
    value = copy.deepcopy(schema)
    value = _sanitize(value)
    _prune_definitions(value)
    for compaction in _COMPACTIONS:
        if _fits(value, max_bytes):
            break
        value = compaction(value)
    parsed = lower_schema(value, "input schema")
    if parsed.get("type") == "null":
        raise ToolDefinitionError("tool input schema must not be a singleton null type")
    return parsed


def parse_mcp_input_schema(schema: Any) -> dict[str, Any]:
    """An MCP tool's ``inputSchema`` (a JSON object) as Codex's ``parameters`` for it."""
    if not isinstance(schema, dict):
        raise ToolDefinitionError(f"inputSchema must be a JSON object, got {_kind(schema)}")
    if schema.get("properties") is None:
        schema = {**schema, "properties": {}}
    return parse_tool_input_schema(schema)


def _check_depth(schema: Any) -> None:
    """Refuse nesting past ``MAX_JSON_DEPTH`` before any recursive step sees it."""
    pending: list[tuple[Any, int]] = [(schema, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise ToolDefinitionError(f"input schema nests deeper than {MAX_JSON_DEPTH} levels; flatten it")
            children = value.values() if isinstance(value, dict) else value
            pending.extend((child, depth + 1) for child in children)


# -- 1. sanitize ----------------------------------------------------------------------------------
def _sanitize(value: Any) -> Any:
    if isinstance(value, bool):
        return {"type": "string"}
    if isinstance(value, list):
        return [_sanitize(v) for v in value]
    if not isinstance(value, dict):
        return value
    m = value
    if isinstance(m.get("properties"), dict):
        m["properties"] = {k: _sanitize(v) for k, v in m["properties"].items()}
    for key in ("items", "prefixItems", *_COMPOSITIONS):
        if key in m:
            m[key] = _sanitize(m[key])
    if "additionalProperties" in m and not isinstance(m["additionalProperties"], bool):
        m["additionalProperties"] = _sanitize(m["additionalProperties"])
    for table in _DEFINITION_TABLES:
        if table in m:
            if isinstance(m[table], dict):
                m[table] = {k: _sanitize(v) for k, v in m[table].items()}
            else:
                del m[table]
    if "const" in m:
        m["enum"] = [m.pop("const")]
    types = _schema_types(m.get("type"))
    if not types and ("$ref" in m or any(k in m for k in _COMPOSITIONS)):
        return m
    if not types:
        if any(k in m for k in ("properties", "required", "additionalProperties")):
            types = ["object"]
        elif "items" in m or "prefixItems" in m:
            types = ["array"]
        elif "enum" in m or "format" in m:
            types = ["string"]
        elif any(k in m for k in _NUMBER_HINTS):
            types = ["number"]
        else:
            m.clear()
            return m
    m["type"] = types[0] if len(types) == 1 else types
    if "object" in types and "properties" not in m:
        m["properties"] = {}
    if "array" in types and "items" not in m:
        m["items"] = {"type": "string"}
    return m


def _schema_types(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value in _TYPES else []
    if isinstance(value, list):
        return [t for t in value if isinstance(t, str) and t in _TYPES]
    return []


# -- 2. unreachable definitions -------------------------------------------------------------------
def _definition_ref(ref: Any) -> tuple[str, str] | None:
    """``(table, name)`` of a ref into a root definition table (``#/$defs/Name/...``)."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    try:
        pointer = unquote_to_bytes(ref[1:]).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not pointer.startswith("/"):
        return None
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    if len(tokens) < 2 or tokens[0] not in _DEFINITION_TABLES:
        return None
    return tokens[0], tokens[1]


def _schema_children(m: dict[str, Any], *, definitions: bool) -> list[tuple[Any, Any]]:
    """(container, key) of every schema-valued child (enum values and other data left out)."""
    out: list[tuple[Any, Any]] = []
    if isinstance(m.get("properties"), dict):
        out += [(m["properties"], k) for k in m["properties"]]
    out += [(m, k) for k in _CHILD_KEYS if k in m]
    if "additionalProperties" in m and not isinstance(m["additionalProperties"], bool):
        out.append((m, "additionalProperties"))
    if definitions:
        for table in _DEFINITION_TABLES:
            if isinstance(m.get(table), dict):
                out += [(m[table], k) for k in m[table]]
    return out


def _collect_refs(value: Any, out: list[tuple[str, str]], *, in_definitions: bool) -> None:
    """Every definition ``$ref`` under ``value``; with ``in_definitions=False`` the walk does not
    enter the definition tables themselves (what the rest of the schema reaches)."""
    if isinstance(value, list):
        for v in value:
            _collect_refs(v, out, in_definitions=in_definitions)
    elif isinstance(value, dict):
        found = _definition_ref(value.get("$ref"))
        if found:
            out.append(found)
        children = (
            value.values()
            if in_definitions
            else (holder[key] for holder, key in _schema_children(value, definitions=False))
        )
        for child in children:
            _collect_refs(child, out, in_definitions=in_definitions)


def _prune_definitions(value: Any) -> None:
    if not isinstance(value, dict):
        return
    pending: list[tuple[str, str]] = []
    _collect_refs(value, pending, in_definitions=False)
    reachable: set[tuple[str, str]] = set()
    while pending:
        pointer = pending.pop()
        if pointer in reachable:
            continue
        reachable.add(pointer)
        table = value.get(pointer[0])
        if isinstance(table, dict) and pointer[1] in table:
            _collect_refs(table[pointer[1]], pending, in_definitions=True)
    for table in _DEFINITION_TABLES:
        if isinstance(value.get(table), dict):
            kept = {k: v for k, v in value[table].items() if (table, k) in reachable}
            if kept:
                value[table] = kept
            else:
                del value[table]


# -- 3. compaction --------------------------------------------------------------------------------
def _fits(value: Any, max_bytes: int) -> bool:
    try:
        lowered = lower_schema(value, "input schema")
    except ToolDefinitionError:
        return True  # Codex measures an unparsable schema as 0 bytes; the parse reports it later
    return len(json.dumps(lowered, separators=(",", ":"), ensure_ascii=False).encode()) <= max_bytes


def _walk(value: Any, visit: Callable[[dict[str, Any]], Any], *, definitions: bool) -> Any:
    """Apply ``visit`` to every schema object; a non-None answer replaces it (and is not entered)."""
    if isinstance(value, list):
        return [_walk(v, visit, definitions=definitions) for v in value]
    if not isinstance(value, dict):
        return value
    replaced = visit(value)
    if replaced is not None:
        return replaced
    for holder, key in _schema_children(value, definitions=definitions):
        holder[key] = _walk(holder[key], visit, definitions=definitions)
    return value


def _strip_descriptions(value: Any) -> Any:
    def visit(m: dict[str, Any]) -> None:
        m.pop("description", None)

    return _walk(value, visit, definitions=True)


def _drop_definitions(value: Any) -> Any:
    value = _walk(value, lambda m: {} if _definition_ref(m.get("$ref")) else None, definitions=False)
    if isinstance(value, dict):
        for table in _DEFINITION_TABLES:
            value.pop(table, None)
    return value


def _collapse_deep(value: Any, depth: int = 0) -> Any:
    if isinstance(value, list):
        return [_collapse_deep(v, depth) for v in value]
    if not isinstance(value, dict):
        return value
    if depth >= COMPACT_DEPTH and (
        any(k in value for k in (*_CHILD_KEYS, "properties", "additionalProperties", "$ref"))
    ):
        return {}
    for holder, key in _schema_children(value, definitions=False):
        holder[key] = _collapse_deep(holder[key], depth + 1)
    return value


def _prune_compositions(value: Any) -> Any:
    return _walk(value, lambda m: {} if any(k in m for k in _COMPOSITIONS) else None, definitions=False)


_COMPACTIONS = (_strip_descriptions, _drop_definitions, _collapse_deep, _prune_compositions)


# -- 4. Codex's JsonSchema subset -----------------------------------------------------------------
def lower_schema(value: Any, where: str) -> dict[str, Any]:
    """``value`` read as Codex's ``JsonSchema`` and written back: unknown keywords dropped,
    known ones checked and put in Codex's order."""
    if not isinstance(value, dict):
        raise ToolDefinitionError(f"{where} must be a JSON object, got {_kind(value)}")
    out: dict[str, Any] = {}
    for key, read in _FIELDS:
        if key in value and value[key] is not None:
            out[key] = read(value[key], f"{where}.{key}")
    return out


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ToolDefinitionError(f"{where} must be a string, got {_kind(value)}")
    return value


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ToolDefinitionError(f"{where} must be true or false, got {_kind(value)}")
    return value


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ToolDefinitionError(f"{where} must be a non-negative integer, got {value!r:.40}")
    return value


def _type(value: Any, where: str) -> str | list[str]:
    if isinstance(value, str) and value in _TYPES:
        return value
    if isinstance(value, list) and all(isinstance(t, str) and t in _TYPES for t in value):
        return list(value)
    raise ToolDefinitionError(f"{where} must be one of {', '.join(_TYPES)} or a list of them, got {value!r:.60}")


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ToolDefinitionError(f"{where} must be a list, got {_kind(value)}")
    return list(value)


def _strings(value: Any, where: str) -> list[str]:
    return [_string(v, f"{where}[{i}]") for i, v in enumerate(_list(value, where))]


def _schemas(value: Any, where: str) -> list[dict[str, Any]]:
    return [lower_schema(v, f"{where}[{i}]") for i, v in enumerate(_list(value, where))]


def _schema_map(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ToolDefinitionError(f"{where} must be an object of schemas, got {_kind(value)}")
    return {k: lower_schema(value[k], f"{where}.{k}") for k in sorted(value)}


def _additional(value: Any, where: str) -> bool | dict[str, Any]:
    return value if isinstance(value, bool) else lower_schema(value, where)


_FIELDS: tuple[tuple[str, Callable[[Any, str], Any]], ...] = (
    ("$ref", _string),
    ("type", _type),
    ("description", _string),
    ("encrypted", _boolean),
    ("enum", _list),
    ("items", lower_schema),
    ("minItems", _count),
    ("properties", _schema_map),
    ("required", _strings),
    ("additionalProperties", _additional),
    ("anyOf", _schemas),
    ("oneOf", _schemas),
    ("allOf", _schemas),
    ("$defs", _schema_map),
    ("definitions", _schema_map),
)
