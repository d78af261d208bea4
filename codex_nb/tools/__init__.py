"""Tools as Codex runs them: names, exposure, specs, the registry and per-step planner, the
router and the ordered dispatch pipeline, lifecycle outcomes, and the built-in handlers."""
