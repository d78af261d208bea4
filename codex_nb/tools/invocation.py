"""What a handler receives: the routed call plus the turn it runs in.

``TurnContext`` is deliberately small: ids, mode, cwd, the cancel token, the event
emitter and a few per-turn services. Handlers use ``invocation.emit`` (synchronous
delivery, then one cancellation point) and never reach into the session.
"""

from __future__ import annotations

import asyncio
import threading
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


class PendingInput:
    """User input that arrived while the turn runs (Codex ``turn/steer``). Thread-safe.

    The turn loop drains it into history before its next sampling step; until then
    ``pending`` is True. ``signal()`` is a token that fires when input arrives, so a
    waiting tool (``clock.sleep``) can end early without polling.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[str] = []
        self._signal = CancelToken()

    @property
    def pending(self) -> bool:
        return bool(self._items)

    def push(self, text: str) -> None:
        with self._lock:
            self._items.append(text)
            signal = self._signal
        signal.cancel("new input")

    def drain(self) -> list[str]:
        with self._lock:
            items, self._items = self._items, []
            if items:
                self._signal = CancelToken()
        return items

    def signal(self) -> CancelToken:
        with self._lock:
            return self._signal


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
    pending_input: PendingInput = field(default_factory=PendingInput)

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
        """Send an event; where the send becomes effective (spec 04 §5):

        1. If this call is already cancelled, nothing is sent: ``CancelledError`` is
           raised, so a call cancelled before its send never emits (timing-table row 1).
        2. Otherwise the event is delivered synchronously to every subscriber and
           queued for every async consumer. **That is the effective point**: from here
           on the event counts as emitted, and a cancellation arriving later cannot
           retract it (no compensating event; an aborted output is not a rollback).
        3. Then one ``await`` (a cancellation point). A cancellation that arrives
           during the delivery (e.g. a subscriber interrupts the turn) races the rest
           of the handler: if the handler returns and claims its outcome first, its
           real result is kept; if it is still awaiting, the call answers aborted.
        """
        if self.cancel.cancelled:
            raise asyncio.CancelledError(f"call {self.call_id} was cancelled before its event was sent")
        event = self.turn.emit(msg, revision=revision)
        self.emitted.append(event)
        if self.on_emit is not None:
            self.on_emit(event)
        await asyncio.sleep(0)
        return event
