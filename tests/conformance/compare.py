"""Field-by-field comparison of two observations, with readable diffs."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from codex_nb.testing import pinned_codex_version

from .normalise import canonical
from .scenario import Scenario

OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output", "tool_search_output", "mcp_tool_call_output")


@dataclass(frozen=True)
class Check:
    scenario: str
    field: str
    ok: bool
    diff: str = ""
    skipped: str = ""


def outputs(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for i in items if i.get("type") in OUTPUT_TYPES]


def fields(obs: dict[str, Any], other: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Field name -> (this side, reference side)."""
    out: dict[str, tuple[Any, Any]] = {
        "turn_status": (obs["turn_status"], other["turn_status"]),
        "model_requests": (obs["requests"] - obs.get("overuse", 0), other["requests"] - other.get("overuse", 0)),
        "history": (obs["history"], other["history"]),
        "plans": (obs["plans"], other["plans"]),
        "hooks": (obs["hooks"], other["hooks"]),
        "server_requests": (obs["server_requests"], other["server_requests"]),
    }
    if "config_layers" in other:  # layered scenarios: the files read, their trust, where each key came from
        out["config_layers"] = (obs.get("config_layers"), other["config_layers"])
    if "routes" in other and (obs.get("routes") or other.get("routes")):  # the provider's other endpoints
        out["routes"] = (obs.get("routes", []), other["routes"])
    if obs.get("hook_list") or other.get("hook_list"):  # hooks/list: keys, matchers, trust status
        out["hook_list"] = (obs.get("hook_list", []), other.get("hook_list", []))
    n = max(len(obs["inputs"]), len(other["inputs"]))
    for i in range(1, n):
        mine = outputs(obs["inputs"][i]) if i < len(obs["inputs"]) else None
        theirs = outputs(other["inputs"][i]) if i < len(other["inputs"]) else None
        out[f"outputs[request {i + 1}]"] = (mine, theirs)
    for mode, specs in other["tools"].items():
        mine_specs = obs["tools"].get(mode, {})
        for name in sorted(set(specs) & set(mine_specs)):
            out[f"tool_spec[{mode}:{name}]"] = (mine_specs[name], specs[name])
        if "exec" in specs and "exec" in mine_specs:
            theirs_sections = exec_sections(specs["exec"].get("description", ""))
            mine_sections = exec_sections(mine_specs["exec"].get("description", ""))
            for name in sorted(set(theirs_sections) & set(mine_sections)):
                out[f"exec_nested_tool[{mode}:{name}]"] = (mine_sections[name], theirs_sections[name])
    return out


def exec_sections(description: str) -> dict[str, str]:
    """Code Mode only: the ``### `tool``` sections of the exec description, by tool name.

    The binary nests tools codex_nb does not have (shell, agents, goals), so the whole
    description cannot match; each tool both nest must."""
    out = {}
    for chunk in description.split("\n### `")[1:]:
        name, _, _ = chunk.partition("`")
        out[name] = ("### `" + chunk.split("\n\n## ")[0]).rstrip()
    return out


def _lines(value: Any) -> Any:
    """Multi-line strings become lists of lines, so a diff points at the line that differs."""
    if isinstance(value, dict):
        return {k: _lines(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lines(v) for v in value]
    if isinstance(value, str) and "\n" in value:
        return {"<lines>": value.split("\n")}
    return value


def diff(mine: Any, theirs: Any) -> str:
    a = canonical(_lines(theirs)).splitlines()
    b = canonical(_lines(mine)).splitlines()
    return "\n".join(
        difflib.unified_diff(a, b, f"codex {pinned_codex_version()} (expected)", "codex_nb", lineterm="", n=2)
    )


def scenario_tools(scenario: Scenario, obs: dict[str, Any], reference: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Which of the scenario's own tools (dynamic, MCP) each side shows: a tool one side leaves
    out has no spec to compare, so its absence is a field of its own."""
    if not scenario.dynamic_tools and scenario.mcp_tools is None:
        return {}
    own = {t["name"] for t in scenario.dynamic_tools}

    def names(specs: dict[str, Any]) -> list[str]:
        return sorted(n for n in specs if n in own or n.startswith("mcp__"))

    return {
        f"scenario_tools[{mode}]": (names(obs["tools"].get(mode, {})), names(specs))
        for mode, specs in reference["tools"].items()
    }


SEED_TOOLS = ("web.run", "image_gen.imagegen", "web_search")


def seed_tools(scenario: Scenario, obs: dict[str, Any], reference: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Which of the gated seed tools each side declares, for scenarios that open or close their gates
    (an absent tool has no spec to compare, so its absence must be a field of its own)."""
    if not (scenario.provider or scenario.routes or "seed" in scenario.tags):
        return {}
    return {
        f"seed_tools[{mode}]": (
            [n for n in SEED_TOOLS if n in obs["tools"].get(mode, {})],
            [n for n in SEED_TOOLS if n in specs],
        )
        for mode, specs in reference["tools"].items()
    }


def compare(scenario: Scenario, obs: dict[str, Any], reference: dict[str, Any]) -> list[Check]:
    checks = []
    extra = {**scenario_tools(scenario, obs, reference), **seed_tools(scenario, obs, reference)}
    for name, (mine, theirs) in {**fields(obs, reference), **extra}.items():
        base = name.split("[")[0]
        if base in scenario.skip or name in scenario.skip:
            checks.append(Check(scenario.name, name, True, skipped=scenario.why or "deliberate"))
            continue
        ok = mine == theirs
        checks.append(Check(scenario.name, name, ok, "" if ok else diff(mine, theirs)))
    return checks
