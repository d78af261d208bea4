"""The text tool_search indexes for each deferred tool (Codex ``tool_search`` document text).

Parts are trimmed, empty parts skipped, and joined by one space. A function spec
contributes its name, the name with ``_`` as spaces, its description, then its schema
walked recursively (``description``, each property name followed by its sub-schema,
``items``, ``anyOf`` variants). A tool may supply its own parts (MCP tools do: flat
name, callable name, raw name, server, title, description, connector, namespace
description, plugin names, sorted input property names).
"""

from __future__ import annotations

from typing import Any


def join_parts(parts: list[str]) -> str:
    stripped = [p.strip() for p in parts]
    return " ".join([p for p in stripped if p])


def function_document(spec: dict[str, Any]) -> str:
    name = str(spec.get("name", ""))
    parts = [name, name.replace("_", " "), str(spec.get("description", ""))]
    parameters = spec.get("parameters")
    if isinstance(parameters, dict):
        _schema_parts(parameters, parts)
    return join_parts(parts)


def _schema_parts(schema: dict[str, Any], parts: list[str]) -> None:
    description = schema.get("description")
    if isinstance(description, str):
        parts.append(description)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            parts.append(str(name))
            if isinstance(sub, dict):
                _schema_parts(sub, parts)
    items = schema.get("items")
    if isinstance(items, dict):
        _schema_parts(items, parts)
    variants = schema.get("anyOf")
    if isinstance(variants, list):
        for sub in variants:
            if isinstance(sub, dict):
                _schema_parts(sub, parts)


def spec_document(spec: dict[str, Any]) -> str:
    """Document text of a function or namespace spec."""
    if spec.get("type") == "namespace":
        parts = [str(spec.get("name", "")), str(spec.get("description", ""))]
        parts += [function_document(t) for t in spec.get("tools", []) if isinstance(t, dict)]
        return join_parts(parts)
    return function_document(spec)


def tool_document(tool: Any) -> str:
    """A registered tool's document: its own ``search_document()`` if it has one, else its spec's."""
    own = getattr(tool, "search_document", None)
    if callable(own):
        return str(own())
    return spec_document(tool.spec())
