"""``RecordingSubscriber``: the ordered event log of a session, for whole-log assertions.

``ScriptedModel`` and ``ModelRequest`` are re-exported from here for ``codex_nb.testing``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..protocol.events import Event
from ..protocol.model import ModelRequest
from ..runtime.models import ScriptedModel


class RecordingSubscriber:
    """Subscribe it to a session; ``events`` is the ordered log, ``types`` its msg types."""

    def __init__(self, session: Any | None = None) -> None:
        self.events: list[Event] = []
        self._unsubscribe: Callable[[], None] | None = None
        if session is not None:
            self._unsubscribe = session.subscribe(self)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    @property
    def types(self) -> list[str]:
        """The ``msg.type`` of every recorded event, in order."""
        return [e.msg.type for e in self.events]

    def of_type(self, kind: str) -> list[Event]:
        """The recorded events whose ``msg.type`` is ``kind`` (``"plan_update"``, ``"warning"``, ...)."""
        return [e for e in self.events if e.msg.type == kind]

    def wire(self) -> list[dict[str, Any]]:
        """Every recorded event as the JSON it is sent as."""
        return [e.model_dump(mode="json") for e in self.events]

    def close(self) -> None:
        """Stop recording (the events so far stay)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None


__all__ = ["ModelRequest", "RecordingSubscriber", "ScriptedModel"]
