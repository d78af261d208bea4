"""Bounds an MCP server's ``inputSchema`` before it is ingested for the model.

The ingest (``tools.input_schema.parse_mcp_input_schema``) keeps ``$ref``s as Codex 0.169
does (a recursive ``$ref`` is accepted: Code Mode's declaration renderer stops after its
expansion limit), refuses nesting deeper than serde_json's 128 levels and the keywords
Codex refuses. What it does not bound is the schema's size, which a hostile server
controls: ``check_input_schema`` counts the characters, without recursion, and returns
why the schema cannot be used, or None; the tool is then skipped with that reason.
"""

from __future__ import annotations

from typing import Any

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
