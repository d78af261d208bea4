"""Checks an MCP server's ``inputSchema`` before it is converted for the model.

The conversion (``tools.schema.normalize_schema``) inlines ``$ref``s and recurses
into ``items``, ``properties``, ``additionalProperties`` and ``anyOf``. A hostile or
buggy server can send a schema that would never finish (a ``$ref`` cycle), grow
exponentially (``$defs`` that each use the next one twice), nest thousands deep, or
put a number where a schema belongs. ``check_input_schema`` walks the same paths the
conversion takes, with a depth limit and a node budget, and returns why the schema
cannot be used, or None; the tool is then skipped with that reason.
"""

from __future__ import annotations

from typing import Any

MAX_SCHEMA_DEPTH = 64
"""Nesting levels (``$ref`` expansions count) in one tool's input schema."""
MAX_SCHEMA_NODES = 20_000
"""Schema objects in one tool's input schema once every ``$ref`` is inlined."""
MAX_SCHEMA_CHARS = 1_000_000
"""Characters of strings (keys and values) in one tool's input schema as sent."""


class BadSchema(Exception):
    """Why an input schema cannot be shown to the model."""


def check_input_schema(schema: Any) -> str | None:
    """None if ``schema`` can be converted within the limits, else the reason it cannot."""
    if not isinstance(schema, dict):
        return f"inputSchema must be a JSON object, got {type(schema).__name__}"
    try:
        _check_chars(schema)
        defs = schema.get("$defs", {})
        if not isinstance(defs, dict):
            raise BadSchema(f"$defs must be an object, got {type(defs).__name__}")
        _Walker(defs).walk(schema, "#", 0, ())
    except BadSchema as err:
        return str(err)
    return None


def _check_chars(schema: dict[str, Any]) -> None:
    """Total string length, counted without recursion (the schema may nest arbitrarily deep)."""
    total = 0
    stack: list[Any] = [schema]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                total += len(key)
                stack.append(item)
        elif isinstance(value, list):
            stack.extend(value)
        if total > MAX_SCHEMA_CHARS:
            raise BadSchema(f"inputSchema is larger than {MAX_SCHEMA_CHARS:,} characters")


class _Walker:
    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.nodes = 0

    def walk(self, schema: Any, where: str, depth: int, refs: tuple[str, ...]) -> None:
        if not isinstance(schema, dict):
            raise BadSchema(f"{where} must be a schema object, got {type(schema).__name__} {_short(schema)}")
        self.nodes += 1
        if self.nodes > MAX_SCHEMA_NODES:
            raise BadSchema(f"inputSchema has more than {MAX_SCHEMA_NODES:,} schema objects once $refs are inlined")
        if depth > MAX_SCHEMA_DEPTH:
            raise BadSchema(f"inputSchema nests deeper than {MAX_SCHEMA_DEPTH} levels (at ...{where[-60:]})")
        if "$ref" in schema:
            self._walk_ref(schema, where, depth, refs)
            return
        any_of = schema.get("anyOf")
        if any_of is not None:
            if not isinstance(any_of, list):
                raise BadSchema(f"{where}/anyOf must be a list of schemas, got {type(any_of).__name__}")
            for i, option in enumerate(any_of):
                self.walk(option, f"{where}/anyOf/{i}", depth + 1, refs)
        items = schema.get("items")
        if isinstance(items, dict):
            self.walk(items, f"{where}/items", depth + 1, refs)
        properties = schema.get("properties")
        if properties is not None:
            if not isinstance(properties, dict):
                raise BadSchema(f"{where}/properties must be an object, got {type(properties).__name__}")
            for name, value in properties.items():
                self.walk(value, f"{where}/properties/{name}", depth + 1, refs)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            self.walk(extra, f"{where}/additionalProperties", depth + 1, refs)

    def _walk_ref(self, schema: dict[str, Any], where: str, depth: int, refs: tuple[str, ...]) -> None:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise BadSchema(f"{where}/$ref must be a string, got {type(ref).__name__} {_short(ref)}")
        target = ref.rsplit("/", 1)[-1]
        if not ref.startswith("#/") or target not in self.defs:
            raise BadSchema(f"{where}/$ref {_short(ref)} does not name an entry of the schema's $defs")
        if target in refs:
            cycle = " -> ".join((*refs[refs.index(target):], target))
            raise BadSchema(f"{where}/$ref is recursive ({cycle}); a recursive schema cannot be inlined")
        merged = {**self.defs[target], **{k: v for k, v in schema.items() if k != "$ref"}} \
            if isinstance(self.defs[target], dict) else self.defs[target]
        self.walk(merged, f"#/$defs/{target}", depth + 1, (*refs, target))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
