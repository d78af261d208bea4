"""The verbs on a saved Codex thread besides turns: rename, archive, unarchive, delete, compact
and rewind.

They sit apart from ``server.py`` and ``thread.py`` (which run turns) as two mixins:
``SavedThreadVerbs`` on ``CodexAppServer`` acts on any thread of the Codex home by id (the
sessions browser lists saved ones), ``ThreadHistoryVerbs`` on ``CodexThread`` acts on a loaded
one. Each method a release may lack goes through ``request_feature``, so a binary without it
raises ``CodexVersionError`` and its widget control is hidden (``server.features``).

What the pinned Codex does, asked of the binary (``codex app-server generate-json-schema`` and a
run on the local Responses stand-in): ``thread/revert`` replaces the thread's history with the
part before one turn and "does not revert local file changes"; ``thread/compact/start`` runs a
turn of its own holding one ``contextCompaction`` item; archiving unloads the thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import TurnError
from ..protocol.events import Event, PlanUpdate
from ..protocol.rewind import MAX_REWOUND_TURNS, ThreadRewound

MAX_THREAD_ID_CHARS = 200
"""A thread or turn id longer than this is refused before anything is sent (Codex's are 36)."""
MAX_THREAD_NAME_CHARS = 200
"""A thread's name is one line of at most this many characters."""
MAX_KNOWN_TURNS = 10_000
"""Turn ids (and their last plans) a thread keeps for ``rewind(turns=n)``, the newest."""
DEFAULT_COMPACT_TIMEOUT = 600.0
"""Seconds ``compact()`` waits for Codex's compaction turn to end (it samples the model)."""


def checked_id(value: object, what: str) -> str:
    """``value`` as a thread or turn id, or a one-line ``ValueError`` saying what was wrong."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string (as Codex gave it), got {value!r:.80}")
    if len(value) > MAX_THREAD_ID_CHARS or any(c.isspace() for c in value):
        raise ValueError(
            f"{what} {value[:40]!r}... is not an id Codex gives (one word of at most {MAX_THREAD_ID_CHARS} characters)"
        )
    return value


def checked_name(name: object) -> str:
    """``name`` as a thread's new name (stripped), or a one-line ``ValueError``."""
    if not isinstance(name, str):
        raise ValueError(f"a thread's name must be a string, got {type(name).__name__}")
    name = name.strip()
    if not name or "\n" in name or "\r" in name or len(name) > MAX_THREAD_NAME_CHARS:
        raise ValueError(
            f"a thread's name must be one non-empty line of at most {MAX_THREAD_NAME_CHARS} characters, "
            f"got {len(name)} characters{' with a line break' if chr(10) in name or chr(13) in name else ''}"
        )
    return name


@dataclass(frozen=True, kw_only=True)
class CompactionResult:
    """How Codex's compaction turn ended (``thread.compact()``)."""

    turn_id: str
    status: str
    """``completed`` | ``interrupted`` | ``failed``."""
    error: str | None = None
    turn: dict[str, Any] = field(default_factory=dict)
    """The raw ``Turn`` of its ``turn/completed``."""


class _Requests(Protocol):
    async def request_feature(self, method: str, params: dict[str, Any]) -> Any: ...


class SavedThreadVerbs:
    """``CodexAppServer``'s verbs on any thread of its Codex home, by id."""

    async def rename_thread(self: _Requests, thread_id: str, name: str) -> None:
        """``thread/name/set``: the name ``thread/list`` and Codex's own clients show."""
        body = {"threadId": checked_id(thread_id, "thread_id"), "name": checked_name(name)}
        await self.request_feature("thread/name/set", body)

    async def archive_thread(self: _Requests, thread_id: str) -> None:
        """``thread/archive``: move the thread out of ``thread/list`` (``archived=True`` lists it);
        Codex unloads it, so resume it before its next turn."""
        await self.request_feature("thread/archive", {"threadId": checked_id(thread_id, "thread_id")})

    async def unarchive_thread(self: _Requests, thread_id: str) -> dict[str, Any]:
        """``thread/unarchive``: back in ``thread/list``; returns the thread as Codex lists it."""
        answer = await self.request_feature("thread/unarchive", {"threadId": checked_id(thread_id, "thread_id")})
        thread = answer.get("thread") if isinstance(answer, dict) else None
        return thread if isinstance(thread, dict) else {}

    async def delete_thread(self: _Requests, thread_id: str) -> None:
        """``thread/delete``: remove the saved thread for good (its rollout files too)."""
        await self.request_feature("thread/delete", {"threadId": checked_id(thread_id, "thread_id")})


class ThreadHistoryVerbs:
    """``CodexThread``'s verbs on its own history and record: ``rewind``, ``compact``, ``rename``,
    ``archive``, ``unarchive``, ``delete``."""

    def _follow_turns(self: Any, info: dict[str, Any]) -> None:
        """Keep the thread's turn ids in order (``rewind(turns=n)`` counts back through them) and
        each turn's last plan (the checklist goes back to it after a rewind)."""
        self._known_turns = []
        self._turn_plans: dict[str, PlanUpdate] = {}
        turns = (info.get("thread") or {}).get("turns")
        for turn in turns if isinstance(turns, list) else []:
            if isinstance(turn, dict) and isinstance(turn.get("id"), str):
                self._known_turns.append(turn["id"])
        del self._known_turns[:-MAX_KNOWN_TURNS]
        self.subscribe(self._note_turn)

    def _note_turn(self: Any, event: Event) -> None:
        msg: Any = event.msg
        if msg.type == "turn_started" and msg.turn_id not in self._known_turns[-8:]:
            self._known_turns.append(msg.turn_id)
            if len(self._known_turns) > MAX_KNOWN_TURNS:
                gone = self._known_turns.pop(0)
                self._turn_plans.pop(gone, None)
        elif msg.type == "plan_update" and event.turn_id:
            self._turn_plans[event.turn_id] = msg

    @property
    def turn_ids(self: Any) -> list[str]:
        """The thread's turns codex_nb knows of, oldest first: those it ran or saw here and those
        ``thread/resume`` returned (a paginated thread returns none)."""
        return list(self._known_turns)

    def _refuse_while_running(self: Any, what: str) -> None:
        active = self.active_turn
        if active is not None:
            raise TurnError(
                f"turn {active.turn_id or '(starting)'} is still running on this thread; stop it or await it "
                f"before you {what}"
            )

    async def rewind(self: Any, turn_id: str | None = None, *, turns: int | None = None) -> ThreadRewound:
        """Undo the thread's history from ``turn_id`` on (that turn and every later one), or its
        last ``turns`` turns, with ``thread/revert``: the next turn's request no longer holds them.
        Files those turns changed are NOT restored (Codex's revert changes history only).

        Returns the ``thread_rewound`` event it published (the transcript, timeline and checklist
        follow it). Raises ``TurnError`` while a turn runs or when ``turns`` goes back further
        than the turns this thread knows (``turn_ids``), ``ValueError`` on a bad argument, and
        ``CodexVersionError`` on a release without ``thread/revert``."""
        if (turn_id is None) == (turns is None):
            raise ValueError("rewind() takes a turn_id or turns=n (how many of the last turns to undo), not both")
        self._refuse_while_running("rewind")
        known: list[str] = self._known_turns
        if turns is not None:
            if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
                raise ValueError(f"turns must be a whole number of turns, 1 or more, got {turns!r:.40}")
            if turns > len(known):
                raise TurnError(
                    f"cannot rewind {turns} turns: codex_nb knows {len(known)} turn(s) of this thread (those run or "
                    f"resumed here); pass the turn_id of the first turn to undo instead"
                )
            turn_id = known[-turns]
        before = checked_id(turn_id, "turn_id")
        answer = await self.server.request_feature(
            "thread/revert", {"threadId": self.thread_id, "beforeTurnId": before}
        )
        thread = answer.get("thread") if isinstance(answer, dict) else None
        if isinstance(thread, dict) and isinstance(thread.get("path"), str):
            self.path = thread["path"]  # Codex writes the rewound history to a new rollout file
        undone = known[known.index(before) :] if before in known else []
        if undone:
            del known[known.index(before) :]
        for gone in undone:
            self.turn_diffs.pop(gone, None)
        latest = self.latest_plan()
        plans_undone = latest is not None and latest.turn_id in undone
        for gone in undone:
            self._turn_plans.pop(gone, None)
        msg = ThreadRewound(
            before_turn_id=before,
            turn_ids=undone[:MAX_REWOUND_TURNS],
            more_turns=max(len(undone) - MAX_REWOUND_TURNS, 0),
        )
        self.emit(msg, turn_id=None)
        if plans_undone:
            # the checklist and a later one show the plan as the kept history left it
            kept = next((t for t in reversed(known) if t in self._turn_plans), None)
            plan = self._turn_plans[kept] if kept is not None else PlanUpdate(explanation=None, plan=[])
            self.emit(plan, turn_id=kept)
        return msg

    async def compact(self: Any, *, timeout: float = DEFAULT_COMPACT_TIMEOUT) -> CompactionResult:
        """Compact the thread's context (``thread/compact/start``) and wait for Codex's compaction
        turn to end; returns how that turn ended (the transcript shows it as a
        "context compacted" entry). Raises ``TurnError`` while a turn runs."""
        self._refuse_while_running("compact the thread")
        loop = asyncio.get_running_loop()
        started: asyncio.Future[str] = loop.create_future()

        def on_event(event: Event) -> None:
            if event.msg.type == "turn_started" and not started.done():
                started.set_result(getattr(event.msg, "turn_id", None) or event.turn_id or "")

        unsubscribe = self.subscribe(on_event)
        try:
            await self.server.request_feature("thread/compact/start", {"threadId": self.thread_id})
            async with asyncio.timeout(timeout):
                turn_id = await started
                waiter = self._completions.setdefault(turn_id, loop.create_future())
                turn = await asyncio.shield(waiter)
        except TimeoutError:
            raise TurnError(
                f"Codex did not finish compacting thread {self.thread_id} within {timeout:g} s; "
                f"see its transcript, or pass a longer timeout="
            ) from None
        finally:
            unsubscribe()
        return CompactionResult(
            turn_id=turn_id,
            status=str(turn.get("status") or "failed"),
            error=(turn.get("error") or {}).get("message"),
            turn=turn,
        )

    async def rename(self: Any, name: str) -> None:
        """``thread/name/set`` on this thread (see ``CodexAppServer.rename_thread``)."""
        await self.server.rename_thread(self.thread_id, name)

    async def archive(self: Any) -> None:
        """``thread/archive`` on this thread; Codex unloads it (resume it to run turns again)."""
        self._refuse_while_running("archive the thread")
        await self.server.archive_thread(self.thread_id)

    async def unarchive(self: Any) -> dict[str, Any]:
        """``thread/unarchive`` on this thread; returns it as Codex lists it."""
        found: dict[str, Any] = await self.server.unarchive_thread(self.thread_id)
        return found

    async def delete(self: Any) -> None:
        """``thread/delete`` on this thread: gone for good, rollout files and all."""
        self._refuse_while_running("delete the thread")
        await self.server.delete_thread(self.thread_id)


__all__ = [
    "CompactionResult",
    "MAX_KNOWN_TURNS",
    "MAX_THREAD_NAME_CHARS",
    "SavedThreadVerbs",
    "ThreadHistoryVerbs",
    "checked_id",
    "checked_name",
]
