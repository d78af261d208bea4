"""Lifecycle outcomes and control-tool facts (codex-rs/core/src/tools/lifecycle.rs,
codex-rs/core/src/tools/control_tool_analytics.rs).

Every call reports exactly one terminal ``ToolCallOutcome``; a ``CallLifecycle``
holds the claim-once flag. Builtin control tools also get a ``ControlToolGuard``, a
context manager whose exit always records one ``ControlToolCallFact``; a
``CancelledError`` passing through leaves the status at ``Interrupted``.
"""

from __future__ import annotations

from dataclasses import dataclass
import threading
import time
from enum import StrEnum
from typing import Literal, Protocol

from .names import ToolName


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallOutcome:
    """``Completed{success}``, ``Blocked``, ``Failed{handler_executed}`` or ``Aborted``."""

    kind: Literal["Completed", "Blocked", "Failed", "Aborted"]
    success: bool | None = None
    handler_executed: bool | None = None

    # There are only six outcomes, and they are immutable: every call shares them.
    @classmethod
    def completed(cls, success: bool) -> ToolCallOutcome:
        return _COMPLETED[bool(success)]

    @classmethod
    def blocked(cls) -> ToolCallOutcome:
        return _BLOCKED

    @classmethod
    def failed(cls, *, handler_executed: bool) -> ToolCallOutcome:
        return _FAILED[bool(handler_executed)]

    @classmethod
    def aborted(cls) -> ToolCallOutcome:
        return _ABORTED

    def __str__(self) -> str:
        if self.kind == "Completed":
            return f"Completed{{success:{str(self.success).lower()}}}"
        if self.kind == "Failed":
            return f"Failed{{handler_executed:{str(self.handler_executed).lower()}}}"
        return self.kind


_COMPLETED = {flag: ToolCallOutcome(kind="Completed", success=flag) for flag in (False, True)}
_FAILED = {flag: ToolCallOutcome(kind="Failed", handler_executed=flag) for flag in (False, True)}
_BLOCKED = ToolCallOutcome(kind="Blocked")
_ABORTED = ToolCallOutcome(kind="Aborted")


# Records are made twice per call: slotted and not frozen (a frozen dataclass sets each
# field through object.__setattr__, which made them cost as much as parsing a small plan).
# They are shared with every observer and kept in the session's rings: treat them as read-only.
@dataclass(kw_only=True, slots=True)
class LifecycleRecord:
    """One lifecycle notification, as a contributor would see it (read-only by convention)."""

    phase: Literal["start", "finish"]
    thread_id: str
    turn_id: str
    call_id: str
    tool_name: ToolName
    outcome: ToolCallOutcome | None = None


class RecordSink(Protocol):
    """Where the call path reports its records (``runtime.records.CallRecords`` keeps them).

    It is handed the lifecycle and the guard themselves, not records: most records are
    never read, so the sink builds a ``LifecycleRecord`` / ``ControlToolCallFact`` only
    for an observer or a reader (``CallLifecycle.record``, ``ControlToolGuard.fact``)."""

    def lifecycle_started(self, lifecycle: CallLifecycle) -> None: ...

    def lifecycle_finished(self, lifecycle: CallLifecycle) -> None: ...

    def control_tool_done(self, guard: ControlToolGuard) -> None: ...


class DiscardRecords:
    """A sink for standalone use (a ``TurnContext`` built without a session): keeps nothing."""

    def lifecycle_started(self, lifecycle: CallLifecycle) -> None:
        return None

    def lifecycle_finished(self, lifecycle: CallLifecycle) -> None:
        return None

    def control_tool_done(self, guard: ControlToolGuard) -> None:
        return None


_CLAIM = threading.Lock()
"""Guards every lifecycle's claim-once flag: the critical section is two attribute reads,
so one lock serves all calls (a lock per call cost more than the claim)."""


class CallLifecycle:
    """Claim-once terminal outcome for one call (an atomic flag in Codex): a cancel never
    overwrites a real outcome."""

    __slots__ = ("_sink", "thread_id", "turn_id", "call_id", "tool_name", "outcome", "started")

    def __init__(self, sink: RecordSink, *, thread_id: str, turn_id: str, call_id: str, tool_name: ToolName) -> None:
        self._sink = sink
        self.thread_id, self.turn_id, self.call_id, self.tool_name = thread_id, turn_id, call_id, tool_name
        self.outcome: ToolCallOutcome | None = None
        self.started = False

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def start(self) -> None:
        self.started = True
        self._sink.lifecycle_started(self)

    def finish(self, outcome: ToolCallOutcome) -> bool:
        """Report ``outcome`` unless another terminal outcome was claimed first."""
        with _CLAIM:
            if self.outcome is not None:
                return False
            self.outcome = outcome
        self._sink.lifecycle_finished(self)
        return True

    def record(self, phase: Literal["start", "finish"]) -> LifecycleRecord:
        """The record of ``phase`` (a finish record carries the claimed outcome)."""
        return LifecycleRecord(
            phase=phase,
            thread_id=self.thread_id,
            turn_id=self.turn_id,
            call_id=self.call_id,
            tool_name=self.tool_name,
            outcome=self.outcome if phase == "finish" else None,
        )


class ControlToolStatus(StrEnum):
    COMPLETED = "Completed"
    FAILED = "Failed"
    REJECTED = "Rejected"
    INTERRUPTED = "Interrupted"


@dataclass(kw_only=True, slots=True)
class ControlToolCallFact:
    """Analytics fact for a builtin control tool call; never carries plan content (read-only by
    convention, like ``LifecycleRecord``)."""

    thread_id: str
    turn_id: str
    call_id: str
    cell_id: str | None
    tool_name: str
    started_at_ms: int
    completed_at_ms: int | None
    status: ControlToolStatus

    def to_json(self) -> dict[str, object]:
        return {
            "thread_id": self.thread_id,
            "turn_id": self.turn_id,
            "call_id": self.call_id,
            "cell_id": self.cell_id,
            "tool_name": self.tool_name,
            "started_at_ms": self.started_at_ms,
            "completed_at_ms": self.completed_at_ms,
            "status": self.status.value,
        }


class ControlToolGuard:
    """Context manager: status starts Interrupted; ``finish`` sets it; exit reports the fact.

    It belongs to one call's lifecycle and reads the call's ids from it, so a control call
    builds its guard from two values instead of copying six."""

    __slots__ = ("_lifecycle", "cell_id", "status", "started_at_ms", "completed_at_ms")

    def __init__(self, lifecycle: CallLifecycle, cell_id: str | None) -> None:
        self._lifecycle = lifecycle
        self.cell_id = cell_id
        self.status = _INTERRUPTED
        self.started_at_ms = int(time.time() * 1000)
        self.completed_at_ms: int | None = None

    def finish(self, status: ControlToolStatus) -> None:
        self.status = status
        self.completed_at_ms = int(time.time() * 1000)

    def fact(self) -> ControlToolCallFact:
        life = self._lifecycle
        return ControlToolCallFact(
            thread_id=life.thread_id,
            turn_id=life.turn_id,
            call_id=life.call_id,
            cell_id=self.cell_id,
            tool_name=life.tool_name.display,
            started_at_ms=self.started_at_ms,
            completed_at_ms=self.completed_at_ms,
            status=self.status,
        )

    def __enter__(self) -> ControlToolGuard:
        return self

    def __exit__(self, *exc: object) -> None:
        # Dropped unfinished (e.g. cancelled mid-handler): the fact still goes out, Interrupted.
        self._lifecycle._sink.control_tool_done(self)


_INTERRUPTED = ControlToolStatus.INTERRUPTED
