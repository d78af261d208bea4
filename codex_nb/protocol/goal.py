"""``goal_updated``: a thread goal's state (objective, status, tokens and time against its budget).

Codex 0.160+ keeps one goal per thread (``thread/goal/set``): while it is ``active`` Codex starts
continuation turns on its own, until the model marks it ``complete`` (its ``update_goal`` tool),
the person pauses it, it is ``blocked``, or its token budget or the account's usage runs out. The
goal card, the turn controls and the saved fallbacks read the same state, so its reading and its
one-line wording live here, below all of them. The goal comes from a peer: the objective is kept
up to ``MAX_OBJECTIVE_CHARS`` and every figure is a bounded non-negative integer.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from .events import EventMsg

GOAL_STATUSES = ("active", "paused", "blocked", "usageLimited", "budgetLimited", "complete")
"""Codex's ``ThreadGoalStatus`` values."""

GOAL_ENDED = frozenset({"paused", "blocked", "usageLimited", "budgetLimited", "complete"})
"""The statuses in which Codex starts no further continuation turn (a goal run ends)."""

STATUS_TEXT = {
    "active": "active",
    "paused": "paused",
    "blocked": "blocked",
    "usageLimited": "stopped: usage limit reached",
    "budgetLimited": "stopped: token budget used up",
    "complete": "complete",
}
"""How each status reads in the card and its saved fallback."""

MAX_OBJECTIVE_CHARS = 4_000
"""Characters of an objective kept (its head); a longer one ends with a note saying so."""

MAX_GOAL_FIGURE = 10**15
"""The largest token count or second count kept (a peer's larger figure is cut to it)."""


class ThreadGoal(BaseModel):
    """One thread's goal as Codex last reported it (``ThreadGoal`` of the app-server, snake_case)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    objective: str
    status: Literal["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]
    token_budget: int | None = None
    tokens_used: int = 0
    time_used_seconds: int = 0
    created_at: int = 0
    updated_at: int = 0

    @property
    def ended(self) -> bool:
        """True once Codex starts no further continuation turn for it (any status but ``active``)."""
        return self.status in GOAL_ENDED

    def usage_text(self) -> str:
        """``12,952 of 100,000 tokens (12%) · 1 min 5 s`` (tokens without a budget: ``12,952 tokens``)."""
        if self.token_budget:
            share = min(self.tokens_used * 100 // self.token_budget, 999)
            tokens = f"{self.tokens_used:,} of {self.token_budget:,} tokens ({share}%)"
        else:
            tokens = f"{self.tokens_used:,} tokens"
        return f"{tokens} \u00b7 {duration_text(self.time_used_seconds)}"

    def text(self) -> str:
        """The card's two lines as plain text (what the saved notebook shows without a kernel)."""
        return f"Goal ({STATUS_TEXT[self.status]}): {self.objective}\n{self.usage_text()}"


def duration_text(seconds: int) -> str:
    """``0 s``, ``1 min 5 s``, ``2 h 3 min``."""
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


class GoalUpdated(EventMsg):
    """``goal_updated``: the thread's goal changed (``goal`` None: it was cleared)."""

    type: Literal["goal_updated"] = "goal_updated"
    goal: ThreadGoal | None = None
    turn_id: str | None = None
    """The turn that changed it (a continuation turn's usage, the model's ``update_goal``), or None."""


__all__ = [
    "GOAL_ENDED",
    "GOAL_STATUSES",
    "MAX_GOAL_FIGURE",
    "MAX_OBJECTIVE_CHARS",
    "STATUS_TEXT",
    "GoalUpdated",
    "ThreadGoal",
    "duration_text",
]
