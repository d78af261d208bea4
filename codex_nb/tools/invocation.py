"""What a handler receives: the routed call plus the turn it runs in.

``TurnContext`` is deliberately small: ids, mode, cwd, the cancel token, the event
emitter and a few per-turn services. Handlers use ``invocation.emit`` (synchronous
delivery, then one cancellation point) and never reach into the session.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..protocol.events import Event, EventMsg
from ..runtime.cancellation import CancelToken
from .base import Tool
from .payload import ToolCall

if TYPE_CHECKING:
    from ..config import Config
    from ..runtime.session import Session


class ModeKind(StrEnum):
    """Codex collaboration ``ModeKind``: ``default`` or ``plan``."""

    DEFAULT = "default"
    PLAN = "plan"


@dataclass(kw_only=True)
class TurnContext:
    """Per-turn facts shared by every call of the turn."""

    session: Session
    turn_id: str
    mode: ModeKind
    cancel: CancelToken
    model_slug: str = "scripted"
    is_root_thread: bool = True
    started_at: float = 0.0
    services: dict[str, Any] = field(default_factory=dict)
    """Per-turn state owned by individual tools (e.g. request_permissions grants)."""

    @property
    def thread_id(self) -> str:
        return self.session.thread_id

    @property
    def config(self) -> Config:
        return self.session.config

    @property
    def cwd(self) -> str:
        return self.session.cwd

    def emit(self, msg: EventMsg, *, revision: int | None = None) -> Event:
        return self.session.bus.emit(msg, id=self.turn_id, turn_id=self.turn_id, revision=revision)


@dataclass(kw_only=True)
class ToolInvocation:
    """One call being handled."""

    call: ToolCall
    tool: Tool
    turn: TurnContext
    cancel: CancelToken
    emitted: list[Event] = field(default_factory=list)
    on_emit: Callable[[Event], None] | None = None

    @property
    def call_id(self) -> str:
        return self.call.call_id

    @property
    def payload_text(self) -> str:
        return self.call.payload.text

    async def emit(self, msg: EventMsg, *, revision: int | None = None) -> Event:
        """Send an event. It counts as emitted once this call delivers it to every
        subscriber and queues it for async consumers, *before* the await below; a
        cancellation arriving after that cannot retract it (spec 04 §5)."""
        event = self.turn.emit(msg, revision=revision)
        self.emitted.append(event)
        await asyncio.sleep(0)
        return event
