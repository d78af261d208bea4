"""Codex's saved sessions (rollout files): read one, list the ones under ``CODEX_HOME`` (``codex_sessions``:
a row per session, read fast), and replay one through the widgets. ``read_rollout``, ``list_rollouts``,
``codex_sessions`` and ``RolloutReplay`` are also top-level ``cx`` names.

Modules:

* ``rollout``: a rollout file read into turns and plan snapshots, and the listing of a home's.
* ``rollout_lines``: bounded reading of a rollout file's lines.
* ``rollout_replay``: ``RolloutReplay``, a saved session's plan history as an event source, and
  its turns as a transcript shows them (``SavedTurn``).
* ``sessions``: a Codex home's saved sessions listed fast (``codex_sessions``).

Layer: an adapter, with ``app_server/``, ``acp/``, ``responses/``, ``mcp/`` and ``cassettes/``
(above ``tools/``, which it may import with everything below); ``runtime/`` and the layers above
may import it.
"""

from .rollout import PlanSnapshot, Rollout, RolloutError, RolloutTurn, list_rollouts, read_rollout
from .rollout_replay import ReplayError, RolloutReplay, SavedTurn
from .sessions import CodexSession, SessionList, codex_sessions

__all__ = [
    "CodexSession",
    "PlanSnapshot",
    "ReplayError",
    "Rollout",
    "RolloutError",
    "RolloutReplay",
    "RolloutTurn",
    "SavedTurn",
    "SessionList",
    "codex_sessions",
    "list_rollouts",
    "read_rollout",
]
