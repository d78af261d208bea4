"""Recorded Codex sessions: read a rollout file, list the ones under ``CODEX_HOME``, and replay one
through the widgets (``RolloutReplay``). ``read_rollout``, ``list_rollouts`` and ``RolloutReplay`` are
also top-level ``cx`` names.
"""

from .sources.replay import ReplayError, RolloutReplay
from .sources.rollout import PlanSnapshot, Rollout, RolloutError, RolloutTurn, list_rollouts, read_rollout

__all__ = [
    "PlanSnapshot",
    "ReplayError",
    "Rollout",
    "RolloutError",
    "RolloutReplay",
    "RolloutTurn",
    "list_rollouts",
    "read_rollout",
]
