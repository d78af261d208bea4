"""JSON Schema -> TypeScript type text, for the Code Mode tool declarations.

``render_json_schema_to_typescript`` mirrors Codex 0.169's renderer: literals for ``const`` /
``enum``, unions for ``anyOf`` / ``oneOf``, intersections for ``allOf`` (a union inside one
gets parentheses), ``Array<T>``, objects on one line (``{ a: string; b?: number; }``) or,
when any property has a description, on several lines with ``// comment`` lines that are
never re-indented.

Local ``$ref``s (the fragment percent-decoded, then an RFC 6901 pointer) are expanded at
most 2 times per path and 32 times in total; a ref to a missing target renders ``unknown``
without using up an expansion. Below a nested ``$id`` (a new schema resource) fragment refs
are not resolved. Two bounds keep a small schema from expanding into a huge declaration:
every intermediate string is charged against a render-work budget of 4 x 16,000 bytes (once
it runs out, the rest renders ``unknown``), and a result over 16,000 bytes becomes
``unknown``. All lengths are UTF-8 bytes, as in Codex. A schema nested past Python's
recursion limit (hundreds of levels, which the work budget would almost always refuse
anyway) renders ``unknown`` too.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_REF_EXPANSIONS_PER_PATH = 2
MAX_REF_EXPANSIONS_TOTAL = 32
MAX_RENDERED_BYTES = 16_000
RENDER_WORK_MULTIPLIER = 4

_RENDERABLE_KEYS = (
    "const",
    "enum",
    "anyOf",
    "oneOf",
    "allOf",
    "type",
    "properties",
    "additionalProperties",
    "required",
    "items",
    "prefixItems",
)
_INVALID_IDENT_FIRST = re.compile(r"[^A-Za-z_$]")
_INVALID_IDENT_REST = re.compile(r"[^A-Za-z0-9_$]")
# Rust's char::is_whitespace (Unicode White_Space): what str::trim removes. Python's str.strip
# also removes \x1c-\x1f, which Rust keeps.
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
_UNKNOWN = "unknown"


def normalize_identifier(name: str) -> str:
    """Every character not valid in a JS identifier becomes ``_`` (``hidden-dynamic-tool``
    -> ``hidden_dynamic_tool``); an empty name becomes ``_``."""
    if not name:
        return "_"
    return _INVALID_IDENT_FIRST.sub("_", name[0]) + _INVALID_IDENT_REST.sub("_", name[1:])


def render_literal(value: Any) -> str:
    """A JSON literal as serde_json prints it: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def render_json_schema_to_typescript(schema: Any) -> str:
    try:
        rendered = _Renderer(schema, MAX_RENDERED_BYTES).render(schema)
    except RecursionError:  # a hostile nesting depth: no declaration rather than a crash
        return _UNKNOWN
    return _UNKNOWN if _nbytes(rendered) > MAX_RENDERED_BYTES else rendered


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _rust_lines(text: str) -> list[str]:
    """``str::lines().map(str::trim)``: split on ``\\n`` (a trailing ``\\r`` goes with it)."""
    return [line.strip(_RUST_WHITESPACE) for line in text.split("\n")]


def _percent_decode(fragment: str) -> str | None:
    """A URI fragment with ``%XX`` escapes decoded; ``None`` for a bad escape or non-UTF-8."""
    raw = fragment.encode("utf-8", "surrogatepass")
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == ord("%"):
            pair = raw[i + 1 : i + 3]
            if len(pair) != 2 or not all(chr(b) in "0123456789abcdefABCDEF" for b in pair):
                return None
            out.append(int(pair, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _local_pointer(ref: Any) -> str | None:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    pointer = _percent_decode(ref[1:])
    if pointer is None or (pointer and not pointer.startswith("/")):
        return None
    return pointer


_NO_TARGET = object()


def _pointer_get(root: Any, pointer: str) -> Any:
    """serde_json's ``Value::pointer`` (``~1`` is ``/``, ``~0`` is ``~``; array indexes without
    a leading ``+`` or ``0``); ``_NO_TARGET`` when missing."""
    if not pointer:
        return root
    node = root
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            if part not in node:
                return _NO_TARGET
            node = node[part]
        elif isinstance(node, list):
            if not part.isascii() or not part.isdigit() or (part.startswith("0") and part != "0"):
                return _NO_TARGET
            index = int(part)
            if index >= len(node):
                return _NO_TARGET
            node = node[index]
        else:
            return _NO_TARGET
    return node


def _literal_upper_bound(value: Any) -> int:
    """An upper bound of a literal's serialised bytes, known before serialising it (one byte of
    a string can become a six-byte ``\\uXXXX`` escape)."""
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, str):
        return _nbytes(value) * 6 + 2
    if isinstance(value, list):
        return 2 + sum(1 + _literal_upper_bound(v) for v in value)
    if isinstance(value, dict):
        return 2 + sum(4 + _nbytes(str(k)) * 6 + _literal_upper_bound(v) for k, v in value.items())
    return _nbytes(render_literal(value))


class _Renderer:
    """One rendering: the active ref expansions and the remaining budgets (Codex's control
    flow kept step for step, so which parts turn ``unknown`` when a budget runs out match)."""

    def __init__(self, root: Any, max_bytes: int) -> None:
        self.root = root
        self.nested_resource_depth = 0
        self.active: dict[str, int] = {}
        self.remaining_expansions = MAX_REF_EXPANSIONS_TOTAL
        self.remaining_work = max_bytes * RENDER_WORK_MULTIPLIER
        self.exhausted = False

    # -- budget ------------------------------------------------------------------------
    def consume(self, nbytes: int) -> bool:
        if nbytes > self.remaining_work:
            self.exhausted = True
            return False
        self.remaining_work -= nbytes
        return True

    def push_line(self, lines: list[str], line: str) -> bool:
        if not self.consume(_nbytes(line)):
            return False
        lines.append(line)
        return True

    def literal(self, value: Any) -> str:
        if _literal_upper_bound(value) > self.remaining_work:
            self.exhausted = True
            return _UNKNOWN
        return render_literal(value)

    # -- schemas -----------------------------------------------------------------------
    def render(self, schema: Any) -> str:
        if self.exhausted:
            return _UNKNOWN
        # A nested `$id` starts a new schema resource: fragment refs below it are not the root's.
        nested = schema is not self.root and isinstance(schema, dict) and "$id" in schema
        if nested:
            self.nested_resource_depth += 1
        try:
            if schema is True:
                rendered = _UNKNOWN
            elif schema is False:
                rendered = "never"
            elif isinstance(schema, dict):
                rendered = self.render_map(schema)
            else:
                rendered = _UNKNOWN
        finally:
            if nested:
                self.nested_resource_depth -= 1
        return rendered if self.consume(_nbytes(rendered)) else _UNKNOWN

    def render_map(self, m: dict[str, Any]) -> str:
        if self.exhausted:
            return _UNKNOWN
        if "$ref" in m:
            return self.render_ref(m)
        if "const" in m:
            return self.literal(m["const"])
        if isinstance(m.get("enum"), list):
            literals = []
            for value in m["enum"]:
                text = self.literal(value)
                if self.exhausted or not self.consume(_nbytes(text)):
                    return _UNKNOWN
                literals.append(text)
            if literals:
                return " | ".join(literals)
        for key in ("anyOf", "oneOf"):
            if isinstance(m.get(key), list):
                variants = []
                for variant in m[key]:
                    if self.exhausted:
                        return _UNKNOWN
                    variants.append(self.render(variant))
                if variants:
                    return " | ".join(variants)
        if isinstance(m.get("allOf"), list):
            parts = []
            for variant in m["allOf"]:
                if self.exhausted:
                    return _UNKNOWN
                rendered = self.render(variant)
                parts.append(f"({rendered})" if " | " in rendered else rendered)
            if parts:
                return " & ".join(parts)
        schema_type = m.get("type")
        if isinstance(schema_type, list):
            rendered_types = []
            for t in schema_type:
                if not isinstance(t, str):
                    continue
                if self.exhausted:
                    return _UNKNOWN
                rendered_types.append(self.render_type(m, t))
            if rendered_types:
                return " | ".join(rendered_types)
        if isinstance(schema_type, str):
            return self.render_type(m, schema_type)
        if any(k in m for k in ("properties", "additionalProperties", "required")):
            return self.render_object(m)
        if "items" in m or "prefixItems" in m:
            return self.render_array(m)
        return _UNKNOWN

    def render_ref(self, m: dict[str, Any]) -> str:
        referenced = _UNKNOWN if self.nested_resource_depth > 0 else self._expand_ref(m.get("$ref"))
        if self.exhausted:
            return _UNKNOWN
        siblings = {k: v for k, v in m.items() if k not in ("$ref", "$defs", "definitions")}
        if not any(k in siblings for k in _RENDERABLE_KEYS):
            return referenced
        sibling = self.render_map(siblings)
        if referenced == _UNKNOWN:
            return sibling
        if sibling == _UNKNOWN:
            return referenced
        return f"({referenced}) & ({sibling})"

    def _expand_ref(self, ref: Any) -> str:
        pointer = _local_pointer(ref)
        if pointer is None:
            return _UNKNOWN
        depth = self.active.get(pointer, 0)
        if depth >= MAX_REF_EXPANSIONS_PER_PATH or self.remaining_expansions == 0:
            return _UNKNOWN
        target = _pointer_get(self.root, pointer)
        if target is _NO_TARGET:  # a dangling ref costs no expansion
            return _UNKNOWN
        self.remaining_expansions -= 1
        self.active[pointer] = depth + 1
        try:
            return self.render(target)
        finally:
            if depth == 0:
                del self.active[pointer]
            else:
                self.active[pointer] = depth

    def render_type(self, m: dict[str, Any], schema_type: str) -> str:
        simple = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null"}
        if schema_type in simple:
            return simple[schema_type]
        if schema_type == "array":
            return self.render_array(m)
        if schema_type == "object":
            return self.render_object(m)
        return _UNKNOWN

    def render_array(self, m: dict[str, Any]) -> str:
        if "items" in m:
            item = self.render(m["items"])
            return _UNKNOWN if self.exhausted else f"Array<{item}>"
        prefix = m.get("prefixItems")
        if isinstance(prefix, list):
            items = []
            for entry in prefix:
                if self.exhausted:
                    return _UNKNOWN
                items.append(self.render(entry))
            if items:
                return "[" + ", ".join(items) + "]"
        return "unknown[]"

    def render_property(self, name: str, value: Any, required: list[str]) -> str:
        if _nbytes(name) > self.remaining_work:
            self.exhausted = True
            return _UNKNOWN
        optional = "" if name in required else "?"
        prop = name if normalize_identifier(name) == name else json.dumps(name, ensure_ascii=False)
        rendered = self.render(value)
        return _UNKNOWN if self.exhausted else f"{prop}{optional}: {rendered};"

    def additional_line(self, lines: list[str], m: dict[str, Any], properties: dict[str, Any], prefix: str) -> bool:
        if "additionalProperties" in m:
            extra = m["additionalProperties"]
            if extra is False:
                return True
            rendered = _UNKNOWN if extra is True else self.render(extra)
            return self.push_line(lines, f"{prefix}[key: string]: {rendered};")
        if not properties:
            return self.push_line(lines, f"{prefix}[key: string]: unknown;")
        return True

    def render_object(self, m: dict[str, Any]) -> str:
        required = [r for r in m["required"] if isinstance(r, str)] if isinstance(m.get("required"), list) else []
        found = m.get("properties")
        properties: dict[str, Any] = found if isinstance(found, dict) else {}
        ordered = sorted(properties.items())
        if any(_has_description(v) for _, v in ordered):
            return self.render_commented_object(m, properties, ordered, required)
        lines: list[str] = []
        for name, value in ordered:
            prop = self.render_property(name, value, required)
            if self.exhausted or not self.push_line(lines, prop):
                return _UNKNOWN
        if not self.additional_line(lines, m, properties, ""):
            return _UNKNOWN
        return "{ " + " ".join(lines) + " }" if lines else "{}"

    def render_commented_object(
        self, m: dict[str, Any], properties: dict[str, Any], ordered: list[tuple[str, Any]], required: list[str]
    ) -> str:
        lines: list[str] = []
        if not self.push_line(lines, "{"):
            return _UNKNOWN
        for name, value in ordered:
            description = value.get("description") if isinstance(value, dict) else None
            if isinstance(description, str):
                for line in _rust_lines(description):
                    if not line:
                        continue
                    if _nbytes(line) + 5 > self.remaining_work or not self.push_line(lines, f"  // {line}"):
                        return _UNKNOWN
            prop = self.render_property(name, value, required)
            if self.exhausted or not self.push_line(lines, f"  {prop}"):
                return _UNKNOWN
        if not self.additional_line(lines, m, properties, "  ") or not self.push_line(lines, "}"):
            return _UNKNOWN
        return "\n".join(lines)


def _has_description(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("description"), str) and bool(value["description"])
