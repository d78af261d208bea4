"""Codex's thread goals on the wire: read a ``ThreadGoal`` a peer sent, and build the requests.

``thread/goal/set`` starts (or replaces) a goal and, with ``status``, pauses or resumes it;
``thread/goal/clear`` removes it; ``thread/goal/updated`` and ``thread/goal/cleared`` report each
change (continuation turns' usage, the model's ``update_goal``). A goal from the server is
checked field by field: a malformed one raises ``GoalNotificationError`` naming the field, and the
thread keeps the goal it had (with a warning), never a half-read one.
"""

from __future__ import annotations

from typing import Any

from ..errors import TurnError
from ..protocol.goal import GOAL_STATUSES, MAX_GOAL_FIGURE, MAX_OBJECTIVE_CHARS, ThreadGoal
from .binary import parse_version

ORIGIN_SINCE = (0, 161, 0)
"""The first release of the range whose ``thread/goal/set`` / ``clear`` take ``origin`` (the
merged schema's ``x-codex-since``, from every release's own schema); older ones are sent none."""

_FIGURES = {
    "tokensUsed": "tokens_used",
    "timeUsedSeconds": "time_used_seconds",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
}


class GoalNotificationError(ValueError):
    """A goal from the app-server that is not a ``ThreadGoal`` (a field missing or of the wrong kind)."""


def _figure(name: str, value: Any) -> int:
    if type(value) is not int or value < 0:
        raise GoalNotificationError(f"goal `{name}` is not a non-negative integer: {str(value)[:100]}")
    return min(value, MAX_GOAL_FIGURE)


def bounded_objective(text: str) -> str:
    """``text`` up to ``MAX_OBJECTIVE_CHARS``, ending with a note when it was longer."""
    if len(text) <= MAX_OBJECTIVE_CHARS:
        return text
    return f"{text[:MAX_OBJECTIVE_CHARS]} ... ({len(text) - MAX_OBJECTIVE_CHARS} more characters not shown)"


def read_goal(value: Any) -> ThreadGoal:
    """The ``ThreadGoal`` of a goal object the server sent (``thread/goal/updated``, a response)."""
    if not isinstance(value, dict):
        raise GoalNotificationError(f"goal is not an object: {str(value)[:200]}")
    objective, status, budget = value.get("objective"), value.get("status"), value.get("tokenBudget")
    if type(objective) is not str:
        raise GoalNotificationError(f"goal `objective` is not a string: {str(objective)[:100]}")
    if status not in GOAL_STATUSES:
        raise GoalNotificationError(f"goal `status` is not one of {', '.join(GOAL_STATUSES)}: {str(status)[:100]}")
    figures = {ours: _figure(key, value.get(key)) for key, ours in _FIGURES.items()}
    return ThreadGoal(
        objective=bounded_objective(objective),
        status=status,
        token_budget=None if budget is None else _figure("tokenBudget", budget),
        **figures,
    )


def goal_params(thread_id: str, version: str | None, **params: Any) -> dict[str, Any]:
    """The body of a person's ``thread/goal/set`` / ``clear`` to a Codex of ``version``: marked
    ``origin: "user"`` (an explicit action of the person, not the goal's own lifecycle) where the
    release takes it; an unknown version is sent it, as the pin takes it."""
    body: dict[str, Any] = {"threadId": thread_id, **params}
    parsed = parse_version(version or "")
    if parsed is None or parsed >= ORIGIN_SINCE:
        body["origin"] = "user"
    return body


def check_objective(objective: Any) -> str:
    """The objective as sent: a non-empty string, else a ``TurnError`` saying what to pass."""
    if not isinstance(objective, str) or not objective.strip():
        raise TurnError(f"set_goal() takes the goal's objective as a non-empty str, got {objective!r:.100}")
    return objective


def check_budget(budget: Any) -> int | None:
    """A token budget: None (no budget) or a positive int, else a ``TurnError``."""
    if budget is None:
        return None
    if type(budget) is not int or budget <= 0 or budget > MAX_GOAL_FIGURE:
        raise TurnError(
            f"budget is a goal's token budget: a positive int up to {MAX_GOAL_FIGURE:,} or None, got {budget!r:.100}"
        )
    return budget


__all__ = [
    "ORIGIN_SINCE",
    "GoalNotificationError",
    "bounded_objective",
    "check_budget",
    "check_objective",
    "goal_params",
    "read_goal",
]
