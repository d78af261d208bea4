"""Recorded Codex sessions: read a rollout file, list the ones under ``CODEX_HOME`` (``codex_sessions``:
a row per session, read fast), and replay one through the widgets (``RolloutReplay``).
``read_rollout``, ``list_rollouts``, ``codex_sessions`` and ``RolloutReplay`` are also top-level ``cx`` names.
"""

from .sources.replay import ReplayError, RolloutReplay
from .sources.rollout import PlanSnapshot, Rollout, RolloutError, RolloutTurn, list_rollouts, read_rollout
from .sources.sessions import CodexSession, SessionList, codex_sessions

__all__ = [
    "CodexSession",
    "PlanSnapshot",
    "ReplayError",
    "Rollout",
    "RolloutError",
    "RolloutReplay",
    "RolloutTurn",
    "SessionList",
    "codex_sessions",
    "list_rollouts",
    "read_rollout",
]
