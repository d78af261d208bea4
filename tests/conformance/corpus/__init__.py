"""The conformance corpus: every scenario, from the modules below, names unique."""

from __future__ import annotations

from ..scenario import Scenario
from . import code_mode, config_layers, frontend, hooks, hostile, interrupt, schemas, seed_tools, tools, update_plan

SCENARIOS: list[Scenario] = [
    *update_plan.SCENARIOS,
    *tools.SCENARIOS,
    *frontend.SCENARIOS,
    *hooks.SCENARIOS,
    *code_mode.SCENARIOS,
    *interrupt.SCENARIOS,
    *hostile.SCENARIOS,
    *schemas.SCENARIOS,
    *config_layers.SCENARIOS,
    *seed_tools.SCENARIOS,
]

_names = [s.name for s in SCENARIOS]
assert len(_names) == len(set(_names)), "scenario names must be unique"
