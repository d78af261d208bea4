"""What a handler receives: the routed call plus the turn it runs in.

``TurnContext`` carries the turn's facts (ids, mode, cwd, config, cancel token) and
the services the call path needs, each typed and handed in by whoever composes the
turn (``runtime.Session``): the event bus, the hook port, the record sink for
lifecycle outcomes and control-tool facts, the frontend broker and the plan revision
counter. Nothing in ``tools/`` reaches for a session; handlers use ``invocation.emit``
(synchronous delivery, then one cancellation point) and the typed fields below.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from ..config import Config
from ..events.bus import EventBus
from ..frontend.requests import FrontendRequests
from ..protocol.events import Event, EventMsg
from .cancellation import CancelToken
from .change_tracker import ChangeTracker
from .hook_points import NoHooks, ToolHooks
from .lifecycle import DiscardRecords, RecordSink
from .names import ToolName
from .context_window import ContextWindow
from .payload import ToolCall

if TYPE_CHECKING:
    from ..protocol.frontend import PermissionProfile


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
        self._signal: CancelToken | None = None  # made when a tool first asks (most turns never do)

    @property
    def pending(self) -> bool:
        return bool(self._items)

    def push(self, text: str) -> None:
        with self._lock:
            self._items.append(text)
            signal = self._signal
        if signal is not None:
            signal.cancel("new input")

    def drain(self) -> list[str]:
        with self._lock:
            items, self._items = self._items, []
            if items:
                self._signal = None  # the next signal() waits for input after this drain
        return items

    def signal(self) -> CancelToken:
        with self._lock:
            if self._signal is None:
                self._signal = CancelToken()
                if self._items:
                    self._signal.cancel("new input")  # input is already waiting
            return self._signal


@functools.cache
def _no_grants() -> PermissionProfile:
    """The one empty grant every turn starts from (frozen, replaced by union(), never changed);
    made on first use, since building it at import would build its pydantic validator then, and
    the permission models are imported then too (a Session() that never asks does neither)."""
    from ..protocol.frontend import PermissionProfile

    return PermissionProfile()


def _revisions() -> Callable[[], int]:
    return itertools.count(1).__next__


@dataclass(kw_only=True)
class TurnContext:
    """Per-turn facts and services shared by every call of the turn."""

    turn_id: str
    mode: ModeKind
    cancel: CancelToken
    thread_id: str
    cwd: str
    config: Config = field(default_factory=Config)
    events: EventBus | None = None
    """Where ``emit`` delivers; None builds a private bus for this turn (standalone use)."""
    hooks: ToolHooks = field(default_factory=NoHooks)
    records: RecordSink = field(default_factory=DiscardRecords)
    """Receives lifecycle records and control-tool facts (``runtime.records.CallRecords``)."""
    frontend: FrontendRequests = field(default_factory=FrontendRequests)
    """The broker of requests that wait for a person (request_user_input, request_permissions)."""
    next_plan_revision: Callable[[], int] = field(default_factory=_revisions)
    """Per-thread, monotonic revision for ``plan_update`` events."""
    record_item: Callable[[dict[str, Any]], None] | None = None
    """Puts an item into the conversation at once (Code Mode ``notify``); None outside a turn."""
    model_slug: str = "scripted"
    is_root_thread: bool = True
    started_at: float = 0.0
    pending_input: PendingInput = field(default_factory=PendingInput)
    permission_grants: PermissionProfile = field(default_factory=_no_grants)
    """Permissions granted for the rest of this turn (request_permissions, scope ``turn``)."""
    notifications: list[dict[str, Any]] = field(default_factory=list)
    """Code Mode ``notify`` items made during this turn (kept for ``call_tool`` callers)."""
    tool_calls: int = 0
    """Calls dispatched in this turn so far."""
    context_window: ContextWindow = field(default_factory=ContextWindow)
    """The session's context-window state (token usage, new_context, announced tool namespaces)."""
    history: list[dict[str, Any]] | None = None
    """The thread's conversation so far (read-only for handlers: web.run's request, image_gen's recent images)."""
    changes: ChangeTracker = field(default_factory=ChangeTracker)
    """What this turn's tools changed (the notebook tools' cell edits), sent as ``turn_diff``."""

    def __post_init__(self) -> None:
        if self.events is None:
            self.events = EventBus(self.thread_id)

    def emit(self, msg: EventMsg, *, revision: int | None = None) -> Event:
        assert self.events is not None
        return self.events.emit(msg, id=self.turn_id, turn_id=self.turn_id, revision=revision)


class InvokedTool(Protocol):
    """What an invocation needs of its tool (every ``tools.base.Tool`` is one)."""

    tool_name: ToolName

    @property
    def hook_tool_name(self) -> str: ...

    def hook_tool_input(self, payload_text: str) -> Any: ...


@dataclass(kw_only=True, slots=True)
class ToolInvocation:
    """One call being handled."""

    call: ToolCall
    tool: InvokedTool
    turn: TurnContext
    cancel: CancelToken
    emitted: list[Event] = field(default_factory=list)
    on_emit: Callable[[Event], None] | None = None

    @property
    def call_id(self) -> str:
        """The model's ``call_id`` for this call: its output item answers to it."""
        return self.call.call_id

    @property
    def payload_text(self) -> str:
        """The call's raw input as the model sent it: the ``arguments`` JSON text of a function
        call, the free-form ``input`` of a custom call. Parse it yourself (``Tool.hook_tool_input`` is
        lenient)."""
        return self.call.payload.text

    async def emit(self, msg: EventMsg, *, revision: int | None = None) -> Event:
        """Send an event; where the send becomes effective (Codex leaves it open; this is ours):

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
