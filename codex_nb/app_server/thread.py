"""``CodexThread``: one real Codex thread as a codex_nb event source.

It implements what the widgets need (``thread_id``, ``subscribe``, ``latest_plan``,
``interrupt``, ``frontend_requests``, ``active_turn``) and the person's verbs of
``cx.AgentSource`` (``capabilities``, ``start_turn``, ``send_during_turn``), reusing codex_nb's ``EventBus``
and ``FrontendRequests``, so ``PlanChecklist``, ``TurnControls`` and ``PromptsWidget``
work on it unchanged. Turns start in the background like ``Session.start_turn``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._start_gate import StartGate
from .._interrupt import await_interruptibly
from ..errors import TurnError
from ..protocol.auto_review import MAX_OVERRIDE_ACTION_CHARS, AutoApprovalReview
from ..protocol.capabilities import Capabilities, Sent, SessionVerb
from ..protocol.events import ErrorEvent, Event, EventMsg, TurnComplete, UserMessage, WarningEvent
from ..protocol.goal import ThreadGoal
from ..protocol.model_stream import TokenCount, TokenUsage
from ..protocol.thread_state import (
    QueueChanged,
    ThreadSettings,
    ThreadSettingsUpdated,
    ThreadStateError,
    ThreadStatus,
    ThreadStatusChanged,
    response_settings,
    thread_status,
)
from ..protocol.turn_diff import TurnDiff
from ..events.bus import EventBus
from ..events.source import BusEventSource
from ..events.turn_log import TurnEventLog
from ..frontend.requests import FrontendRequests
from .app_server_errors import AppServerError
from .goal_run import GOAL_IDLE_TIMEOUT, GoalRunResult, GoalRuns
from .notifications import notification_events, plan_update, turn_end_events
from .server_requests import ServerRequests
from .thread_verbs import ThreadHistoryVerbs

log = logging.getLogger("codex_nb.app_server.thread")


class _Server(Protocol):
    """What a thread needs from its ``CodexAppServer``."""

    interrupt_timeout: float

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    async def request(self, method: str, params: dict[str, Any], *, timeout: float | None = None) -> Any: ...

    async def request_feature(self, method: str, params: dict[str, Any]) -> Any: ...

    @property
    def version(self) -> str | None: ...

    async def kill(self, reason: str) -> int | None: ...

    def check_open(self) -> None: ...

    def connection_respond(self, rpc_id: Any, result: Any, *, method: str) -> None: ...

    def connection_respond_error(self, rpc_id: Any, code: int, message: str) -> None: ...


MODES = ("default", "plan")


@dataclass(kw_only=True)
class AppServerTurnResult:
    """What ``await handle`` gives: like ``cx.TurnResult`` for a real Codex turn."""

    turn_id: str
    status: str
    """``completed`` | ``interrupted`` | ``failed``."""
    items: list[dict[str, Any]] = field(default_factory=list)
    """The turn's v2 ``ThreadItem``s from ``turn/completed``."""
    events: list[Event] = field(default_factory=list)
    dropped_deltas: int = 0
    """Text and reasoning delta events not kept in ``events`` (past the first 10,000: the completed
    message holds their text; subscribers saw every one)."""
    error: str | None = None
    turn: dict[str, Any] = field(default_factory=dict)
    """The raw ``Turn`` of ``turn/completed``."""
    token_usage: TokenUsage | None = None
    """The turn's token usage: the thread's total after it less the total before it (Codex may
    repeat a report, so its ``last`` figures are not summed); None if Codex reported none."""
    diff: TurnDiff | None = None
    """The turn's whole diff, as Codex's last ``turn/diff/updated`` of it said; None if it changed
    no file (or Codex sent no diff)."""


MAX_TURN_DIFFS = 100
"""Turns whose latest diff a thread keeps (the newest)."""
MAX_AUTO_REVIEWS = 1000
"""Automatic reviews a thread keeps in ``auto_reviews`` (the newest)."""


def _since(total: TokenUsage, before: TokenUsage | None) -> TokenUsage:
    """``total`` less ``before``, figure by figure (never below zero)."""
    if before is None:
        return total
    return TokenUsage(
        **{name: max(getattr(total, name) - getattr(before, name), 0) for name in type(total).model_fields}
    )


class _Cancel:
    """What ``TurnControls`` reads from a handle's turn: has a Stop been accepted?"""

    def __init__(self) -> None:
        self.cancelled = False


class _TurnView:
    def __init__(self) -> None:
        self.turn_id = ""
        self.cancel = _Cancel()


class AppServerTurnHandle:
    """A running real-Codex turn. ``await handle`` gives an ``AppServerTurnResult``."""

    def __init__(self, thread: CodexThread) -> None:
        self.thread = thread
        self.turn = _TurnView()
        self.started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        """Resolves to the turn id once ``turn/start`` was accepted."""
        self.task: asyncio.Task[AppServerTurnResult] | None = None
        self.prompt: str | None = None
        """The person's text, shown (a ``user_message``) once Codex says the turn started; then None."""
        self.killed: str | None = None
        """Why codex_nb killed the server for this turn (it did not answer ``turn/start`` after a Stop)."""

    @property
    def turn_id(self) -> str:
        """The turn's id as Codex gave it in the ``turn/start`` response; "" until then (``await
        handle.started`` waits for it)."""
        return self.turn.turn_id

    def done(self) -> bool:
        """True once the turn's task has finished: ``await handle`` returns (or raises) at once."""
        return self.task is not None and self.task.done()

    def interrupt(self) -> bool:
        """Send ``turn/interrupt`` (from any thread; never blocks). False if already ended or stopping."""
        if self.done() or self.turn.cancel.cancelled:
            return False
        self.turn.cancel.cancelled = True
        loop = self.thread.server.loop
        try:
            loop.call_soon_threadsafe(self.thread._send_interrupt, self)
        except RuntimeError:
            return False
        return True

    async def steer(self, text: str) -> None:
        """Add input to this running turn (``turn/steer`` with this turn as the precondition)."""
        await self.thread._steer(self, text)

    def __await__(self) -> Generator[Any, None, AppServerTurnResult]:
        assert self.task is not None
        if self.task.done():
            return self.task.__await__()
        # the kernel's interrupt button stops the turn as Stop does (see codex_nb._interrupt)
        return await_interruptibly(
            self.task, interrupt=self.interrupt, what=f"Codex turn {self.turn_id or '(starting)'}"
        ).__await__()

    def __repr__(self) -> str:
        return f"<AppServerTurnHandle {self.turn_id or '(starting)'} {'done' if self.done() else 'running'}>"


CODEX_CAPABILITIES = Capabilities(
    agent="Codex",
    runs_turns=True,
    mid_turn="steer",
    turn_ids="later",
    modes=MODES,
    answers=True,
    interrupt=True,
    images="input_items",
    usage=True,
    plan_notification="turn/plan/updated",
    no_plan_line="Codex sent no turn/plan/updated",
)
"""What a real Codex thread offers: ``turn/steer``, Plan mode, questions and approvals, images, Stop;
it samples its own model, and a turn's id comes with Codex's answer to ``turn/start``."""

_SESSION_VERBS: tuple[tuple[SessionVerb, str | None], ...] = (
    ("list", "thread/list"),
    ("resume", None),
    ("fork", "thread/fork"),
)
"""Each saved-thread verb and the feature of ``server.features`` it needs (None: every release)."""


class CodexThread(ThreadHistoryVerbs, BusEventSource):
    """A thread of a running ``CodexAppServer``; make it with ``server.start_thread()``."""

    def __init__(self, server: _Server, info: dict[str, Any], *, mode: str | None = "default") -> None:
        thread = info["thread"]
        self.server = server
        self.thread_id: str = thread["id"]
        self.info = info
        """The ``thread/start`` (or ``thread/resume``) response."""
        self.model: str | None = info.get("model")
        self.path: str | None = thread.get("path")
        """The rollout file the server writes for this thread."""
        self.bus = EventBus(self.thread_id)
        self.frontend_requests = FrontendRequests()
        self.items: dict[str, dict[str, Any]] = {}
        """The latest state of each ``fileChange`` item by id (approvals show its diff)."""
        self.token_usage: TokenUsage | None = None
        """The thread's token usage in all, as its latest ``thread/tokenUsage/updated`` said."""
        self.turn_diffs: dict[str, TurnDiff] = {}
        """The latest ``turn_diff`` of each turn by turn id (the newest ``MAX_TURN_DIFFS`` turns)."""
        self.auto_reviews: dict[str, AutoApprovalReview] = {}
        """Codex's automatic reviews of this thread's approvals by review id, each as its latest
        notification said (the newest ``MAX_AUTO_REVIEWS``)."""
        self.status: ThreadStatus | None = None
        """The thread's status as Codex last reported it (the ``thread/start`` / ``resume`` answer,
        then each ``thread/status/changed``): ``kind`` and what an active thread waits on (``flags``:
        ``waitingOnApproval``, ``waitingOnUserInput``); ``status.text()`` says it in words. None when
        not known (an answer without a readable status; the server gone)."""
        self.settings: ThreadSettings | None = None
        """The settings of the thread's next turn as Codex last reported them (the answer's model,
        effort, approvals, sandbox, then each ``thread/settings/updated``, which adds the
        collaboration mode); ``settings.text()`` is the one-line summary."""
        self.queue_changes = 0
        """How many ``thread/queue/changed`` Codex sent: its queue of pending input changed (it sends
        no contents, and 0.171 has no request to read them)."""
        self._read_state(info)
        self.server_requests = ServerRequests(self)
        self._lock = threading.RLock()
        self._revision = itertools.count(1)
        self._active: AppServerTurnHandle | None = None
        self._start_gate = StartGate()
        self._by_turn: dict[str, AppServerTurnHandle] = {}
        self._completions: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._errored: set[str] = set()
        self._modes: dict[str, str] = {}
        self._starting_mode: str | None = None
        """The mode of a turn whose ``turn/start`` is not answered yet: its first notifications may be
        handled before the coroutine awaiting that answer runs (both lines in one read)."""
        self._mode: str | None = mode
        """The collaboration mode Codex keeps for the next turn, as our turns set it; None: not known
        (a resumed or forked thread: its answer does not say), so the next turn says its mode."""
        self._interrupts: set[asyncio.Task[None]] = set()
        self._killed_turns: dict[str, str] = {}
        self._follow_turns(info)
        self.goals = GoalRuns(self)
        """The thread's goal and the continuation turns Codex starts for it (``set_goal``, ``run_goal``)."""

    def _read_state(self, info: dict[str, Any]) -> None:
        """Status and settings from a ``thread/start`` / ``resume`` / ``fork`` answer; a value of the
        wrong shape is logged once and left unknown (the next notification says it again)."""
        try:
            self.status = thread_status(info["thread"].get("status"))
        except ThreadStateError as err:
            log.warning("thread %s: the server's answer holds a bad status (%s); it stays unknown", self.thread_id, err)
        try:
            self.settings = response_settings(info)
        except ThreadStateError as err:
            log.warning(
                "thread %s: the server's answer holds bad settings (%s); they stay unknown", self.thread_id, err
            )

    @property
    def answer_policy(self) -> Any:
        """Who answers questions, permissions and approvals without a person, as
        ``Session.answer_policy``: None, a ``cx.AnswerPolicy``, a callable, ``"deny"``,
        ``"recommended"``, a JSON file path or a list of scripted answers."""
        return self.frontend_requests.answer_policy

    @answer_policy.setter
    def answer_policy(self, value: Any) -> None:
        self.frontend_requests.answer_policy = value

    # -- event source --------------------------------------------------------------------------
    @property
    def active_turn(self) -> AppServerTurnHandle | None:
        """The handle of the turn running on this thread, or None. One turn runs at a time:
        ``start_turn`` raises ``TurnError`` while this is set."""
        active = self._active
        return active if active is not None and not active.done() else None

    @property
    def capabilities(self) -> Capabilities:
        """What the real Codex offers (``cx.Capabilities``): the same for every thread, with the
        saved-thread verbs its release has (``sessions``: ``list``, ``resume``, and ``fork`` where
        ``server.features`` says so). Codex lists, resumes and forks threads through the server
        (``server.list_threads``, ``resume_thread``, ``fork_thread``), as an ACP agent does through
        the agent: the thread's value says what its server offers."""
        features: dict[str, bool] = getattr(self.server, "features", {})
        sessions = tuple(verb for verb, feature in _SESSION_VERBS if feature is None or features.get(feature, False))
        return dataclasses.replace(CODEX_CAPABILITIES, sessions=sessions)

    def send_during_turn(self, text: str) -> Sent:
        """Steer ``text`` into the running turn with ``turn/steer`` (``cx.AgentSource``'s verb); call it
        on the server's loop. ``Sent.accepted`` is done when Codex accepted it (it raises if Codex
        refused, e.g. because the turn ended first). Raises ``TurnError`` when no turn runs."""
        active = self.active_turn
        if active is None:
            raise TurnError(
                "no turn is running on this thread, so there is nothing to steer; start one with "
                "thread.start_turn(text)"
            )
        if not isinstance(text, str):
            raise TurnError(f"send_during_turn() takes the user's text (str), got {type(text).__name__}")
        return Sent(how="steered", turn_id=active.turn_id or None, accepted=asyncio.ensure_future(active.steer(text)))

    def interrupt(self) -> bool:
        """Stop the running turn with ``turn/interrupt``, as the Stop button does; False if no turn
        runs or it is already stopping. Safe from any thread; never blocks."""
        active = self.active_turn
        if active is not None:
            return active.interrupt()
        return self.goals.stop()

    def emit(self, msg: EventMsg, *, turn_id: str | None) -> Event:
        """Publish ``msg`` to this thread's subscribers as an event of ``turn_id`` (None: a
        thread-level event) and return it; a ``plan_update`` gets the thread's next revision number."""
        revision = next(self._revision) if msg.type == "plan_update" else None
        return self.bus.emit(msg, id=turn_id or self.thread_id, turn_id=turn_id, revision=revision)

    # -- notifications in ---------------------------------------------------------------------
    def on_notification(self, method: str, params: dict[str, Any]) -> None:
        """Turn one app-server notification for this thread into codex_nb events (the server routes
        it here by ``threadId``): ``turn/plan/updated`` becomes a ``plan_update``, ``turn/completed``
        the turn's end events, and ``serverRequest/resolved`` settles the request it names."""
        turn_id = params.get("turnId") or (params.get("turn") or {}).get("id")
        if method.startswith("thread/goal/"):
            self.goals.on_notification(method, params)
            return
        if method == "turn/plan/updated":
            self.emit(plan_update(params), turn_id=turn_id)
            return
        if method == "serverRequest/resolved":
            self.server_requests.resolved(params.get("requestId"))
            return
        if method == "thread/queue/changed":
            self.queue_changes += 1
            self.emit(QueueChanged(count=self.queue_changes), turn_id=None)
            return
        if method == "turn/completed":
            self._turn_completed(params["turn"])
            self.goals.turn_ended(params["turn"]["id"])
            return
        if method in ("item/started", "item/completed") and (params.get("item") or {}).get("type") == "fileChange":
            self.items[params["item"]["id"]] = params["item"]
        if method == "error" and not params.get("willRetry") and turn_id:
            self._errored.add(turn_id)
        mode = self._modes.get(turn_id or "") or self._starting_mode or "default"
        for msg in notification_events(method, params, mode=mode):
            if isinstance(msg, TokenCount) and msg.info is not None:
                self.token_usage = msg.info.total_token_usage
            elif isinstance(msg, TurnDiff) and msg.turn_id:
                self._keep_diff(msg)
            elif isinstance(msg, AutoApprovalReview):
                self._keep_review(msg)
            elif isinstance(msg, ThreadStatusChanged):
                self.status = msg.status
            elif isinstance(msg, ThreadSettingsUpdated):
                self.settings = msg.settings
            self.emit(msg, turn_id=turn_id)
        if method == "turn/started":
            ours = self.active_turn  # a finished turn of ours leaves _active set: Codex's own come after it
            if ours is not None:
                self._said(ours, turn_id)
            elif turn_id:  # no turn/start of ours: Codex's own (a goal's continuation)
                self.goals.turn_started(turn_id)

    def _keep_diff(self, msg: TurnDiff) -> None:
        assert msg.turn_id is not None
        self.turn_diffs.pop(msg.turn_id, None)  # re-inserted: the dict's order is the turns' order
        self.turn_diffs[msg.turn_id] = msg
        while len(self.turn_diffs) > MAX_TURN_DIFFS:
            del self.turn_diffs[next(iter(self.turn_diffs))]

    def _keep_review(self, msg: AutoApprovalReview) -> None:
        self.auto_reviews.pop(msg.review_id, None)
        self.auto_reviews[msg.review_id] = msg
        while len(self.auto_reviews) > MAX_AUTO_REVIEWS:
            del self.auto_reviews[next(iter(self.auto_reviews))]

    async def approve_denied_action(self, review: AutoApprovalReview | str) -> AutoApprovalReview:
        """Override a denial of Codex's automatic review (``thread/approveGuardianDeniedAction``):
        ``review`` is the ``auto_approval_review`` event or its ``review_id``.

        Codex does not run the action itself: it tells the model that the person approved that
        exact action, in the running turn or, when none runs, at the start of the next one; the
        model then asks again (and the reviewer sees the approval). The review comes again as an
        event with ``overridden`` set. Raises ``TurnError`` for a review this thread has not seen
        or one that is not a denial."""
        review_id = review.review_id if isinstance(review, AutoApprovalReview) else review
        known = self.auto_reviews.get(review_id) if isinstance(review_id, str) else None
        if known is None:
            raise TurnError(
                f"no automatic review {str(review_id)[:80]!r} on this thread; pass one of thread.auto_reviews"
            )
        if not known.can_override:
            if known.status == "denied" and not known.overridden:
                raise TurnError(
                    f"automatic review {review_id} denied an action too large to send back (over "
                    f"{MAX_OVERRIDE_ACTION_CHARS:,} characters as JSON): approve it in Codex's own client"
                )
            state = "already overridden" if known.overridden else known.status.replace("_", " ")
            raise TurnError(f"automatic review {review_id} is {state}: only a denial can be overridden")
        await self.server.request(
            "thread/approveGuardianDeniedAction", {"threadId": self.thread_id, "event": known.assessment}
        )
        overridden = known.model_copy(update={"overridden": True})
        self._keep_review(overridden)
        self.emit(overridden, turn_id=overridden.turn_id)
        return overridden

    def _said(self, handle: AppServerTurnHandle, turn_id: str | None) -> None:
        """The person's words, once: after ``turn/started`` or the ``turn/start`` answer, whichever
        comes first (a steer can be answered before ``turn/started``). Codex's own ``userMessage``
        item stays an item, so they are not shown twice."""
        prompt, handle.prompt = handle.prompt, None
        if prompt is not None:
            self.emit(UserMessage(message=prompt), turn_id=turn_id)

    def _turn_completed(self, turn: dict[str, Any]) -> None:
        turn_id = turn["id"]
        for msg in turn_end_events(turn, error_seen=turn_id in self._errored):
            self.emit(msg, turn_id=turn_id)
        waiter = self._completions.get(turn_id)
        if waiter is None:
            waiter = self._completions[turn_id] = self.server.loop.create_future()
        if not waiter.done():
            waiter.set_result(turn)

    def on_server_closed(self, error: AppServerError) -> None:
        """The server died: the running turn ends ``failed`` with the stderr tail, and the thread's
        status is no longer known (``status`` None: no server reports it)."""
        self.status = None
        self.server_requests.cancel_all()
        self.goals.server_closed(error)
        for turn_id, waiter in list(self._completions.items()):
            if waiter.done():
                continue
            if turn_id in self._killed_turns:  # Stop killed the server: the turn was interrupted
                self._end_killed_turn(turn_id)
                continue
            message = f"the turn failed because {error}"
            self._errored.add(turn_id)
            self.emit(ErrorEvent(message=message), turn_id=turn_id)
            self.emit(TurnComplete(turn_id=turn_id), turn_id=turn_id)
            waiter.set_result({"id": turn_id, "status": "failed", "items": [], "error": {"message": message}})
        active = self._active
        if active is not None and not active.started.done():
            active.started.set_exception(error)

    # -- turns ----------------------------------------------------------------------------------
    def start_turn(self, text: str, *, mode: str = "default", **overrides: Any) -> AppServerTurnHandle:
        """Start a turn in the background and return at once (``await handle`` for the result).

        ``mode="plan"`` runs it in Codex's Plan collaboration mode (``request_user_input``
        is available there, ``update_plan`` is not); the next ``mode="default"`` turn
        switches back. ``overrides`` are further ``turn/start`` params in camelCase
        (``model``, ``effort``, ``approvalPolicy``, ...)."""
        if not isinstance(text, str):
            raise TurnError(f"start_turn() takes the user's text (str), got {type(text).__name__}")
        if mode not in MODES:
            raise TurnError(f"mode must be 'default' or 'plan', got {mode!r}")
        with self._start_gate.claim(self._start_refusal):
            self.server.check_open()
            handle = AppServerTurnHandle(self)
            handle.prompt = text
            params: dict[str, Any] = {
                "threadId": self.thread_id,
                "input": [{"type": "text", "text": text}],
                **overrides,
            }
            if mode != self._mode:  # Codex keeps a collaboration mode for later turns: say it on change or if unknown
                params["collaborationMode"] = {
                    "mode": mode,
                    "settings": {"model": overrides.get("model") or self.model, "developer_instructions": None},
                }
                self._mode = mode
            handle.task = asyncio.ensure_future(self._run_turn(handle, params, mode))
            self._active = handle
        return handle

    def _start_refusal(self, starting: bool) -> TurnError | None:
        """Why ``start_turn`` may not start now (a turn running or being started), or None."""
        active = self.active_turn
        if active is None and not starting:
            return self.goals.start_refusal()
        return TurnError(
            f"turn {(active.turn_id if active is not None else '') or '(starting)'} is still running "
            f"on this thread; await it or call handle.interrupt() before starting another"
        )

    async def run_turn(self, text: str, *, mode: str = "default", **overrides: Any) -> AppServerTurnResult:
        """``start_turn`` and wait for the turn to end; raises what ``start_turn`` raises, and what
        the server answers to ``turn/start`` (e.g. ``AppServerRpcError``)."""
        return await self.start_turn(text, mode=mode, **overrides)

    async def _run_turn(self, handle: AppServerTurnHandle, params: dict[str, Any], mode: str) -> AppServerTurnResult:
        log = TurnEventLog()  # one turn runs on a thread at a time: the others' events are few
        unsubscribe = self.subscribe(log.append)
        before = self.token_usage
        try:
            self._starting_mode = mode
            try:
                response = await self.server.request("turn/start", params)
            except BaseException as err:
                self._starting_mode = None
                if not handle.started.done():
                    handle.started.set_exception(err)
                    handle.started.exception()  # retrieved: the task raises it
                if handle.killed is not None and isinstance(err, AppServerError):
                    # stopped before Codex answered, and killed for not answering: an interrupted
                    # turn that says why, as when it does not end after turn/interrupt
                    self.emit(ErrorEvent(message=handle.killed), turn_id=None)
                    return AppServerTurnResult(
                        turn_id="",
                        status="interrupted",
                        events=list(log.events),
                        dropped_deltas=log.dropped_deltas,
                        error=handle.killed,
                    )
                raise
            turn_id = response["turn"]["id"]
            handle.turn.turn_id = turn_id
            self._modes[turn_id] = mode
            self._starting_mode = None
            self._by_turn[turn_id] = handle
            self._said(handle, turn_id)  # before a steer can be sent: the prompt comes first
            if not handle.started.done():
                handle.started.set_result(turn_id)
            if handle.turn.cancel.cancelled:  # interrupt() came before the turn id was known
                self._send_interrupt(handle)
            waiter = self._completions.setdefault(turn_id, self.server.loop.create_future())
            turn = await waiter
        finally:
            unsubscribe()
        status = turn.get("status") or "failed"
        error = (turn.get("error") or {}).get("message")
        mine = [e for e in log.events if e.turn_id in (turn_id, None)]
        totals = [
            e.msg.info.total_token_usage
            for e in mine
            if isinstance(e.msg, TokenCount) and e.msg.info is not None and e.msg.info.total_token_usage is not None
        ]
        return AppServerTurnResult(
            turn_id=turn_id,
            status=status,
            items=list(turn.get("items") or []),
            events=mine,
            dropped_deltas=log.dropped_deltas,
            error=error,
            turn=turn,
            token_usage=_since(totals[-1], before) if totals else None,
            diff=self.turn_diffs.get(turn_id),
        )

    def _send_interrupt(self, handle: AppServerTurnHandle) -> None:
        if handle.done():
            return
        if handle.turn_id:
            task = asyncio.ensure_future(self._interrupt(handle.turn_id))
        else:  # _run_turn sends turn/interrupt once the id is known; until then, a bound on the wait
            task = asyncio.ensure_future(self._interrupt_unstarted(handle))
        self._interrupts.add(task)
        task.add_done_callback(self._interrupts.discard)

    async def _interrupt_unstarted(self, handle: AppServerTurnHandle) -> None:
        """A Stop before Codex answered ``turn/start``: a server that does not answer within
        ``interrupt_timeout`` (stopped, hung) is killed, and the turn ends interrupted, saying so."""
        timeout = self.server.interrupt_timeout
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(handle.started)
            return  # answered: the turn id is known and _run_turn sends turn/interrupt
        except TimeoutError:
            pass
        except asyncio.CancelledError:
            raise
        except Exception:  # turn/start failed: _run_turn reports that error
            return
        if handle.started.done():
            return
        handle.killed = (
            f"codex app-server did not answer turn/start within {timeout:g} s of the interrupt "
            f"(it may be stopped or hung), so codex_nb killed it and every command it ran; "
            f"start a new cx.CodexAppServer to continue"
        )
        await self.server.kill(handle.killed)

    async def _interrupt(self, turn_id: str) -> None:
        """``turn/interrupt``, then the turn's end, within ``interrupt_timeout``: a server that
        does not get there (stopped, hung) is killed and the turn ends interrupted, saying so."""
        timeout = self.server.interrupt_timeout
        waiter = self._completions.setdefault(turn_id, self.server.loop.create_future())
        try:
            async with asyncio.timeout(timeout):
                try:
                    await self.server.request(
                        "turn/interrupt", {"threadId": self.thread_id, "turnId": turn_id}, timeout=None
                    )
                except AppServerError as err:  # e.g. the turn had just ended: say so, never raise into the loop
                    if not waiter.done():
                        self.emit(WarningEvent(message=f"turn/interrupt failed: {err}"), turn_id=None)
                await asyncio.shield(waiter)
        except TimeoutError:
            if waiter.done():
                return
            message = (
                f"codex app-server did not end turn {turn_id} within {timeout:g} s of the interrupt "
                f"(it may be stopped or hung), so codex_nb killed it and every command it ran; "
                f"start a new cx.CodexAppServer to continue"
            )
            # the turn ends once the server is gone (on_server_closed), so nothing of it runs on
            self._killed_turns[turn_id] = message
            try:
                await self.server.kill(message)
            finally:
                if not waiter.done():
                    self._end_killed_turn(turn_id)

    def _end_killed_turn(self, turn_id: str) -> None:
        message = self._killed_turns[turn_id]
        self.emit(ErrorEvent(message=message), turn_id=turn_id)
        self._turn_completed({"id": turn_id, "status": "interrupted", "items": [], "error": {"message": message}})

    @property
    def collaboration_mode(self) -> str | None:
        """The collaboration mode the next turn runs in, ``default`` or ``plan``: as Codex last
        reported it (``thread/settings/updated``), else the mode of the last turn started here;
        None for a resumed or forked thread before either (its next turn says its mode)."""
        reported = self.settings.mode if self.settings is not None else None
        return reported if reported in MODES else self._mode

    # -- goals ----------------------------------------------------------------------------------
    @property
    def goal(self) -> ThreadGoal | None:
        """The thread's goal as Codex last reported it (``thread/goal/updated``, ``/cleared``, or a
        ``thread/goal/*`` answer), or None: objective, status, tokens and time against the budget."""
        return self.goals.goal

    async def set_goal(self, objective: str, *, budget: int | None = None) -> ThreadGoal:
        """Start (or replace) the thread's goal (``thread/goal/set``). Codex then starts continuation
        turns on its own until the goal is complete, paused, blocked or out of budget (``budget``:
        tokens, None for none); ``run_goal`` follows them. Raises ``CodexVersionError`` on a
        binary without goals (``server.features["goals"]``)."""
        return await self.goals.set(objective, budget=budget)

    async def pause_goal(self) -> ThreadGoal:
        """Pause the goal: Codex starts no further continuation turn (a running one goes on;
        Stop ends it). ``resume_goal`` continues it."""
        return await self.goals.set_status("paused")

    async def resume_goal(self) -> ThreadGoal:
        """Make a paused (or blocked, or out-of-budget) goal active again: Codex continues it."""
        return await self.goals.set_status("active")

    async def clear_goal(self) -> bool:
        """Remove the thread's goal (``thread/goal/clear``); True if there was one."""
        return await self.goals.clear()

    async def get_goal(self) -> ThreadGoal | None:
        """Ask Codex for the goal now (``thread/goal/get``) and keep what it says in ``goal``."""
        return await self.goals.get()

    async def run_goal(
        self, objective: str, *, budget: int | None = None, idle_timeout: float = GOAL_IDLE_TIMEOUT
    ) -> GoalRunResult:
        """``set_goal`` and follow the continuation turns Codex starts until the goal ends (complete,
        paused, blocked, out of budget or usage, or cleared): each turn's events reach the
        transcript and timeline as a person's turn does. Stop (``interrupt()``, the kernel's
        interrupt) pauses the goal and interrupts the running turn, which ends the run.

        Raises ``TurnError`` at once in Plan mode (Codex leaves goals alone there), and
        ``GoalStalledError`` (with the run so far in ``.result``) when the goal stays active but
        Codex starts no turn for ``idle_timeout`` seconds."""
        return await self.goals.run(objective, budget=budget, idle_timeout=idle_timeout)

    def stop_goal(self) -> bool:
        """What Stop does while a goal runs: pause it and interrupt Codex's running continuation
        turn. False if no goal is active and no continuation turn runs. Safe from any thread."""
        return self.goals.stop()

    async def steer(self, text: str) -> None:
        """Add user input to the running turn (``turn/steer``)."""
        active = self.active_turn
        if active is None:
            raise TurnError(
                "no turn is running on this thread, so there is nothing to steer; start one with "
                "thread.start_turn(text)"
            )
        await self._steer(active, text)

    async def _steer(self, handle: AppServerTurnHandle, text: str) -> None:
        if not isinstance(text, str):
            raise TurnError(f"steer() takes the user's text (str), got {type(text).__name__}")
        turn_id = await asyncio.shield(handle.started)
        if handle.done():
            raise TurnError(f"turn {turn_id} has already ended; start a new turn with this input instead")
        await self.server.request(
            "turn/steer",
            {"threadId": self.thread_id, "expectedTurnId": turn_id, "input": [{"type": "text", "text": text}]},
        )
        self.emit(UserMessage(message=text), turn_id=turn_id)  # accepted: the person's words join the turn

    def __repr__(self) -> str:
        return f"<CodexThread {self.thread_id}>"
