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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from ..errors import CodexNbError, TurnError
from ..events.bus import EventBus
from ..events.source import BusEventSource
from ..frontend.requests import FrontendRequests
from ..protocol.capabilities import Capabilities
from ..protocol.events import (
    AgentMessage,
    ErrorEvent,
    Event,
    EventMsg,
    ItemCompleted,
    PlanUpdate,
    TurnAborted,
    TurnComplete,
    TurnStarted,
    UserMessage,
)
from .rollout import Rollout, RolloutTurn, read_rollout


SAVED_TURNS = 50
"""Turns of a saved conversation a resumed thread's transcript shows (the newest)."""


class ReplayError(CodexNbError, IndexError):
    """A seek outside the plan history."""


@dataclass(kw_only=True, frozen=True)
class SavedTurn:
    """One saved turn as a transcript shows it: what the person asked and the turn's events."""

    turn_id: str
    status: str
    """``completed`` | ``interrupted`` | ``failed`` | ``running`` (no end saved)."""
    prompt: str | None
    events: list[Event]


def _owner(item: dict[str, Any]) -> str | None:
    meta = item.get("internal_chat_message_metadata_passthrough")
    owner = meta.get("turn_id") if isinstance(meta, dict) else None
    return owner if isinstance(owner, str) else None


def _user_text(item: dict[str, Any]) -> str | None:
    """What the person typed; None for the context Codex adds as user messages (environment,
    instructions, AGENTS.md), which start with a tag or the AGENTS.md heading."""
    text = "".join(str(part.get("text", "")) for part in item.get("content") or [] if isinstance(part, dict)).strip()
    return None if not text or text.startswith(("<", "# AGENTS.md")) else text


REPLAY_CAPABILITIES = Capabilities(agent="a saved session", replay=True)
"""A replay offers its saved events only: no turn, no answers, no Stop."""


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

    @property
    def capabilities(self) -> Capabilities:
        """What a replay offers (``cx.Capabilities``): its saved events, nothing to send or stop."""
        return REPLAY_CAPABILITIES

    @property
    def active_turn(self) -> None:
        """Always None: a replay runs no turn."""
        return None

    def start_turn(self, text: Any, **_options: Any) -> NoReturn:
        """A replay runs no turn: raises ``TurnError`` (``capabilities.runs_turns`` is False)."""
        raise TurnError(
            f"{self.rollout.path.name} is a saved session played back; it runs no turn: resume it in Codex "
            "(codex resume) or start a cx.Session to continue"
        )

    def send_during_turn(self, text: str) -> NoReturn:
        """A replay runs no turn: raises ``TurnError`` (``capabilities.mid_turn`` is ``none``)."""
        self.start_turn(text)

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
        completed tool item, then how the turn ended as a live one ends (``turn_complete``; an
        ``error`` first for a failed turn; ``turn_aborted`` for an interrupted one; nothing for a
        turn with no end saved). Items without a turn id (an older Codex) all belong to the one
        turn played. Returns the events."""
        turn = self._turn(index)
        return [self.bus.emit(msg, id=turn.turn_id, turn_id=turn.turn_id) for msg in self._turn_msgs(turn)]

    def saved_turns(self, last: int = SAVED_TURNS) -> tuple[list[SavedTurn], int]:
        """The newest ``last`` turns as ``SavedTurn`` s (the person's prompt and the events
        ``play_turn`` would emit, without emitting them), and how many earlier turns were left out:
        what a resumed thread's transcript shows of its saved conversation."""
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            raise ValueError(f"last is how many saved turns to keep: an int >= 0, got {last!r}")
        turns = self.rollout.turns[-last:] if last else []
        kept = {t.turn_id for t in turns}
        prompts: dict[str, str] = {}
        for item in self.rollout.items:
            owner = _owner(item)
            if owner in kept and owner not in prompts and item.get("type") == "message" and item.get("role") == "user":
                text = _user_text(item)
                if text:
                    prompts[owner] = text
        saved = [
            SavedTurn(
                turn_id=t.turn_id,
                status=t.status,
                prompt=prompts.get(t.turn_id),
                events=[
                    Event(id=t.turn_id, msg=msg, thread_id=self.thread_id, turn_id=t.turn_id)
                    for msg in self._turn_msgs(t)
                ],
            )
            for t in turns
        ]
        return saved, len(self.rollout.turns) - len(turns)

    def _turn(self, index: int) -> RolloutTurn:
        turns = self.rollout.turns
        if not turns:
            raise ReplayError(f"{self.rollout.path.name} has no turns to play")
        if not -len(turns) <= index < len(turns):
            raise ReplayError(f"turn {index} is out of range: this session has {len(turns)} (0..{len(turns) - 1})")
        return turns[index]

    def _turn_msgs(self, turn: RolloutTurn) -> list[EventMsg]:
        turn_id = turn.turn_id
        msgs: list[EventMsg] = [TurnStarted(turn_id=turn_id)]
        calls: dict[str, dict[str, Any]] = {}
        for item in self.rollout.items:
            owner = _owner(item)
            if owner is not None and owner != turn_id:
                continue
            kind = item.get("type")
            said = _user_text(item) if kind == "message" and item.get("role") == "user" else None
            if said:
                msgs.append(UserMessage(message=said))  # the prompt, and steered input where it joined
            elif kind == "message" and item.get("role") == "assistant":
                text = "".join(
                    str(part.get("text", "")) for part in item.get("content") or [] if isinstance(part, dict)
                )
                msgs.append(AgentMessage(message=text))
            elif kind == "function_call":
                calls[str(item.get("call_id"))] = item
                msgs.append(self._call(item, None, turn_id))
            elif kind == "function_call_output":
                call = calls.get(str(item.get("call_id")))
                if call is not None:
                    msgs.append(self._call(call, item.get("output"), turn_id))
        # a saved failure or interruption ends the way a live one does: never shown as completed
        if turn.status == "interrupted":
            msgs.append(TurnAborted(turn_id=turn_id, reason="interrupted"))
        elif turn.status == "failed":
            msgs.append(ErrorEvent(message=turn.error or "the turn failed (the saved session has no message)"))
            msgs.append(TurnComplete(turn_id=turn_id, last_agent_message=turn.last_agent_message))
        elif turn.status == "completed":
            msgs.append(TurnComplete(turn_id=turn_id, last_agent_message=turn.last_agent_message))
        return msgs

    def _call(self, call: dict[str, Any], output: Any, turn_id: str) -> ItemCompleted:
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        item = {
            "type": "dynamicToolCall",
            "id": str(call.get("call_id")),
            "tool": str(call.get("name", "")),
            "arguments": call.get("arguments"),
            "status": "inProgress" if output is None else "completed",
            "contentItems": [] if output is None else [{"type": "inputText", "text": text}],
        }
        return ItemCompleted(thread_id=self.thread_id, turn_id=turn_id, item=item, completed_at_ms=0)

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
