"""One schema for every Codex release of the supported range (the generator's merge step).

Each release prints its own app-server schema; they differ in small ways (0.171 added
``Turn.rootTurnId``, ``ThreadItem.startedAtMs``, enum values, ...). codex_nb validates against ONE
schema, so here the pin's definitions absorb the older releases': a property or variant missing
from some release stays but is no longer required, and carries ``"x-codex-since": "X.Y.Z"`` (the
first release of the range that has it; an enum's new values are listed in ``x-codex-values-since``); one an older release had and the pin dropped comes back
with ``"x-codex-until"`` (the last release that had it). ``summary`` records the releases and the
release that added each method, which ``versions.features_of`` reads.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

SINCE = "x-codex-since"
UNTIL = "x-codex-until"
ENUM_SINCE = "x-codex-values-since"
_UNIONS = ("oneOf", "anyOf")


def version_key(version: str) -> tuple[int, ...]:
    """``"0.169.1"`` -> ``(0, 169, 1)`` (release order)."""
    return tuple(int(part) for part in version.split("."))


def _variant_key(variant: Any) -> str:
    """What names a union variant across releases: its tag (``type``/``method``), title or ref."""
    if isinstance(variant, dict):
        props = variant.get("properties") or {}
        for tag in ("type", "method", "kind"):
            enum = (props.get(tag) or {}).get("enum")
            if isinstance(enum, list) and len(enum) == 1:
                return f"{tag}={enum[0]}"
        enum = variant.get("enum")
        if isinstance(enum, list) and len(enum) == 1:
            return f"enum={enum[0]}"
        if isinstance(enum, list) and "title" not in variant:  # the unit variants, one enum: merged by value
            return f"enums:{variant.get('type')}"
        required = variant.get("required")
        if isinstance(required, list) and len(required) == 1 and len(props) == 1:  # {"name": {...}}: serde's tag
            return f"key={required[0]}"
        for name in ("title", "$ref"):
            if isinstance(variant.get(name), str):
                return f"{name}={variant[name]}"
        variant = {k: v for k, v in variant.items() if k not in ("description", "title")}
    return json.dumps(variant, sort_keys=True)


def _fold_named(mine: dict[str, Any], older: dict[str, Any], newer_release: str, release: str) -> None:
    """Fold each named schema (properties, definitions) into its namesake in ``older``; one that
    ``release`` lacks came in ``newer_release``."""
    for name, schema in mine.items():
        if name in older:
            _merge(schema, older[name], newer_release, release)
        elif isinstance(schema, dict):
            schema.setdefault(SINCE, newer_release)


def _merge(node: Any, older: Any, newer_release: str, release: str) -> None:
    """Fold ``older`` (the same schema node in ``release``) into ``node`` in place. Something of
    ``node`` that ``release`` lacks was added in ``newer_release`` at the earliest (releases are
    folded newest first, so the first miss fixes it)."""
    if not isinstance(node, dict) or not isinstance(older, dict):
        return
    props, old_props = node.get("properties"), older.get("properties")
    if isinstance(props, dict) and isinstance(old_props, dict):
        _fold_named(props, old_props, newer_release, release)
        for name, schema in old_props.items():
            if name not in props:
                props[name] = {**copy.deepcopy(schema), UNTIL: release}
        if "required" in node:
            kept = [name for name in node["required"] if name in (older.get("required") or [])]
            if kept:
                node["required"] = kept
            else:
                del node["required"]
    for union in _UNIONS:
        variants, old_variants = node.get(union), older.get(union)
        if not (isinstance(variants, list) and isinstance(old_variants, list)):
            continue
        by_key = {_variant_key(v): v for v in old_variants}
        mine = {_variant_key(v) for v in variants}
        for variant in variants:
            match = by_key.get(_variant_key(variant))
            if match is not None:
                _merge(variant, match, newer_release, release)
            elif isinstance(variant, dict) and "$ref" not in variant:
                variant.setdefault(SINCE, newer_release)
        variants += [
            {**copy.deepcopy(v), UNTIL: release} for k, v in by_key.items() if k not in mine and isinstance(v, dict)
        ]
    enum, old_enum = node.get("enum"), older.get("enum")
    if isinstance(enum, list) and isinstance(old_enum, list):
        added = node.setdefault(ENUM_SINCE, {})
        for value in enum:
            if value not in old_enum and isinstance(value, str):
                added.setdefault(value, newer_release)
        if not added:
            del node[ENUM_SINCE]
        enum += [value for value in old_enum if value not in enum]
    for key in ("items", "additionalProperties"):
        _merge(node.get(key), older.get(key), newer_release, release)


def merge(
    pin: str,
    definitions: dict[str, Any],
    others: Mapping[str, dict[str, Any]],
    reach: Callable[[dict[str, Any], list[str]], dict[str, Any]],
) -> dict[str, Any]:
    """The pin's ``definitions`` covering every release in ``others`` (version -> flat definitions)."""
    merged = copy.deepcopy(definitions)
    pool: dict[str, Any] = {}
    newer = pin
    for release in sorted(others, key=version_key, reverse=True):
        flat = others[release]
        _fold_named(merged, flat, newer, release)
        for name, schema in flat.items():
            pool.setdefault(name, schema)
        newer = release
    # definitions only older releases reference (through a variant brought back above)
    return reach({**pool, **merged}, sorted(merged))


def summary(pin: str, methods: Mapping[str, Mapping[str, Mapping[str, str]]]) -> dict[str, Any]:
    """The range's releases, and for each method of any release the first and last release with it."""
    releases = sorted(methods, key=version_key)
    first: dict[str, str] = {}
    last: dict[str, str] = {}
    for release in releases:
        for table in methods[release].values():
            for method in table:
                first.setdefault(method, release)
                last[method] = release
    newest = releases[-1]
    return {
        "oldest": releases[0],
        "newest": pin,
        "releases": releases,
        "methods_since": {m: v for m, v in sorted(first.items()) if v != releases[0]},
        "methods_until": {m: v for m, v in sorted(last.items()) if v != newest},
    }
