"""Recorded binary observations: one JSON file per scenario, tool specs shared by hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .normalise import canonical

EXPECTED = Path(__file__).parent / "expected"
SPECS = EXPECTED / "_tool_specs.json"


def _hash(spec: Any) -> str:
    return hashlib.sha256(canonical(spec).encode()).hexdigest()[:16]


def save_all(observations: dict[str, dict[str, Any]]) -> None:
    EXPECTED.mkdir(exist_ok=True)
    for old in EXPECTED.glob("*.json"):
        old.unlink()
    _save(observations, {})


def save_some(observations: dict[str, dict[str, Any]]) -> None:
    """Re-record only these scenarios; every other recording and shared spec stays."""
    EXPECTED.mkdir(exist_ok=True)
    _save(observations, load_specs())


def _save(observations: dict[str, dict[str, Any]], specs: dict[str, Any]) -> None:
    for name, obs in observations.items():
        obs = dict(obs)
        refs = {}
        for mode, tools in obs["tools"].items():
            refs[mode] = {}
            for tool, spec in tools.items():
                key = _hash(spec)
                specs[key] = spec
                refs[mode][tool] = key
        obs["tools"] = refs
        (EXPECTED / f"{name}.json").write_text(canonical(obs) + "\n", encoding="utf-8")
    SPECS.write_text(canonical(specs) + "\n", encoding="utf-8")


def load(name: str, specs: dict[str, Any] | None = None) -> dict[str, Any] | None:
    path = EXPECTED / f"{name}.json"
    if not path.exists():
        return None
    if specs is None:
        specs = load_specs()
    obs = json.loads(path.read_text(encoding="utf-8"))
    obs["tools"] = {mode: {t: specs[k] for t, k in tools.items()} for mode, tools in obs["tools"].items()}
    return obs


def load_specs() -> dict[str, Any]:
    return json.loads(SPECS.read_text(encoding="utf-8")) if SPECS.exists() else {}
