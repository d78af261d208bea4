"""The broker between tools that wait for a person and whoever answers them, so a
handler never knows whether a widget, a policy or Python code answered.

A handler ``open``s a request, emits its event, then ``wait``s. Every request settles
exactly once: an answer (widget, policy, Python call), an auto-resolution, a
replacement, a cancel (turn abort) or "unanswerable" (no frontend, no policy). The
settled value travels to the kernel loop through ``loop.call_soon_threadsafe`` because
widget message handlers may run on another thread. Settled requests leave ``pending``
at once and listeners (widgets) are told; a second answer for the same id is an
``AnswerError`` naming the id and what happened to it.
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..errors import AnswerError
from .record import ApprovalRecord, Approvals, summarize

if TYPE_CHECKING:
    from ..protocol.frontend import (
        ApplyPatchApprovalRequestEvent,
        ElicitationRequestEvent,
        ExecApprovalRequestEvent,
        PermissionProfile,
        RequestPermissionsEvent,
        RequestUserInputEvent,
    )

    RequestMsg = (
        RequestUserInputEvent
        | RequestPermissionsEvent
        | ExecApprovalRequestEvent
        | ApplyPatchApprovalRequestEvent
        | ElicitationRequestEvent
    )
    """The event that asks: a question, a permissions request, a command / file-change approval or
    an MCP elicitation."""

log = logging.getLogger("codex_nb.frontend_requests")

EMPTY_ANSWERS: dict[str, Any] = {"answers": {}}
OTHER_LABEL = "None of the above"
NOTE_PREFIX = "user_note: "
VIEW_GRACE_SECONDS = 10.0
"""How long a request waits for a displayed prompts widget to render before failing."""

Timer = Callable[[float, Callable[[], None]], Callable[[], None]]
"""``timer(delay_seconds, callback) -> cancel``; the default uses ``loop.call_later``."""


class RequestKind(StrEnum):
    USER_INPUT = "user_input"
    PERMISSIONS = "permissions"
    APPROVAL = "approval"
    """A command or file-change approval (the real Codex's app-server asks these)."""
    ELICITATION = "elicitation"
    """An MCP server's form or URL elicitation."""


class Outcome(StrEnum):
    ANSWERED = "answered"
    POLICY = "policy"
    AUTO_RESOLVED = "auto_resolved"
    REPLACED = "replaced"
    CANCELLED = "cancelled"
    UNANSWERABLE = "unanswerable"


@dataclass(kw_only=True)
class Settlement:
    outcome: Outcome
    response: Any = None
    """The normalized wire response (dict), or for UNANSWERABLE the message."""
    by: str = "python"
    """Who settled it, as the approvals record says (``widget``, ``python``, ``policy``, ``timeout``...)."""
    policy: str | None = None


@dataclass(kw_only=True, eq=False)
class FrontendRequest:
    """One pending question or permission request."""

    id: str
    kind: RequestKind
    turn_id: str
    call_id: str
    msg: RequestMsg
    created_at: float
    future: asyncio.Future[Settlement]
    loop: asyncio.AbstractEventLoop
    settled: Settlement | None = None
    _cancel_timers: list[Callable[[], None]] = field(default_factory=list)
    reroute: Callable[[], None] | None = None
    """Called (on ``loop``) when the last ready frontend goes away while this request waits for a
    person: the asking tool routes it again (a policy, or the fail-fast message)."""
    check: Callable[[dict[str, Any]], None] | None = None
    """The asker's own check of a normalized answer (an ACP agent's form: each field's type and
    bounds), run before the answer settles the request; it raises ``AnswerError`` naming what is wrong."""

    @property
    def deadline(self) -> float | None:
        auto = getattr(self.msg, "autoResolutionMs", None)
        return None if auto is None else self.created_at + auto / 1000

    def view(self) -> dict[str, Any]:
        """The JSON the prompts widget shows (synced trait entry)."""
        deadline = self.deadline
        view = {
            "id": self.id,
            "kind": self.kind.value,
            "turn_id": self.turn_id,
            "call_id": self.call_id,
            "request": self.msg.to_wire(),
            "deadline_ms": None if deadline is None else int(deadline * 1000),
        }
        # A source may say more than Codex's payload (an ACP permission request's paths, command and
        # diffs): a ``details`` field of its event class, kept out of the wire form, bounded JSON.
        if "details" in type(self.msg).model_fields:
            details = getattr(self.msg, "details")  # noqa: B009  only some members of the msg union have it
            if details is not None:
                view["details"] = details
        return view

    def __repr__(self) -> str:
        state = "pending" if self.settled is None else self.settled.outcome.value
        return f"<FrontendRequest {self.id} {self.kind.value} call={self.call_id} {state}>"


class FrontendRequests:
    """Pending frontend requests of one session, keyed by request id."""

    def __init__(self, *, timer: Timer | None = None, view_grace: float = VIEW_GRACE_SECONDS) -> None:
        self._lock = threading.RLock()
        self._pending: dict[str, FrontendRequest] = {}
        self._history: dict[str, Outcome] = {}
        self._ids = itertools.count(1)
        self._listeners: list[Callable[[], object]] = []
        self._timer = timer
        self.view_grace = view_grace
        self.frontends: list[Any] = []
        """Attached prompt widgets (objects with ``alive`` and ``ready`` attributes)."""
        self.env_policy_cache: dict[str, Any] = {}
        self._session_grants: PermissionProfile | None = None
        self.answer_policy: Any = None
        """Who answers without a person (see ``frontend.answer_policy.AnswerPolicy.from_value``)."""
        self.approvals = Approvals()
        """Every settled request, its answer and who gave it (``session.approvals``)."""

    @property
    def session_grants(self) -> PermissionProfile:
        """Permissions granted at ``session`` scope (request_permissions); none at first."""
        if self._session_grants is None:
            # made on first use: the permission models (and their validators) are built only
            # once a session deals with permissions, not by every Session()
            from ..protocol.frontend import PermissionProfile

            self._session_grants = PermissionProfile()
        return self._session_grants

    @session_grants.setter
    def session_grants(self, grants: PermissionProfile) -> None:
        self._session_grants = grants

    # -- observers ---------------------------------------------------------------------
    def add_listener(self, fn: Callable[[], object]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(fn)
        return lambda: self._remove_listener(fn)

    def _remove_listener(self, fn: Callable[[], object]) -> None:
        with self._lock:
            if fn in self._listeners:
                self._listeners.remove(fn)

    def _notify(self) -> None:
        for fn in list(self._listeners):
            try:
                fn()
            except Exception:  # a broken widget must not break the turn  # noqa: BLE001
                self._remove_listener(fn)

    @property
    def pending(self) -> list[FrontendRequest]:
        with self._lock:
            return list(self._pending.values())

    async def next_pending(self) -> FrontendRequest:
        """The oldest pending request, waiting (event-driven, no polling) until there is one."""
        changed = asyncio.Event()
        loop = asyncio.get_running_loop()
        remove = self.add_listener(lambda: loop.call_soon_threadsafe(changed.set))
        try:
            while not self.pending:
                changed.clear()
                await changed.wait()
            return self.pending[0]
        finally:
            remove()

    def get(self, request_id: str) -> FrontendRequest | None:
        with self._lock:
            return self._pending.get(request_id)

    def outcome(self, request_id: str) -> Outcome | None:
        """How a past request settled (``None`` if unknown or still pending)."""
        with self._lock:
            return self._history.get(request_id)

    # -- frontends ---------------------------------------------------------------------
    def attach(self, frontend: Any) -> Callable[[], None]:
        with self._lock:
            self.frontends.append(frontend)
        return lambda: self.detach(frontend)

    def detach(self, frontend: Any) -> None:
        with self._lock:
            if frontend not in self.frontends:
                return
            self.frontends.remove(frontend)
            waiting = [r for r in self._pending.values() if r.reroute is not None]
        self.frontends_changed(waiting)

    def frontends_changed(self, waiting: list[FrontendRequest] | None = None) -> None:
        """A frontend closed or lost its view: requests left with nobody to answer them fall back
        to the headless policy or the fail-fast message, as if no widget had been shown."""
        if self.frontend_state() == "ready":
            return
        if waiting is None:
            with self._lock:
                waiting = [r for r in self._pending.values() if r.reroute is not None]
        for request in waiting:
            reroute, request.reroute = request.reroute, None
            if reroute is not None and request.settled is None and not request.loop.is_closed():
                request.loop.call_soon_threadsafe(reroute)

    def frontend_state(self) -> str:
        """``ready`` (a view rendered), ``displayed`` (comm open, no view yet) or ``none``."""
        with self._lock:
            alive = [f for f in self.frontends if getattr(f, "alive", False)]
        if any(getattr(f, "ready", False) for f in alive):
            return "ready"
        return "displayed" if alive else "none"

    # -- lifecycle of one request --------------------------------------------------------
    def open(self, kind: RequestKind, *, turn_id: str, call_id: str, msg: RequestMsg) -> FrontendRequest:
        """Register a request (on the loop thread). A user-input request replaces an older
        one of the same turn: Codex keys that waiter by turn id, not call id."""
        loop = asyncio.get_running_loop()
        with self._lock:
            request = FrontendRequest(
                id=f"req-{next(self._ids)}",
                kind=kind,
                turn_id=turn_id,
                call_id=call_id,
                msg=msg,
                created_at=time.time(),
                future=loop.create_future(),
                loop=loop,
            )
            older = [
                r
                for r in self._pending.values()
                if kind == RequestKind.USER_INPUT and r.kind == kind and r.turn_id == turn_id
            ]
            self._pending[request.id] = request
        for old in older:
            log.warning(
                "request_user_input %s (call %s) replaced by a newer question of turn %s", old.id, old.call_id, turn_id
            )
            self._settle(old, Settlement(outcome=Outcome.REPLACED, by="replaced"))
        if request.deadline is not None:
            auto_ms = getattr(msg, "autoResolutionMs")  # noqa: B009  only the user-input member of the msg union has it (a deadline implies it)

            def auto_resolve() -> None:
                self.auto_resolve(request.id)

            request._cancel_timers.append(self._schedule(loop, auto_ms / 1000, auto_resolve))
        self._notify()
        return request

    def _schedule(self, loop: asyncio.AbstractEventLoop, delay: float, fn: Callable[[], None]) -> Callable[[], None]:
        if self._timer is not None:
            return self._timer(delay, fn)
        handle = loop.call_later(delay, fn)
        return handle.cancel

    def start_view_grace(self, request: FrontendRequest, message: str) -> None:
        """A widget is displayed but no view rendered yet: fail after ``view_grace`` seconds."""

        def expire() -> None:
            if self.frontend_state() != "ready":
                self.fail(request.id, message)

        request._cancel_timers.append(self._schedule(request.loop, self.view_grace, expire))

    async def wait(self, request: FrontendRequest) -> Settlement:
        """Await the settlement; if the waiting call is cancelled, the request is cancelled."""
        try:
            return await request.future
        finally:
            if request.settled is None or not request.future.done():
                self._settle(request, Settlement(outcome=Outcome.CANCELLED, by="cancelled"))
                request.future.cancel()

    # -- settling ------------------------------------------------------------------------
    def _settle(self, request: FrontendRequest, settlement: Settlement) -> bool:
        with self._lock:
            if request.settled is not None:
                return False
            request.settled = settlement
            self._pending.pop(request.id, None)
            self._history[request.id] = settlement.outcome
            timers, request._cancel_timers = request._cancel_timers, []
            self.approvals.add(_record(request, settlement))
        for cancel in timers:
            cancel()

        def deliver() -> None:
            if not request.future.done():
                request.future.set_result(settlement)

        try:
            request.loop.call_soon_threadsafe(deliver)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass
        self._notify()
        return True

    def _claim(self, request_id: Any) -> FrontendRequest:
        if not isinstance(request_id, str):
            raise AnswerError(f"request id must be a string, got {type(request_id).__name__}")
        with self._lock:
            request = self._pending.get(request_id)
            past = self._history.get(request_id)
        if request is not None:
            return request
        if past is not None:
            raise AnswerError(f"request {request_id} was already settled ({past.value}); this answer is ignored")
        raise AnswerError(f"unknown request id {request_id!r}; pending ids: {sorted(self._pending) or 'none'}")

    def answer(
        self,
        request_id: str,
        response: Any,
        *,
        outcome: Outcome = Outcome.ANSWERED,
        by: str = "python",
        policy: str | None = None,
    ) -> FrontendRequest:
        """Answer a pending request (any thread). ``response`` for a question: the wire
        ``{"answers": {qid: {"answers": [...]}}}`` or ``{qid: "label" | [strings]}``; for a
        permission request: ``"allow_turn"``, ``"allow_session"``, ``"deny"`` or the wire
        ``{"permissions": {...}, "scope": "turn" | "session"}``; for an approval: one of the
        offered decisions (``"approve"``, ``"cancel"``...); for an elicitation: ``"accept"``,
        ``"decline"``, ``"cancel"`` or ``{"action": "accept", "content": {...}}``. ``by`` is who
        answered, for the approvals record."""
        request = self._claim(request_id)
        from .normalize import normalize_answer

        normalized = normalize_answer(request, response)
        if request.check is not None:
            request.check(normalized)
        settlement = Settlement(outcome=outcome, response=normalized, by=by, policy=policy)
        if not self._settle(request, settlement):
            raise AnswerError(
                f"request {request_id} was already settled "
                f"({request.settled.outcome.value if request.settled else '?'}); this answer is ignored"
            )
        return request

    def answer_user_input(self, turn_id: str, response: Any) -> FrontendRequest:
        """Codex ``Op::UserInputAnswer{id: turn_id}``: answer the turn's pending question."""
        return self.answer(self._by(RequestKind.USER_INPUT, "turn_id", turn_id), response)

    def answer_permissions(self, call_id: str, response: Any) -> FrontendRequest:
        """Codex ``Op::RequestPermissionsResponse{id: call_id}``."""
        return self.answer(self._by(RequestKind.PERMISSIONS, "call_id", call_id), response)

    def _by(self, kind: RequestKind, attr: str, value: str) -> str:
        with self._lock:
            for request in self._pending.values():
                if request.kind == kind and getattr(request, attr) == value:
                    return request.id
        raise AnswerError(f"no pending {kind.value} request with {attr} {value!r}")

    def auto_resolve(self, request_id: str) -> bool:
        """``autoResolutionMs`` elapsed: settle with ``{"answers":{}}``, what the Codex TUI submits."""
        request = self.get(request_id)
        if request is None:
            return False
        return self._settle(
            request, Settlement(outcome=Outcome.AUTO_RESOLVED, response=dict(EMPTY_ANSWERS), by="timeout")
        )

    def fail(self, request_id: str, message: str, *, by: str = "nobody") -> bool:
        """Settle as unanswerable (``by="policy"`` when an answer policy gave an unusable answer)."""
        request = self.get(request_id)
        if request is None:
            return False
        return self._settle(request, Settlement(outcome=Outcome.UNANSWERABLE, response=message, by=by))

    def cancel(self, request_id: str, *, by: str = "cancelled") -> bool:
        """Settle as cancelled; ``by="server"`` when the asking server closed the request itself."""
        request = self.get(request_id)
        return request is not None and self._settle(request, Settlement(outcome=Outcome.CANCELLED, by=by))

    def record_unshown(
        self, kind: RequestKind, *, turn_id: str, call_id: str, request: dict[str, Any], answer: Any, reason: str
    ) -> None:
        """Record a request codex_nb answered itself without showing it (an elicitation whose
        form cannot be shown whole is declined): the record says so, with the reason."""
        now = datetime.datetime.now(datetime.UTC)
        with self._lock:
            self.approvals.add(
                ApprovalRecord(
                    request_id=f"req-{next(self._ids)}",
                    kind=kind.value,
                    turn_id=turn_id,
                    call_id=call_id,
                    summary=f"not shown: {reason}",
                    request=request,
                    answer=answer,
                    outcome=Outcome.UNANSWERABLE.value,
                    answered_by="codex_nb",
                    policy=None,
                    asked_at=now,
                    answered_at=now,
                )
            )

    def cancel_turn(self, turn_id: str) -> int:
        """Cancel every pending request of a turn; returns how many."""
        return sum(self.cancel(r.id) for r in self.pending if r.turn_id == turn_id)

    def cancel_all(self) -> int:
        """Cancel every pending request (the source is closing); returns how many."""
        return sum(self.cancel(r.id) for r in self.pending)


def _record(request: FrontendRequest, settlement: Settlement) -> ApprovalRecord:
    wire = request.msg.to_wire()
    answered = settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY, Outcome.AUTO_RESOLVED)
    return ApprovalRecord(
        request_id=request.id,
        kind=request.kind.value,
        turn_id=request.turn_id,
        call_id=request.call_id,
        summary=summarize(request.kind.value, wire),
        request=wire,
        answer=settlement.response if answered else None,
        outcome=settlement.outcome.value,
        answered_by=settlement.by,
        policy=settlement.policy,
        asked_at=datetime.datetime.fromtimestamp(request.created_at, datetime.UTC),
        answered_at=datetime.datetime.now(datetime.UTC),
    )


def __getattr__(name: str) -> Any:
    # RequestMsg is a union of the request events: built on first use, so importing this module
    # (every Session does) does not create the request and permission models.
    if name == "RequestMsg":
        from ..protocol import frontend

        return (
            frontend.RequestUserInputEvent
            | frontend.RequestPermissionsEvent
            | frontend.ExecApprovalRequestEvent
            | frontend.ApplyPatchApprovalRequestEvent
            | frontend.ElicitationRequestEvent
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
