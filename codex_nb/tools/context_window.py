"""``ContextWindow``: what a session knows about the model's current context window.

One per session, handed to every turn (``TurnContext.context_window``): the token usage
the provider reported for the last response (what ``get_context_remaining`` counts), a
``new_context`` request waiting for the next step, the ids of the windows so far, the
history of earlier windows (nothing is lost when a window starts afresh), and the
deferred tool namespaces this window was already told about (tool_search).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class ContextWindow:
    last_token_usage: Any = None
    """The last response's usage: a Responses ``usage`` dict or an object with ``total_tokens``."""
    new_context_requested: bool = False
    window_ids: list[str] = field(default_factory=list)
    archived_history: list[dict[str, Any]] = field(default_factory=list)
    announced_namespaces: dict[str, str] = field(default_factory=dict)

    def start_new(self, history: list[dict[str, Any]]) -> tuple[str, str, str]:
        """Archive ``history`` and reset the per-window state; ``(first, current, previous)`` window ids."""
        self.archived_history.extend(history)
        if not self.window_ids:
            self.window_ids.append(str(uuid.uuid4()))
        self.window_ids.append(str(uuid.uuid4()))
        self.last_token_usage = None
        self.announced_namespaces = {}
        self.new_context_requested = False
        return self.window_ids[0], self.window_ids[-1], self.window_ids[-2]
