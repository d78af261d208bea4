"""A running ACP prompt (``AcpTurnHandle``) and how it ended (``AcpTurnResult``).

``AcpSession.prompt`` returns the handle at once (a cell that owns a widget must never block);
``await handle`` gives the result, ``handle.interrupt()`` asks the agent to stop from any thread,
and the kernel's interrupt button stops it as Stop does. The handle answers what ``TurnControls``
and the widgets read of any source's turn (``turn.cancel``, ``done()``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._interrupt import await_interruptibly
from ..events.turn_log import TurnEventLog
from ..protocol.events import Event
from ..protocol.model_stream import TokenUsage


class TurnOwner(Protocol):
    """What a handle needs of the session that runs its prompt (``AcpSession``)."""

    def _begin_cancel(self, handle: AcpTurnHandle) -> None:
        """Send ``session/cancel`` and end the prompt here if the agent does not within its grace."""
        ...


@dataclass(kw_only=True)
class AcpTurnResult:
    """How a prompt ended. ``status``: completed | interrupted | failed."""

    turn_id: str
    status: str
    stop_reason: str | None
    """The agent's ``stopReason`` (None if the turn ended without one: crash, local abort)."""
    last_agent_message: str | None
    error: str | None = None
    events: list[Event] = field(default_factory=list)
    dropped_deltas: int = 0
    """Text and reasoning delta events not kept in ``events`` (past the first 10,000: the completed
    message holds their text; subscribers saw every one)."""
    token_usage: TokenUsage | None = None
    """The turn's token usage, as the agent's prompt response reported it (None if it did not)."""


class _CancelState:
    cancelled = False


class AcpTurnHandle:
    """A running prompt: ``await handle`` gives its ``AcpTurnResult``; ``interrupt()`` cancels it."""

    def __init__(self, session: TurnOwner, turn_id: str) -> None:
        self.session = session
        """The ``AcpSession`` that runs this prompt."""
        self.turn_id = turn_id
        self.task: asyncio.Task[AcpTurnResult]
        self.cancel = _CancelState()
        """``cancel.cancelled`` is True once an interrupt was requested (as a Session turn's)."""
        self.hard_aborted = False
        """True if the agent did not stop within the grace period and the turn ended locally."""
        self.event_log = TurnEventLog()
        """This prompt's events, as its ``AcpTurnResult`` will list them (deltas bounded)."""
        self.events: list[Event] = self.event_log.events
        self.idle: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        """The ``stopReason`` of the agent's idle ``state_update`` (ACP v2 draft: the turn's end when
        ``session/prompt`` only acknowledged the prompt)."""
        self.idle_error: str | None = None
        """The ``error`` an idle ``state_update`` with ``stopReason`` ``error`` described, if any."""

    @property
    def turn(self) -> AcpTurnHandle:  # what TurnControls reads on a Session's handle
        """The handle itself: ``TurnControls`` reads ``handle.turn.cancel`` on any source's handle, as
        on a ``Session`` turn's."""
        return self

    def done(self) -> bool:
        """True once the prompt's task has finished: ``await handle`` returns (or raises) at once."""
        return self.task.done()

    def interrupt(self) -> bool:
        """Ask the agent to stop (``session/cancel``). Safe from any thread; never blocks."""
        if self.task.done() or self.cancel.cancelled:
            return False
        self.cancel.cancelled = True
        try:
            self.task.get_loop().call_soon_threadsafe(self.session._begin_cancel, self)
        except RuntimeError:  # the loop is closed
            return False
        return True

    def __await__(self) -> Generator[Any, None, AcpTurnResult]:
        if self.task.done():
            return self.task.__await__()
        # the kernel's interrupt button stops the prompt as Stop does (see codex_nb._interrupt)
        return await_interruptibly(self.task, interrupt=self.interrupt, what=f"ACP prompt {self.turn_id}").__await__()

    def __repr__(self) -> str:
        state = "done" if self.task.done() else "running"
        return f"<AcpTurnHandle {self.turn_id} {state}>"
