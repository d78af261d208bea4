"""Per-step tool planning: ONE registry snapshot -> model-visible specs + router.

``ToolPlanner.plan()`` plans from one snapshot; the specs the model sees and the router
that executes its calls come from that same snapshot, so a registry change mid-step is
invisible until the next ``plan()``. Plans are cached per (generation, mode): a step on an
unchanged registry takes no snapshot and does not walk the catalog.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .exposure import ToolExposure
from .names import DEFAULT_NAMESPACE, ToolName
from .registry import RegisteredTool, RegistrySnapshot, ToolRegistry
from .router import ToolRouter
from ..protocol.model import spec_tool_names
from .schema import group_specs

from ..config import Config

# Code Mode finalisation (the last step of Codex's per-step planning) is injected here by the
# Session: it receives the snapshot's ordered entries and returns the entries the step really
# uses (exposure overrides, exec/wait prepended) plus an optional per-tool spec transform.
Finalizer = Callable[[list[RegisteredTool], Config], "FinalizedTools"]


@dataclass(frozen=True)
class FinalizedTools:
    entries: list[RegisteredTool]
    spec_for: Callable[[RegisteredTool], dict[str, Any]] | None = None
    visible: Callable[[RegisteredTool], bool] | None = None


@dataclass(frozen=True, kw_only=True)
class ToolPlan:
    """What one sampling step sees: generation, model-visible specs, router."""

    generation: int
    specs: list[dict[str, Any]]
    router: ToolRouter
    exposures: dict[ToolName, ToolExposure] = field(default_factory=dict)

    def exposure(self, name: str | ToolName) -> ToolExposure | None:
        """The exposure ``name`` has in this step (after plan-time overrides), or None."""
        key = name if isinstance(name, ToolName) else ToolRegistry._key(name)
        return self.exposures.get(key)

    @property
    def tool_names(self) -> list[str]:
        """Model-visible names in order; namespaced tools as ``ns.name``."""
        return spec_tool_names(self.specs)


class ToolPlanner:
    def __init__(self, registry: ToolRegistry, config: Config, finalizers: list[Finalizer] | None = None) -> None:
        self.registry = registry
        self.config = config
        self.finalizers: list[Finalizer] = list(finalizers or ())
        """Injected by the composition root (the Session gives Code Mode's); none plans direct tools only."""
        self._cache: dict[tuple[int, str], ToolPlan] = {}

    def plan(self, mode: str = "default") -> ToolPlan:
        # A plan is cached per (generation, mode), so a step on an unchanged registry needs no
        # snapshot at all; a new generation is planned from one snapshot (keyed by its own
        # generation, in case the registry moved on in between).
        cached = self._cache.get((self.registry.generation, str(mode)))
        if cached is not None:
            return cached
        snapshot = self.registry.snapshot()
        key = (snapshot.generation, str(mode))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        plan = self._build(snapshot)
        self._cache = {k: v for k, v in self._cache.items() if k[0] == snapshot.generation}
        self._cache[key] = plan
        return plan

    def _build(self, snapshot: RegistrySnapshot) -> ToolPlan:
        finalized = FinalizedTools(list(snapshot.entries.values()))
        for finalize in self.finalizers:
            step = finalize(finalized.entries, self.config)  # a later finalizer keeps earlier spec/visibility rules
            finalized = FinalizedTools(
                step.entries, step.spec_for or finalized.spec_for, step.visible or finalized.visible
            )
        entries = finalized.entries
        visible = finalized.visible or (lambda e: e.exposure.is_direct)
        spec_for = finalized.spec_for or (lambda e: e.tool.spec())
        specs = build_visible_specs([e for e in entries if visible(e)], spec_for, self.config)
        routed = RegistrySnapshot(snapshot.generation, {e.tool.tool_name: e for e in entries})
        exposures = {e.tool.tool_name: e.exposure for e in entries}
        return ToolPlan(generation=snapshot.generation, specs=specs, router=ToolRouter(routed), exposures=exposures)


def build_visible_specs(
    entries: list[RegisteredTool], spec_for: Callable[[RegisteredTool], dict[str, Any]], config: Config
) -> list[dict[str, Any]]:
    """Codex's order (its prompt-caching tests pin it): registry order, namespaces merged at first
    occurrence, tools sorted inside."""
    if not config.namespace_tools:  # providers without namespace support drop every namespace spec
        entries = [e for e in entries if e.tool.tool_name.namespace == DEFAULT_NAMESPACE]
    return group_specs(entries, spec_for, sort_tools=True)
