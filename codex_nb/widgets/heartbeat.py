"""Heartbeat: what the running turn is doing now, and for how long.

A turn that waits on a slow model, a long tool, a hook or the person looks the same as a turn
that hangs. The heartbeat says which it is: ``waiting for the model 12 s``, ``running tool
update_plan 2 s``, ``running hook PreToolUse: ./check-plan.sh 0.4 s``, ``waiting for your answer 30 s``,
and marks a stall when nothing has happened for ``stall_after`` seconds.

The state moves on events only (``turn_started``, deltas, items, hook runs, questions, the
runtime's lifecycle records); the clock only redraws the seconds. One ``loop.call_later`` timer
per heartbeat runs while a turn runs (none when idle), and the widget's ``value`` is set only
when the text changed, so an idle kernel pays nothing and a running turn one short
message a second (``tests/benchmarks/bench_heartbeat.py`` measures it).
"""

from __future__ import annotations

import asyncio
import html
import threading
import time
from collections.abc import Callable
from typing import Any

import ipywidgets

from ..events.source import EventSource
from ..protocol.capabilities import capabilities_of
from ..protocol.events import Event
from .hook_runs import running_hook

STALL_AFTER = 60.0
TICK = 1.0
TOOL_ITEMS = ("commandExecution", "mcpToolCall", "dynamicToolCall", "fileChange", "webSearch", "Sleep")


def _duration(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole} s" if whole < 120 else f"{whole // 60} min {whole % 60} s"


class Heartbeat(ipywidgets.HTML):
    """What ``source``'s running turn does now and for how long (``%%codex`` shows it with the turn).

    It is live only: it has no static fallback, since a saved notebook's "waiting 3 s" would be
    stale the moment it was saved (and would differ on every run)."""

    def __init__(
        self,
        source: EventSource,
        *,
        stall_after: float = STALL_AFTER,
        clock: Callable[[], float] = time.monotonic,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.add_class("cx-heartbeat")
        self.stall_after = stall_after
        self._clock = clock
        self._lock = threading.Lock()
        self.activity = ""
        """What the turn is doing (``waiting for the model``...); "" when no turn runs."""
        self.since = 0.0
        self.last_event = 0.0
        self._stack: list[tuple[str, float]] = []  # activities a hook or a question interrupted
        self._timer: asyncio.TimerHandle | None = None
        self._shown = ""
        self.ticks = 0
        """Timer callbacks run (for the benchmark)."""
        self.redraws = 0
        """Times the shown text changed."""
        self._source = source
        self._removers = [source.subscribe(self._on_event)]
        capabilities = capabilities_of(source)
        agent: Any = source  # what its capabilities say it has
        if capabilities.tool_lifecycle:  # codex_nb's runtime reports tool calls as lifecycle records
            self._removers.append(agent.on_lifecycle(self._on_lifecycle))
        if capabilities.runs_turns and agent.active_turn is not None:
            self._set("waiting for the model")
        self._draw()

    # -- state from events ------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        kind = event.msg.type
        now = self._clock()
        self.last_event = now
        msg: Any = event.msg
        if kind == "turn_started":
            self._stack.clear()
            self._set("waiting for the model")
        elif kind in ("turn_complete", "turn_aborted"):
            self._stack.clear()
            self._set("")
        elif kind in ("agent_message_delta", "agent_reasoning_delta") and not self.activity.startswith("model"):
            self._set("model is answering")
        elif kind == "item_started" and isinstance(msg.item, dict) and msg.item.get("type") in TOOL_ITEMS:
            item = msg.item
            self._set(f"running tool {item.get('tool') or item.get('command') or item.get('type')}")
        elif kind == "item_completed" and isinstance(msg.item, dict) and msg.item.get("type") in TOOL_ITEMS:
            self._set("waiting for the model")
        elif kind == "hook_started":
            self._push(running_hook(msg.run, self._source))
        elif kind == "hook_completed":
            self._pop()
        elif kind in ("request_user_input", "request_permissions", "exec_approval_request"):
            self._push("waiting for your answer")
        elif kind == "frontend_request_resolved":
            self._pop()
        else:
            return
        self._draw()

    def _on_lifecycle(self, record: Any) -> None:
        self.last_event = self._clock()
        if record.phase == "start":
            self._set(f"running tool {getattr(record.tool_name, 'name', record.tool_name)}")
        else:
            self._set("waiting for the model")
        self._draw()

    def _set(self, activity: str) -> None:
        with self._lock:
            if activity != self.activity:
                self.activity, self.since = activity, self._clock()
        if activity:
            self._arm()
        else:
            self._disarm()

    def _push(self, activity: str) -> None:
        with self._lock:
            self._stack.append((self.activity, self.since))
        self._set(activity)

    def _pop(self) -> None:
        with self._lock:
            if not self._stack:
                return
            activity, since = self._stack.pop()
            self.activity, self.since = activity, since

    # -- the clock -----------------------------------------------------------------------------
    def _arm(self) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a script's synchronous use): the text moves on events only
        self._timer = loop.call_later(TICK, self._tick)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self) -> None:
        self._timer = None
        self.ticks += 1
        self._draw()
        if self.activity:
            self._arm()

    # -- text ----------------------------------------------------------------------------------
    def text(self) -> str:
        """``waiting for the model 12 s`` (a stall adds how long nothing happened); "" when idle."""
        if not self.activity:
            return ""
        now = self._clock()
        line = f"{self.activity} {_duration(now - self.since)}"
        quiet = now - max(self.last_event, self.since)
        if quiet >= self.stall_after:
            line += f" · stalled? nothing has happened for {_duration(quiet)}"
        return line

    @property
    def stalled(self) -> bool:
        """Nothing has happened for ``stall_after`` seconds while a turn runs."""
        return bool(self.activity) and self._clock() - max(self.last_event, self.since) >= self.stall_after

    def html(self) -> str:
        """``text()`` as escaped HTML."""
        css = "cx-heartbeat-stalled" if self.stalled else "cx-heartbeat-line"
        return f'<span class="{css}">{html.escape(self.text())}</span>' if self.activity else ""

    def _draw(self) -> None:
        value = self.html()
        if value != self._shown:
            self._shown = value
            self.redraws += 1
            self.value = value

    def detach(self) -> None:
        """Stop the clock and stop following the source (a finished turn's view); shows nothing."""
        self._disarm()
        for remove in self._removers:
            remove()
        self._removers = []
        self.activity = ""
        self._draw()

    def close(self) -> None:
        """``detach()``, then close the comm."""
        self.detach()
        super().close()
