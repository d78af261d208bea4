"""A real Codex thread's history read page by page: the newest turns first, older ones on demand.

Codex stores a thread's history in pages (``thread/read`` says ``historyMode: "paginated"``: an
index of its turns and items beside the rollout) and serves them with ``thread/turns/list``
(newest first by default, ``cursor`` / ``nextCursor``). Reading a thread whole (``thread/resume``
or ``thread/read`` with its turns) costs time and memory in proportion to its length, so a resumed,
forked or browsed thread opens with one page (``ThreadHistory.newest``) and loads older ones when
asked (``ThreadHistory.older``, the "Load older turns" button). Each page's turns become the same
``SavedTurn`` s a rollout read gives (``saved_turn``), so the transcript shows them unchanged.

Nothing a peer sends is unbounded here: a page keeps at most ``page_size`` turns (``MAX_PAGE_TURNS``
at most) of at most ``MAX_TURN_ITEMS`` items each; a history stops at ``max_turns`` turns, at a
cursor it has already followed, at a page that adds no new turn, and after ``budget`` seconds of
paging, and says why in ``note``. A release or build without ``thread/turns/list`` gets the old whole
read (``thread/read`` with its turns), of which the newest ``WHOLE_TURNS`` are kept, said likewise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import CodexNbError
from ..protocol.events import AgentMessage, Event, EventMsg, ItemCompleted, TurnStarted, UserMessage
from ..rollouts.rollout_replay import SavedTurn
from .notifications import turn_end_events

PAGE_TURNS = 20
"""Turns one page asks for by default: enough to fill the transcript's view."""
MAX_PAGE_TURNS = 200
"""The most turns a page asks for and keeps (a bigger page from the server is cut to its newest)."""
MAX_TURNS = 2_000
"""The most turns a ``ThreadHistory`` loads in all (older ones are left, and ``note`` says so)."""
MAX_TURN_ITEMS = 500
"""The most items of one turn kept (its newest); the transcript keeps its own bound after that."""
HISTORY_BUDGET = 30.0
"""Seconds a ``read_all`` may page before it stops with what it has."""
WHOLE_TURNS = 200
"""Turns kept (the newest) from the whole read of a Codex that cannot page its history."""
PAGED_METHOD = "thread/turns/list"


class HistoryError(CodexNbError):
    """A history page that cannot be read (the server's answer is not a page of turns)."""


class _Server(Protocol):
    @property
    def features(self) -> dict[str, bool]: ...

    async def request(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any: ...

    async def request_feature(self, method: str, params: dict[str, Any]) -> Any: ...


def _text_of(content: Any) -> str:
    parts = content if isinstance(content, list) else []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text")


def saved_turn(thread_id: str, turn: dict[str, Any]) -> SavedTurn:
    """One v2 ``Turn`` (``thread/turns/list``, ``thread/read``) as the transcript shows a saved turn:
    the person's words, the assistant's, each other item as a completed item (tool calls become
    tool entries), then how the turn ended as a live ``turn/completed`` says it."""
    turn_id = str(turn.get("id") or "")
    raw = turn.get("items")
    items = [i for i in raw if isinstance(i, dict)] if isinstance(raw, list) else []
    msgs: list[EventMsg] = [TurnStarted(turn_id=turn_id)]
    prompt: str | None = None
    for item in items[-MAX_TURN_ITEMS:]:
        kind = item.get("type")
        if kind == "userMessage":
            said = _text_of(item.get("content"))
            if said:
                prompt = prompt if prompt is not None else said
                msgs.append(UserMessage(message=said))
        elif kind == "agentMessage":
            msgs.append(AgentMessage(message=str(item.get("text") or "")))
        elif kind != "reasoning":
            msgs.append(ItemCompleted(thread_id=thread_id, turn_id=turn_id, item=item, completed_at_ms=0))
    status = {"inProgress": "running"}.get(str(turn.get("status")), str(turn.get("status") or "completed"))
    if status != "running":
        msgs += turn_end_events({**turn, "id": turn_id, "status": status}, error_seen=False)
    events = [Event(id=turn_id, msg=msg, thread_id=thread_id, turn_id=turn_id) for msg in msgs]
    return SavedTurn(turn_id=turn_id, status=status, prompt=prompt, events=events)


@dataclass(kw_only=True)
class HistoryPage:
    """What one read added: its turns (oldest first, as the transcript shows them)."""

    turns: list[SavedTurn]
    more: bool
    """True while older turns may remain (``ThreadHistory.older`` reads them)."""
    note: str = ""
    """Why the history stopped or what was cut, in words; "" when nothing was."""


class ThreadHistory:
    """The history of thread ``thread_id`` as loaded so far, newest page first.

    ``await history.newest()`` reads the first page, ``await history.older()`` the next older one
    (each returns a ``HistoryPage``); ``turns`` holds every turn loaded, oldest first."""

    def __init__(
        self,
        server: _Server,
        thread_id: str,
        *,
        page_size: int = PAGE_TURNS,
        max_turns: int = MAX_TURNS,
        budget: float = HISTORY_BUDGET,
        items_view: str = "full",
    ) -> None:
        for name, value in (("page_size", page_size), ("max_turns", max_turns)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} is a number of turns: an int >= 1, got {value!r}")
        if not isinstance(budget, (int, float)) or isinstance(budget, bool) or budget <= 0:
            raise ValueError(f"budget is seconds of paging: a number > 0, got {budget!r}")
        self.server = server
        self.thread_id = thread_id
        self.page_size = min(page_size, MAX_PAGE_TURNS)
        self.max_turns = max_turns
        self.budget = float(budget)
        self.items_view = items_view
        self.turns: list[SavedTurn] = []
        """Every turn loaded so far, oldest first."""
        self.more = True
        """True while older turns may remain."""
        self.note = ""
        """Why the history stopped short, or what was cut (the latest read's), in words."""
        self.paged: bool | None = None
        """True once read by pages; False when this Codex could not page (the whole read); None before."""
        self.pages = 0
        self._cursor: str | None = None
        self._followed: set[str] = set()
        self._seen: set[str] = set()

    @property
    def loaded(self) -> int:
        """Turns loaded so far."""
        return len(self.turns)

    async def newest(self) -> HistoryPage:
        """The newest page (read once; later calls return what is loaded, as one page)."""
        if self.paged is None:
            return await self._read()
        return HistoryPage(turns=list(self.turns), more=self.more, note=self.note)

    async def older(self) -> HistoryPage:
        """The next older page (none once ``more`` is False: an empty page with the reason)."""
        if self.paged is None:
            return await self._read()
        if not self.more:
            return HistoryPage(turns=[], more=False, note=self.note)
        return await self._read()

    async def read_all(self) -> list[SavedTurn]:
        """Page until the history ends, ``max_turns`` turns are loaded or ``budget`` seconds have
        passed (``note`` says which); every turn loaded, oldest first."""
        deadline = time.monotonic() + self.budget
        await self.newest()
        while self.more:
            if time.monotonic() >= deadline:
                self.note = (
                    f"stopped after {self.budget:g} s of paging with {self.loaded} turn(s) loaded; "
                    f"older ones are not (ThreadHistory(budget=...) allows more)"
                )
                break
            await self.older()
        return list(self.turns)

    async def _read(self) -> HistoryPage:
        if self.paged is None and not self.server.features.get("thread history pages", True):
            return await self._whole()
        params: dict[str, Any] = {
            "threadId": self.thread_id,
            "limit": min(self.page_size, self.max_turns - self.loaded),
            "sortDirection": "desc",
            "itemsView": self.items_view,
        }
        if self._cursor is not None:
            params["cursor"] = self._cursor
        from .binary import CodexVersionError

        try:
            answer = await self.server.request_feature(PAGED_METHOD, params)
        except CodexVersionError:
            if self.paged is None:
                return await self._whole()
            raise
        self.paged = True
        self.pages += 1
        return self._page(answer, params["limit"])

    def _page(self, answer: Any, limit: int) -> HistoryPage:
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list):
            raise HistoryError(
                f"{PAGED_METHOD} answered something that is not a page of turns "
                f"({type(answer).__name__} without a 'data' list); the history cannot be read from this server"
            )
        notes: list[str] = []
        if len(data) > limit:
            notes.append(f"Codex sent {len(data)} turns for a page of {limit}; the newest {limit} were kept")
            data = data[:limit]
        fresh = []
        for turn in data:  # newest first
            turn_id = turn.get("id") if isinstance(turn, dict) else None
            if not isinstance(turn_id, str) or not turn_id or turn_id in self._seen:
                continue
            self._seen.add(turn_id)
            fresh.append(saved_turn(self.thread_id, turn))
        fresh.reverse()
        self.turns[:0] = fresh
        cursor = answer.get("nextCursor")
        self.more = isinstance(cursor, str) and bool(cursor)
        if self.more and cursor in self._followed:
            self.more = False
            notes.append("Codex gave a cursor it had given before; paging stopped there")
        elif self.more and not fresh:
            self.more = False
            notes.append("a page held no turn not already loaded; paging stopped there")
        elif self.more and self.loaded >= self.max_turns:
            self.more = False
            notes.append(f"the newest {self.max_turns} turns are loaded; older ones are not (max_turns)")
        if self.more:
            assert isinstance(cursor, str)
            self._followed.add(cursor)
            self._cursor = cursor
        self.note = "; ".join(notes)
        return HistoryPage(turns=fresh, more=self.more, note=self.note)

    async def _whole(self) -> HistoryPage:
        """The old whole read (``thread/read`` with its turns), of which the newest ``WHOLE_TURNS``
        (or ``max_turns``, if fewer) are kept."""
        self.paged = False
        answer = await self.server.request("thread/read", {"threadId": self.thread_id, "includeTurns": True})
        thread = answer.get("thread") if isinstance(answer, dict) else None
        turns = thread.get("turns") if isinstance(thread, dict) else None
        if not isinstance(turns, list):
            raise HistoryError("thread/read answered no list of turns; the history cannot be read from this server")
        keep = min(WHOLE_TURNS, self.max_turns)
        kept = [t for t in turns[-keep:] if isinstance(t, dict) and isinstance(t.get("id"), str)]
        self.turns = [saved_turn(self.thread_id, t) for t in kept]
        self._seen = {t.turn_id for t in self.turns}
        self.more = False
        left = len(turns) - min(len(turns), keep)
        self.note = (
            f"this Codex cannot page its history, so it was read whole; {left} older turn(s) are not shown "
            f"(the newest {keep} are)"
            if left
            else ""
        )
        return HistoryPage(turns=list(self.turns), more=False, note=self.note)

    def __repr__(self) -> str:
        more = "more" if self.more else "all" if not self.note else "stopped"
        return f"<ThreadHistory {self.thread_id} {self.loaded} turn(s) loaded, {more}>"
