"""JSON Schema -> TypeScript type text, for the Code Mode tool declarations (spec 05 §5).

``render_json_schema_to_typescript`` mirrors Codex's renderer: literals for ``const`` /
``enum``, unions for ``anyOf`` / ``oneOf``, intersections for ``allOf``, ``Array<T>``,
objects on one line (``{ a: string; b?: number; }``) or, when any property has a
description, on several lines with ``// comment`` lines that are never re-indented.
Local ``$ref``s are expanded at most 2 times per path and 32 times in total; a result
longer than 16,000 bytes becomes ``unknown``.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_REF_EXPANSIONS_PER_PATH = 2
MAX_REF_EXPANSIONS_TOTAL = 32
MAX_RENDERED_BYTES = 16_000

_RENDERABLE_KEYS = ("const", "enum", "anyOf", "oneOf", "allOf", "type", "properties", "additionalProperties",
                    "required", "items", "prefixItems")
_INVALID_IDENT_FIRST = re.compile(r"[^A-Za-z_$]")
_INVALID_IDENT_REST = re.compile(r"[^A-Za-z0-9_$]")


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
    rendered = _Renderer(schema).render(schema)
    return "unknown" if len(rendered.encode()) > MAX_RENDERED_BYTES else rendered


def _pointer_get(root: Any, pointer: str) -> Any:
    """RFC 6901 lookup (``~1`` is ``/``, ``~0`` is ``~``); ``None`` when missing."""
    node = root
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


class _Renderer:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.active: dict[str, int] = {}
        self.total_expansions = 0

    def render(self, schema: Any) -> str:
        if schema is True:
            return "unknown"
        if schema is False:
            return "never"
        if isinstance(schema, dict):
            return self.render_map(schema)
        return "unknown"

    def render_map(self, m: dict[str, Any]) -> str:  # noqa: PLR0911 - one branch per keyword
        if "$ref" in m:
            return self.render_ref(m)
        if "const" in m:
            return render_literal(m["const"])
        if isinstance(m.get("enum"), list) and m["enum"]:
            return " | ".join(render_literal(v) for v in m["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(m.get(key), list) and m[key]:
                return " | ".join(self.render(v) for v in m[key])
        if isinstance(m.get("allOf"), list) and m["allOf"]:
            return " & ".join(self.render(v) for v in m["allOf"])
        schema_type = m.get("type")
        if isinstance(schema_type, list):
            rendered = [self.render_type(m, t) for t in schema_type if isinstance(t, str)]
            if rendered:
                return " | ".join(rendered)
        if isinstance(schema_type, str):
            return self.render_type(m, schema_type)
        if any(k in m for k in ("properties", "additionalProperties", "required")):
            return self.render_object(m)
        if "items" in m or "prefixItems" in m:
            return self.render_array(m)
        return "unknown"

    def render_ref(self, m: dict[str, Any]) -> str:
        referenced = self._expand_ref(m.get("$ref"))
        siblings = {k: v for k, v in m.items() if k not in ("$ref", "$defs", "definitions")}
        if not any(k in siblings for k in _RENDERABLE_KEYS):
            return referenced
        sibling = self.render_map(siblings)
        if referenced == "unknown":
            return sibling
        if sibling == "unknown":
            return referenced
        return f"({referenced}) & ({sibling})"

    def _expand_ref(self, ref: Any) -> str:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return "unknown"
        pointer = ref[1:]
        if pointer and not pointer.startswith("/"):
            return "unknown"
        depth = self.active.get(pointer, 0)
        if depth >= MAX_REF_EXPANSIONS_PER_PATH or self.total_expansions >= MAX_REF_EXPANSIONS_TOTAL:
            return "unknown"
        self.total_expansions += 1
        self.active[pointer] = depth + 1
        target = self.root if not pointer else _pointer_get(self.root, pointer)
        try:
            return "unknown" if target is None else self.render(target)
        finally:
            if depth == 0:
                del self.active[pointer]
            else:
                self.active[pointer] = depth

    def render_type(self, m: dict[str, Any], schema_type: str) -> str:
        simple = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean",
                  "null": "null"}
        if schema_type in simple:
            return simple[schema_type]
        if schema_type == "array":
            return self.render_array(m)
        if schema_type == "object":
            return self.render_object(m)
        return "unknown"

    def render_array(self, m: dict[str, Any]) -> str:
        if "items" in m:
            return f"Array<{self.render(m['items'])}>"
        prefix = m.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            return "[" + ", ".join(self.render(i) for i in prefix) + "]"
        return "unknown[]"

    def render_property(self, name: str, value: Any, required: list[str]) -> str:
        optional = "" if name in required else "?"
        prop = name if normalize_identifier(name) == name else json.dumps(name, ensure_ascii=False)
        return f"{prop}{optional}: {self.render(value)};"

    def additional_line(self, m: dict[str, Any], properties: dict[str, Any]) -> str | None:
        if "additionalProperties" in m:
            extra = m["additionalProperties"]
            if extra is False:
                return None
            return f"[key: string]: {'unknown' if extra is True else self.render(extra)};"
        return None if properties else "[key: string]: unknown;"

    def render_object(self, m: dict[str, Any]) -> str:
        required = [r for r in m.get("required", []) if isinstance(r, str)] if isinstance(
            m.get("required"), list) else []
        found = m.get("properties")
        properties: dict[str, Any] = found if isinstance(found, dict) else {}
        ordered = sorted(properties.items())
        if any(_has_description(v) for _, v in ordered):
            lines = ["{"]
            for name, value in ordered:
                description = value.get("description") if isinstance(value, dict) else None
                if isinstance(description, str):
                    lines += [f"  // {line.strip()}" for line in description.splitlines() if line.strip()]
                lines.append("  " + self.render_property(name, value, required))
            extra = self.additional_line(m, properties)
            if extra is not None:
                lines.append("  " + extra)
            lines.append("}")
            return "\n".join(lines)
        parts = [self.render_property(name, value, required) for name, value in ordered]
        extra = self.additional_line(m, properties)
        if extra is not None:
            parts.append(extra)
        return "{ " + " ".join(parts) + " }" if parts else "{}"


def _has_description(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("description"), str) and bool(value["description"])
