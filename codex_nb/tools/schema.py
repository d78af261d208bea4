"""JSON schemas and tool specs in Codex's byte order, so the specs we send are byte for byte
the ones Codex sends.

Codex's ``JsonSchema`` serialises keys as ``type, description, enum, items,
properties, required, additionalProperties`` with ``properties`` sorted (BTreeMap).
``normalize_schema`` rewrites any JSON schema (e.g. pydantic's) into that order,
inlining local ``$ref``s and folding ``Optional[X]`` into ``X``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .names import DEFAULT_NAMESPACE

_KEY_ORDER = ("type", "description", "enum", "items", "properties", "required", "additionalProperties")
_KEPT_EXTRA = ("anyOf",)


def normalize_schema(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return ``schema`` in Codex key order with refs inlined and titles/defaults dropped."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        target = schema["$ref"].rsplit("/", 1)[-1]
        merged = {**defs.get(target, {}), **{k: v for k, v in schema.items() if k != "$ref"}}
        return normalize_schema(merged, defs)
    any_of = schema.get("anyOf")
    if isinstance(any_of, list):
        non_null = [s for s in any_of if s.get("type") != "null"]
        if len(non_null) == 1:  # Optional[X]: Codex schemas express optionality via `required`
            inner = {**non_null[0], **{k: v for k, v in schema.items() if k not in ("anyOf", "default", "title")}}
            return normalize_schema(inner, defs)
    out: dict[str, Any] = {}
    for key in _KEY_ORDER:
        if key not in schema:
            continue
        value = schema[key]
        if key == "items" and isinstance(value, dict):
            value = normalize_schema(value, defs)
        elif key == "properties":
            value = {name: normalize_schema(value[name], defs) for name in sorted(value)}
        elif key == "additionalProperties" and isinstance(value, dict):
            value = normalize_schema(value, defs)
        out[key] = value
    for key in _KEPT_EXTRA:
        if key in schema and key not in out:
            out[key] = [normalize_schema(s, defs) for s in schema[key]]
    if out.get("type") == "object" and "properties" not in out and "additionalProperties" not in out:
        out["properties"] = {}
    return out


def function_spec(
    name: str,
    description: str,
    parameters: dict[str, Any],
    *,
    strict: bool = False,
    defer_loading: bool | None = None,
) -> dict[str, Any]:
    """A Responses ``function`` tool: ``type, name, description, strict, [defer_loading], parameters``."""
    spec: dict[str, Any] = {"type": "function", "name": name, "description": description, "strict": strict}
    if defer_loading is not None:
        spec["defer_loading"] = defer_loading
    spec["parameters"] = parameters
    return spec


def namespace_spec(name: str, description: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """A Responses ``namespace`` spec holding function tools (sorted by name by the planner)."""
    return {"type": "namespace", "name": name, "description": description, "tools": tools}


def group_specs(
    entries: Iterable[Any], spec_for: Callable[[Any], dict[str, Any]], *, sort_tools: bool
) -> list[dict[str, Any]]:
    """Specs of registered ``entries`` in order, each namespace's tools merged into one ``namespace``
    spec at its first occurrence (sorted by name when ``sort_tools``); a namespace without a
    description gets ``Tools in the {ns} namespace.``"""
    specs: list[dict[str, Any]] = []
    groups: dict[str, dict[str, Any]] = {}
    for entry in entries:
        name = entry.tool.tool_name
        spec = spec_for(entry)
        if name.namespace == DEFAULT_NAMESPACE:
            specs.append(spec)
            continue
        holder = groups.get(name.namespace)
        if holder is None:
            holder = groups[name.namespace] = namespace_spec(name.namespace, "", [])
            specs.append(holder)
        if not holder["description"] and entry.tool.namespace_description:
            holder["description"] = entry.tool.namespace_description
        holder["tools"].append(spec)
    for ns, holder in groups.items():
        if sort_tools:
            holder["tools"].sort(key=lambda spec: spec.get("name", ""))
        if not holder["description"]:
            holder["description"] = f"Tools in the {ns} namespace."
    return specs
