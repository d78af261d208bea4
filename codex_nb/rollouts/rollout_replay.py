"""Replay a saved session's plan history as an event source.

``RolloutReplay(rollout)`` feeds the plan snapshots of a rollout to the same widgets
that show a live thread; ``seek(i)`` shows snapshot ``i`` (0-based). Each shown
snapshot is emitted as a ``plan_update`` with a fresh revision, because a checklist drops
revisions it has already passed and scrubbing backwards must still show the older plan;
``position`` says which snapshot is on screen. ``play_turn(i)`` emits turn ``i``'s conversation
(the person's message, the assistant's text, each tool call with its output) as the events a live
turn sends, so a ``cx.Transcript`` shows a saved session too.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from ..errors import CodexNbError
from ..events.bus import EventBus
from ..events.source import BusEventSource
from ..frontend.requests import FrontendRequests
from ..protocol.events import AgentMessage, Event, ItemCompleted, PlanUpdate, TurnComplete, TurnStarted
from .rollout import Rollout, read_rollout


class ReplayError(CodexNbError, IndexError):
    """A seek outside the plan history."""


class RolloutReplay(BusEventSource):
    """An event source over a rollout's plan snapshots (nothing is running: no interrupt)."""

    def __init__(self, rollout: Rollout | str | Path) -> None:
        self.rollout = rollout if isinstance(rollout, Rollout) else read_rollout(rollout)
        session_id = self.rollout.session_id
        # A Rollout may be built by hand: only a non-empty string names the thread.
        self.thread_id = session_id if isinstance(session_id, str) and session_id else self.rollout.path.stem
        self.bus = EventBus(self.thread_id)
        self.frontend_requests = FrontendRequests()
        self.position: int | None = None
        self._revision = itertools.count(1)

    def __len__(self) -> int:
        return len(self.rollout.plans)

    def interrupt(self) -> bool:
        """Always False: a replay runs no turn, so there is nothing to stop."""
        return False

    def seek(self, index: int) -> Event:
        """Show snapshot ``index`` (negative counts from the end)."""
        count = len(self.rollout.plans)
        if count == 0:
            raise ReplayError(
                f"{self.rollout.path.name} has no plan snapshots (no update_plan call said "
                f"'Plan updated'); nothing to replay"
            )
        if not -count <= index < count:
            raise ReplayError(f"snapshot {index} is out of range: this session has {count} (0..{count - 1})")
        index %= count
        snapshot = self.rollout.plans[index]
        event = self.bus.emit(
            PlanUpdate.from_args(snapshot.args),
            id=snapshot.call_id,
            turn_id=snapshot.turn_id,
            revision=next(self._revision),
        )
        self.position = index
        return event

    def first(self) -> Event:
        """Show the first snapshot (``seek(0)``); ``ReplayError`` if there is none."""
        return self.seek(0)

    def last(self) -> Event:
        """Show the latest snapshot (``seek(-1)``); ``ReplayError`` if there is none."""
        return self.seek(-1)

    def step(self, delta: int = 1) -> Event:
        """Move ``delta`` snapshots from the current one (clamped to the history)."""
        current = -1 if self.position is None else self.position
        return self.seek(max(0, min(len(self) - 1, current + delta)))

    def play_turn(self, index: int = -1) -> list[Event]:
        """Emit turn ``index``'s conversation (negative counts from the end) as live-turn events:
        ``turn_started``, the assistant's messages, each function call with its output as a
        completed tool item, ``turn_complete``. Items without a turn id (an older Codex) all belong
        to the one turn played. Returns the events."""
        turns = [t.turn_id for t in self.rollout.turns]
        if not turns:
            raise ReplayError(f"{self.rollout.path.name} has no turns to play")
        if not -len(turns) <= index < len(turns):
            raise ReplayError(f"turn {index} is out of range: this session has {len(turns)} (0..{len(turns) - 1})")
        turn_id = turns[index]
        emitted = [self._emit(TurnStarted(turn_id=turn_id), turn_id)]
        calls: list[dict[str, Any]] = []
        for item in self.rollout.items:
            meta = item.get("internal_chat_message_metadata_passthrough")
            owner = meta.get("turn_id") if isinstance(meta, dict) else None
            if owner is not None and owner != turn_id:
                continue
            kind = item.get("type")
            if kind == "message" and item.get("role") == "assistant":
                text = "".join(
                    str(part.get("text", "")) for part in item.get("content") or [] if isinstance(part, dict)
                )
                emitted.append(self._emit(AgentMessage(message=text), turn_id))
            elif kind == "function_call":
                calls.append(item)
                emitted.append(self._emit_call(item, None, turn_id))
            elif kind == "function_call_output":
                call = next((c for c in calls if str(c.get("call_id")) == str(item.get("call_id"))), None)
                if call is not None:
                    emitted.append(self._emit_call(call, item.get("output"), turn_id))
        status = next(t.status for t in self.rollout.turns if t.turn_id == turn_id)
        last = next((t.last_agent_message for t in self.rollout.turns if t.turn_id == turn_id), None)
        if status != "running":
            emitted.append(self._emit(TurnComplete(turn_id=turn_id, last_agent_message=last), turn_id))
        return emitted

    def _emit(self, msg: Any, turn_id: str) -> Event:
        return self.bus.emit(msg, id=turn_id, turn_id=turn_id)

    def _emit_call(self, call: dict[str, Any], output: Any, turn_id: str) -> Event:
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        item = {
            "type": "dynamicToolCall",
            "id": str(call.get("call_id")),
            "tool": str(call.get("name", "")),
            "arguments": call.get("arguments"),
            "status": "inProgress" if output is None else "completed",
            "contentItems": [] if output is None else [{"type": "inputText", "text": text}],
        }
        return self._emit(
            ItemCompleted(thread_id=self.thread_id, turn_id=turn_id, item=item, completed_at_ms=0), turn_id
        )

    def describe(self, index: int | None = None) -> str:
        """Where snapshot ``index`` (default: the one shown) sits, in words: ``Replay: plan snapshot 2
        of 5 (turn 1 of 3)``, or the snapshot count while none is shown yet. The scrubber's label."""
        index = self.position if index is None else index
        if index is None:
            return f"Replay of {self.rollout.path.name}: {len(self)} plan snapshot(s), none shown yet"
        snap = self.rollout.plans[index]
        turns = [t.turn_id for t in self.rollout.turns]
        where = f"turn {turns.index(snap.turn_id) + 1} of {len(turns)}" if snap.turn_id in turns else "unknown turn"
        return f"Replay: plan snapshot {index + 1} of {len(self)} ({where})"

    def __repr__(self) -> str:
        return f"<RolloutReplay {self.describe()}>"
