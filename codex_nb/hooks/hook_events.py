"""Hook run events: ``hook_started`` / ``hook_completed``, so a widget can show each hook run.

Shapes follow Codex's ``HookStartedEvent{turn_id, run}`` / ``HookCompletedEvent`` with a
``HookRunSummary`` run. ``handler_type`` adds ``"python"`` for in-process notebook hooks.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..protocol.events import EventMsg

HookRunStatus = Literal["running", "completed", "failed", "blocked", "stopped"]
HookOutputEntryKind = Literal["warning", "stop", "feedback", "context", "error"]


class HookOutputEntry(BaseModel):
    """One line of what a hook run produced (Warning, Stop, Feedback, Context, Error)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")
    kind: HookOutputEntryKind
    text: str


class HookRunSummary(BaseModel):
    """One hook run. ``id`` is ``{event-label}:{display_order}:{source_path}:{tool_use_id}``."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")
    id: str
    event_name: Literal["pre_tool_use", "post_tool_use"]
    handler_type: Literal["command", "python"]
    execution_mode: Literal["sync", "async"]
    scope: Literal["turn"] = "turn"
    source_path: str
    source: Literal["system", "user", "project", "session_flags"]
    display_order: int
    status: HookRunStatus
    status_message: str | None = None
    started_at: int
    completed_at: int | None = None
    duration_ms: int | None = None
    entries: list[HookOutputEntry] = []


class HookStarted(EventMsg):
    """``hook_started``: emitted for synchronous runs, before the hooks of one event run."""

    type: Literal["hook_started"] = "hook_started"
    turn_id: str | None = None
    run: HookRunSummary


class HookCompleted(EventMsg):
    """``hook_completed``: one per run, in configured order, after all runs of the event finished."""

    type: Literal["hook_completed"] = "hook_completed"
    turn_id: str | None = None
    run: HookRunSummary
