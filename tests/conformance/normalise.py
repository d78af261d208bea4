"""Normalisation shared by both sides: what differs by run (ids, paths, times) goes away."""

from __future__ import annotations

import json
import re
from typing import Any

from .scenario import PROMPT

# Times and durations change every run; their digits become 9 so the format still counts.
_VOLATILE = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}| UTC)?"
    r"|(?<=Wall time )\d+(?:\.\d+)?(?= seconds)"
    r"|(?<=Wall time: )\d+(?:\.\d+)?(?= seconds)"
    r"|(?<=after )\d+\.\d+(?=s)"
)


def scrub(text: str, paths: dict[str, str]) -> str:
    for path, name in sorted(paths.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(path, name)
    text = _VOLATILE.sub(lambda m: re.sub(r"\d", "9", m.group()), text)
    return _sorted_answers(text)


def _sorted_answers(text: str) -> str:
    """request_user_input answers are a HashMap in Codex: their key order is random per run."""
    if not text.startswith('{"answers":{'):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and isinstance(value.get("answers"), dict):
        value["answers"] = dict(sorted(value["answers"].items()))
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text


def clean(value: Any, paths: dict[str, str]) -> Any:
    """Scrub paths/times from strings, recursively."""
    if isinstance(value, dict):
        return {k: clean(v, paths) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v, paths) for v in value]
    if isinstance(value, str):
        return scrub(value, paths)
    return value


def after_prompt(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items after the (last) user message holding the scenario prompt."""
    index = -1
    for i, item in enumerate(items):
        if item.get("type") == "message" and item.get("role") == "user":
            text = "".join(p.get("text", "") for p in item.get("content", []) if isinstance(p, dict))
            if text == PROMPT or text.startswith(PROMPT):
                index = i
    # Item ids are per run (and codex_nb does not invent them): drop them.
    return [{k: v for k, v in item.items() if k != "id"} for item in items[index + 1 :]]


def tool_specs(tools: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tool in tools:
        name = tool.get("name") or tool.get("type")
        if tool.get("type") == "namespace":
            out[f"{tool.get('name')} (namespace)"] = {k: v for k, v in tool.items() if k != "tools"}
            for inner in tool.get("tools", []):
                out[f"{tool.get('name')}.{inner.get('name')}"] = inner
            continue
        out[str(name)] = tool
    return out


def plan_payload(explanation: Any, plan: list[dict[str, Any]]) -> dict[str, Any]:
    status = {"inProgress": "in_progress", "pending": "pending", "completed": "completed"}
    return {
        "explanation": explanation,
        "plan": [{"step": s["step"], "status": status.get(s["status"], s["status"])} for s in plan],
    }


def canonical(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)
