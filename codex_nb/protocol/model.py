"""What a model is to the turn loop: ``ModelRequest`` in, the output items of one response out.

Every model provider implements ``Model`` (``codex_nb.sources`` holds the real ones;
``runtime.models.ScriptedModel`` is the strict fake). A request carries the repaired
history, the step's tool specs and the tool generation they come from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

Item = dict[str, Any]


def spec_tool_names(specs: list[dict[str, Any]]) -> list[str]:
    """Model-visible tool names in order; tools inside a namespace spec as ``ns.name``."""
    names: list[str] = []
    for spec in specs:
        if spec.get("type") == "namespace":
            names.extend(f"{spec['name']}.{t['name']}" for t in spec["tools"])
        else:
            names.append(spec.get("name", spec.get("type", "")))
    return names


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One sampling request, as the model would see it."""

    turn_id: str
    items: list[Item]
    tools: list[dict[str, Any]]
    tool_generation: int
    mode: str = "default"
    parallel_tool_calls: bool = True

    def outputs(self) -> dict[str, Any]:
        """``call_id -> output`` for every output item in the request (handy in tests)."""
        return {i["call_id"]: i.get("output") for i in self.items if i.get("type", "").endswith("_output")}

    @property
    def tool_names(self) -> list[str]:
        return spec_tool_names(self.tools)


class Model(Protocol):
    """Anything the turn loop can sample: one call per step, the response's output items back."""

    async def sample(self, request: ModelRequest) -> list[Item]: ...
