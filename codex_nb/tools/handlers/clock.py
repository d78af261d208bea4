"""``clock.curr_time`` and ``clock.sleep``: reading and waiting on time
(codex-rs/core/src/tools/handlers/current_time.rs).

Gate (Codex main of August 2026): ``[features] current_time_reminder = true`` (or the table form
``[features.current_time_reminder] enabled = true``) registers ``curr_time``;
``sleep_tool = true`` in that table adds ``sleep``. Both live in the ``clock``
namespace and are dropped when the provider lacks namespace tools (the planner does
that). ``sleep`` is DirectModelOnly, so Code Mode cannot call it.

``sleep`` waits on one future, never polls: it ends when the duration elapses, when
new input arrives for the turn (``handle.steer(text)``: ``Sleep interrupted by new
input.``), or when the call is cancelled (the runtime then answers
``aborted by user after {secs:.1}s`` like any cancelled call).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from ...protocol.events import ItemCompleted, ItemStarted
from ...protocol.items import developer_message
from ...protocol.serde import SerdeError, parse_exact
from ..base import Tool
from ..tool_errors import Fatal, RespondToModel
from ..exposure import ToolExposure
from ..invocation import ToolInvocation
from ..payload import ToolOutput
from ..schema import function_spec

if TYPE_CHECKING:
    from ...config import Config

NAMESPACE = "clock"
NAMESPACE_DESCRIPTION = "Tools for reading and waiting on time."
CURR_TIME_DESCRIPTION = "Return the current time in UTC."
SLEEP_DESCRIPTION = (
    "Pause execution for a specified duration. The sleep ends early when new input arrives for the active turn. "
    "Returns the elapsed wall-clock time."
)
MAX_SLEEP_MS = 43_200_000  # 12 h
SLEEP_RANGE_ERROR = f"duration_ms must be between 1 and {MAX_SLEEP_MS}"
SLEEP_COMPLETED = "Sleep completed."
SLEEP_INTERRUPTED = "Sleep interrupted by new input."
EXTERNAL_CLOCK_ERROR = (
    "features.current_time_reminder.clock_source is external, but no external current-time provider is available"
)


REMINDER_OPEN, REMINDER_CLOSE = "<current_time_reminder>", "</current_time_reminder>"
DEFAULT_REMINDER_INTERVAL_SECONDS = 1.0


def format_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class CurrentTimeReminder:
    """The throttled ``<current_time_reminder>`` developer message (Codex's time_reminder.rs).

    With the clock feature on, before each sampling request the thread gets
    ``<current_time_reminder>It is YYYY-MM-DD HH:MM:SS UTC.</current_time_reminder>`` if no
    reminder was delivered yet, or the last one is at least ``reminder_interval_seconds``
    (default 1) old. One per session (thread), across its turns.
    """

    def __init__(self, config: Config, *, now: Callable[[], datetime] | None = None) -> None:
        settings = clock_settings(config)
        self.enabled = settings["enabled"] and settings["clock_source"] == "system"
        self.interval = settings["reminder_interval_seconds"]
        self._now = now or (lambda: datetime.now(UTC))
        self._last: datetime | None = None

    def due_item(self) -> dict[str, Any] | None:
        """The reminder to append to history now, or None (off, or delivered recently)."""
        if not self.enabled:
            return None
        moment = self._now()
        if self._last is not None and (moment - self._last).total_seconds() < self.interval:
            return None
        self._last = moment
        return developer_message(f"{REMINDER_OPEN}It is {format_utc(moment)}.{REMINDER_CLOSE}")


def clock_settings(config: Config) -> dict[str, Any]:
    """``[features] current_time_reminder`` as a table: ``{"enabled": bool, "sleep_tool": bool, ...}``."""
    features = config.extra.get("features", {}) if isinstance(config.extra, dict) else {}
    raw = features.get("current_time_reminder", False) if isinstance(features, dict) else False
    interval = DEFAULT_REMINDER_INTERVAL_SECONDS
    if isinstance(raw, bool):
        return {"enabled": raw, "sleep_tool": False, "clock_source": "system", "reminder_interval_seconds": interval}
    if isinstance(raw, dict):
        given = raw.get("reminder_interval_seconds", interval)
        if isinstance(given, bool) or not isinstance(given, (int, float)) or given < 0:
            given = interval
        return {
            "enabled": raw.get("enabled") is True,
            "sleep_tool": raw.get("sleep_tool") is True,
            "clock_source": raw.get("clock_source", "system"),
            "reminder_interval_seconds": float(given),
        }
    return {"enabled": False, "sleep_tool": False, "clock_source": "system", "reminder_interval_seconds": interval}


def clock_tools(config: Config) -> list[Tool]:
    """The clock tools this config registers, in Codex order (``curr_time``, then ``sleep``)."""
    settings = clock_settings(config)
    if not settings["enabled"]:
        return []
    external = settings["clock_source"] == "external"
    tools: list[Tool] = [CurrTimeTool(external=external)]
    if settings["sleep_tool"]:
        tools.append(SleepTool(external=external))
    return tools


def _empty_parameters() -> dict[str, Any]:
    return {"type": "object", "properties": {}, "additionalProperties": False}


class CurrTimeTool(Tool):
    """``clock.curr_time``: ``It is YYYY-MM-DD HH:MM:SS UTC.`` (arguments are not parsed)."""

    # What a Code Mode script gets back; rendered into the exec declaration (Codex 0.169).
    output_schema = {
        "type": "object",
        "properties": {
            "current_time": {"type": "string", "description": "Current UTC time formatted as YYYY-MM-DD HH:MM:SS UTC."}
        },
        "required": ["current_time"],
        "additionalProperties": False,
    }

    def __init__(self, *, now: Callable[[], datetime] | None = None, external: bool = False) -> None:
        super().__init__("curr_time", namespace=NAMESPACE, namespace_description=NAMESPACE_DESCRIPTION)
        self._now = now or (lambda: datetime.now(UTC))
        self._external = external

    def spec(self) -> dict[str, Any]:
        return function_spec("curr_time", CURR_TIME_DESCRIPTION, _empty_parameters())

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel("curr_time handler received unsupported payload")
        if self._external:
            raise Fatal(f"failed to read current time: {EXTERNAL_CLOCK_ERROR}")
        try:
            now = self._now().astimezone(UTC)
        except Exception as err:
            raise Fatal(f"failed to read current time: {err}") from err
        stamp = f"{now:%Y-%m-%d %H:%M:%S} UTC"
        return ToolOutput(body=f"It is {stamp}.", code_mode_result={"current_time": stamp})


class SleepTool(Tool):
    """``clock.sleep``: wait up to 12 h; ends early on new input; cancellable at once."""

    def __init__(self, *, external: bool = False) -> None:
        super().__init__(
            "sleep",
            namespace=NAMESPACE,
            exposure=ToolExposure.DirectModelOnly,
            namespace_description=NAMESPACE_DESCRIPTION,
        )
        self._external = external

    def spec(self) -> dict[str, Any]:
        parameters = {
            "type": "object",
            "properties": {
                "duration_ms": {
                    "type": "number",
                    "description": (f"How long to sleep in milliseconds. Must be between 1 and {MAX_SLEEP_MS}."),
                }
            },
            "required": ["duration_ms"],
            "additionalProperties": False,
        }
        return function_spec("sleep", SLEEP_DESCRIPTION, parameters)

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        if invocation.call.payload.kind != "function":
            raise RespondToModel("sleep handler received unsupported payload")
        duration_ms = parse_duration(invocation.payload_text)
        if not 1 <= duration_ms <= MAX_SLEEP_MS:
            raise RespondToModel(SLEEP_RANGE_ERROR)
        if self._external:
            raise Fatal(f"failed to sleep: {EXTERNAL_CLOCK_ERROR}")
        turn = invocation.turn
        item = {"type": "Sleep", "id": invocation.call_id, "duration_ms": duration_ms}
        await invocation.emit(
            ItemStarted(
                thread_id=turn.thread_id, turn_id=turn.turn_id, item=item, started_at_ms=int(time.time() * 1000)
            )
        )
        started = time.monotonic()
        interrupted = await _sleep_until_input(invocation, duration_ms / 1000)
        secs = time.monotonic() - started
        await invocation.emit(
            ItemCompleted(
                thread_id=turn.thread_id, turn_id=turn.turn_id, item=item, completed_at_ms=int(time.time() * 1000)
            )
        )
        ending = SLEEP_INTERRUPTED if interrupted else SLEEP_COMPLETED
        return ToolOutput(body=f"Wall time: {secs:.4f} seconds\n{ending}")


async def _sleep_until_input(invocation: ToolInvocation, seconds: float) -> bool:
    """Wait ``seconds`` or until input is pending; True if input ended it. No polling:
    one future resolved by the input signal, one timer; cancellation ends it at once."""
    pending = invocation.turn.pending_input
    if pending.pending:
        return True
    with pending.signal().future() as arrived:
        done, _ = await asyncio.wait({arrived}, timeout=seconds)
    return bool(done)


class SleepArgs(BaseModel):
    """``{duration_ms: u64}``, unknown keys rejected (Codex's ``SleepArgs``)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    duration_ms: int


def parse_duration(text: str) -> int:
    """serde_json's ``from_str::<SleepArgs>``: its exact errors, positions included."""
    try:
        return parse_exact(SleepArgs, text, frozenset({"duration_ms"})).duration_ms
    except SerdeError as err:
        raise RespondToModel(f"failed to parse function arguments: {err}") from None
