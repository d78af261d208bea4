"""Lifecycle outcomes and control-tool facts (spec 04 §1-§2).

Every call reports exactly one terminal ``ToolCallOutcome``; a ``CallLifecycle``
holds the claim-once flag. Builtin control tools also get a ``ControlToolGuard``, a
context manager whose exit always records one ``ControlToolCallFact``; a
``CancelledError`` passing through leaves the status at ``Interrupted``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from collections.abc import Callable
from typing import Literal, Protocol

from .names import ToolName


@dataclass(frozen=True, kw_only=True)
class ToolCallOutcome:
    """``Completed{success}``, ``Blocked``, ``Failed{handler_executed}`` or ``Aborted``."""

    kind: Literal["Completed", "Blocked", "Failed", "Aborted"]
    success: bool | None = None
    handler_executed: bool | None = None

    @classmethod
    def completed(cls, success: bool) -> ToolCallOutcome:
        return cls(kind="Completed", success=success)

    @classmethod
    def blocked(cls) -> ToolCallOutcome:
        return cls(kind="Blocked")

    @classmethod
    def failed(cls, *, handler_executed: bool) -> ToolCallOutcome:
        return cls(kind="Failed", handler_executed=handler_executed)

    @classmethod
    def aborted(cls) -> ToolCallOutcome:
        return cls(kind="Aborted")

    def __str__(self) -> str:
        if self.kind == "Completed":
            return f"Completed{{success:{str(self.success).lower()}}}"
        if self.kind == "Failed":
            return f"Failed{{handler_executed:{str(self.handler_executed).lower()}}}"
        return self.kind


@dataclass(frozen=True, kw_only=True)
class LifecycleRecord:
    """One lifecycle notification, as a contributor would see it."""

    phase: Literal["start", "finish"]
    thread_id: str
    turn_id: str
    call_id: str
    tool_name: ToolName
    outcome: ToolCallOutcome | None = None


class LifecycleContributor(Protocol):
    def __call__(self, record: LifecycleRecord) -> None: ...


class RecordSink(Protocol):
    """Where the call path reports its records (``runtime.records.CallRecords`` keeps them)."""

    def record_lifecycle(self, record: LifecycleRecord) -> None: ...

    def record_control_fact(self, fact: ControlToolCallFact) -> None: ...


class DiscardRecords:
    """A sink for standalone use (a ``TurnContext`` built without a session): keeps nothing."""

    def record_lifecycle(self, record: LifecycleRecord) -> None:
        return None

    def record_control_fact(self, fact: ControlToolCallFact) -> None:
        return None


class CallLifecycle:
    """Claim-once terminal outcome for one call (the atomic flag of spec 04 §1)."""

    def __init__(self, notify: LifecycleContributor, *, thread_id: str, turn_id: str, call_id: str,
                 tool_name: ToolName) -> None:
        self._notify = notify
        self._ids = {"thread_id": thread_id, "turn_id": turn_id, "call_id": call_id, "tool_name": tool_name}
        self._lock = threading.Lock()
        self.outcome: ToolCallOutcome | None = None
        self.started = False

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def start(self) -> None:
        self.started = True
        self._notify(LifecycleRecord(phase="start", **self._ids))

    def finish(self, outcome: ToolCallOutcome) -> bool:
        """Report ``outcome`` unless another terminal outcome was claimed first."""
        with self._lock:
            if self.outcome is not None:
                return False
            self.outcome = outcome
        self._notify(LifecycleRecord(phase="finish", outcome=outcome, **self._ids))
        return True


class ControlToolStatus(StrEnum):
    COMPLETED = "Completed"
    FAILED = "Failed"
    REJECTED = "Rejected"
    INTERRUPTED = "Interrupted"


@dataclass(frozen=True, kw_only=True)
class ControlToolCallFact:
    """Analytics fact for a builtin control tool call; never carries plan content."""

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
            "thread_id": self.thread_id, "turn_id": self.turn_id, "call_id": self.call_id,
            "cell_id": self.cell_id, "tool_name": self.tool_name, "started_at_ms": self.started_at_ms,
            "completed_at_ms": self.completed_at_ms, "status": self.status.value,
        }


class ControlToolGuard:
    """Context manager: status starts Interrupted; ``finish`` sets it; exit emits the fact."""

    def __init__(self, record: Callable[[ControlToolCallFact], None], *, thread_id: str, turn_id: str, call_id: str, cell_id: str | None,
                 tool_name: str) -> None:
        self._record = record
        self._fields = {"thread_id": thread_id, "turn_id": turn_id, "call_id": call_id, "cell_id": cell_id,
                        "tool_name": tool_name}
        self.status = ControlToolStatus.INTERRUPTED
        self.started_at_ms = int(time.time() * 1000)
        self.completed_at_ms: int | None = None

    def finish(self, status: ControlToolStatus) -> None:
        self.status = status
        self.completed_at_ms = int(time.time() * 1000)

    def __enter__(self) -> ControlToolGuard:
        return self

    def __exit__(self, *exc: object) -> None:
        # Dropped unfinished (e.g. cancelled mid-handler): the fact still goes out, Interrupted.
        self._record(ControlToolCallFact(started_at_ms=self.started_at_ms, completed_at_ms=self.completed_at_ms,
                                         status=self.status, **self._fields))
