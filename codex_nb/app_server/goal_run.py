"""A real Codex thread's goal, and a run that follows its continuation turns to the goal's end.

Once a goal is ``active`` Codex starts turns by itself (no ``turn/start`` of ours: a
``turn/started`` the thread did not ask for), one after another, until the model marks the goal
``complete`` or it is paused, blocked, or out of budget. ``GoalRuns`` keeps the goal from the
``thread/goal/*`` notifications, knows which turn Codex is running for it, and stops it as Codex's
own clients do: pause first (so no further turn starts), then ``turn/interrupt`` the running one
(an interrupt alone leaves the goal active). Kept apart from ``thread`` so turns stay its business.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any, Protocol

from .._interrupt import await_interruptibly
from ..errors import TurnError
from ..events.turn_log import TurnEventLog
from ..protocol.events import Event, WarningEvent
from ..protocol.goal import GoalUpdated, ThreadGoal
from .app_server_errors import AppServerError, AppServerRpcError
from .goals import GoalNotificationError, check_budget, check_objective, goal_params, read_goal


class _Thread(Protocol):
    """What goals need of their ``CodexThread`` (a protocol: the thread imports this module)."""

    thread_id: str
    server: Any
    _completions: dict[str, asyncio.Future[dict[str, Any]]]

    @property
    def active_turn(self) -> object | None: ...

    @property
    def collaboration_mode(self) -> str | None: ...

    def emit(self, msg: Any, *, turn_id: str | None) -> Event: ...

    def subscribe(self, callback: Callable[[Event], None]) -> Callable[[], None]: ...

    async def _interrupt(self, turn_id: str) -> None: ...


MAX_GOAL_TURNS = 1_000
"""Continuation turns one ``GoalRunResult`` lists (the first; the rest are counted)."""
GOAL_IDLE_TIMEOUT = 60.0
"""How long a goal run waits for Codex to start a turn while the goal is active and none runs.
Codex starts the next one as soon as a turn ends; it may also skip it without a word (its state
database failed, or a turn's request to the model keeps failing), and then nothing would end the run."""


@dataclass(kw_only=True)
class GoalTurn:
    """One continuation turn of a goal run, as ``turn/completed`` ended it."""

    turn_id: str
    status: str
    """``completed`` | ``interrupted`` | ``failed``."""
    items: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


@dataclass(kw_only=True)
class GoalRunResult:
    """What ``await thread.run_goal(...)`` gives once the goal ended."""

    goal: ThreadGoal | None
    """The goal as it ended (None: it was cleared)."""
    turns: list[GoalTurn] = field(default_factory=list)
    """The continuation turns Codex ran for it, in order."""
    more_turns: int = 0
    """Turns past ``MAX_GOAL_TURNS`` not listed."""
    events: list[Event] = field(default_factory=list)
    dropped_deltas: int = 0
    stopped: bool = False
    """True when Stop (or the kernel's interrupt) ended the run."""

    @property
    def status(self) -> str:
        """The goal's final status (``complete``, ``paused``, ...; ``cleared`` when it was removed)."""
        return "cleared" if self.goal is None else self.goal.status


class GoalStalledError(TurnError):
    """The goal is still active but Codex started no turn for it within the run's ``idle_timeout``."""

    def __init__(self, message: str, result: GoalRunResult) -> None:
        super().__init__(message)
        self.result = result
        """The run so far: the turns Codex ran, their events, the goal (still ``active``)."""


class GoalsDisabledError(AppServerError):
    """Codex has goals but its ``goals`` feature is off (``[features] goals = false``)."""


async def _goal_request(server: Any, method: str, params: dict[str, Any]) -> Any:
    """``request_feature`` for a ``thread/goal/*`` method; a feature switched off in config is a
    ``GoalsDisabledError`` saying how to switch it on, not the server's bare refusal."""
    try:
        return await server.request_feature(method, params)
    except AppServerRpcError as err:
        if "goals feature is disabled" not in err.server_message:
            raise
        raise GoalsDisabledError(
            f"{method}: this Codex has goals but its `goals` feature is off ({err.server_message!r}); "
            f"remove `goals = false` from [features] in $CODEX_HOME/config.toml, or start the server with "
            f"cx.CodexAppServer(config={{'features.goals': True}})"
        ) from None


class GoalRuns:
    """The goal of one ``CodexThread`` and the turns Codex runs for it."""

    def __init__(self, thread: _Thread) -> None:
        self.thread = thread
        self.goal: ThreadGoal | None = None
        self.running_turn: str | None = None
        """The id of the turn Codex started on its own and has not ended, or None."""
        self._changed: asyncio.Event | None = None
        self._run_turns: list[str] | None = None
        self._ended: dict[str, dict[str, Any]] = {}
        self._stopping = False
        self._closed: AppServerError | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- state from the server ------------------------------------------------------------------
    def on_notification(self, method: str, params: dict[str, Any]) -> None:
        """``thread/goal/updated`` / ``thread/goal/cleared``: keep the goal, tell subscribers."""
        turn_id = params.get("turnId") if type(params.get("turnId")) is str else None
        if method == "thread/goal/cleared":
            self._keep(None, turn_id)
            return
        if method != "thread/goal/updated":
            return
        try:
            goal = read_goal(params.get("goal"))
        except GoalNotificationError as err:
            self.thread.emit(WarningEvent(message=f"{method}: {err}; the goal card keeps its last state"), turn_id=None)
            return
        self._keep(goal, turn_id)

    def _keep(self, goal: ThreadGoal | None, turn_id: str | None) -> None:
        self.goal = goal
        self.thread.emit(GoalUpdated(goal=goal, turn_id=turn_id), turn_id=turn_id)
        self._wake()

    def turn_started(self, turn_id: str) -> None:
        self.running_turn = turn_id
        if self._run_turns is not None:
            self._run_turns.append(turn_id)
        self._wake()

    def turn_ended(self, turn_id: str) -> None:
        if turn_id == self.running_turn:
            self.running_turn = None
        waiter = self.thread._completions.get(turn_id)
        if self._run_turns is not None and turn_id in self._run_turns and waiter is not None and waiter.done():
            self._ended[turn_id] = waiter.result()
        self._wake()

    def server_closed(self, error: AppServerError) -> None:
        self.running_turn = None
        self._closed = error
        self._wake()

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()

    def start_refusal(self) -> TurnError | None:
        """Why a person's turn may not start now (Codex's continuation turn runs), or None."""
        if self.running_turn is None:
            return None
        return TurnError(
            f"Codex's goal turn {self.running_turn} is running on this thread; stop it (thread.interrupt(), "
            f"which pauses the goal) or wait for the goal to end before starting another"
        )

    # -- requests -------------------------------------------------------------------------------
    def _params(self, **params: Any) -> dict[str, Any]:
        return goal_params(self.thread.thread_id, self.thread.server.version, **params)

    def _answer(self, method: str, answer: Any) -> ThreadGoal | None:
        raw = answer.get("goal") if isinstance(answer, dict) else None
        if raw is None:
            return None
        try:
            goal = read_goal(raw)
        except GoalNotificationError as err:
            raise AppServerError(f"{method} answered a malformed goal: {err}") from None
        self.goal = goal
        self._wake()
        return goal

    async def set(self, objective: str, *, budget: int | None) -> ThreadGoal:
        objective = check_objective(objective)
        params = self._params(objective=objective, status="active", tokenBudget=check_budget(budget))
        goal = self._answer("thread/goal/set", await _goal_request(self.thread.server, "thread/goal/set", params))
        assert goal is not None  # a ThreadGoalSetResponse always holds one
        return goal

    async def set_status(self, status: str) -> ThreadGoal:
        answer = await _goal_request(self.thread.server, "thread/goal/set", self._params(status=status))
        goal = self._answer("thread/goal/set", answer)
        assert goal is not None
        return goal

    async def clear(self) -> bool:
        answer = await _goal_request(self.thread.server, "thread/goal/clear", self._params())
        return bool(isinstance(answer, dict) and answer.get("cleared"))

    async def get(self) -> ThreadGoal | None:
        answer = await _goal_request(self.thread.server, "thread/goal/get", {"threadId": self.thread.thread_id})
        goal = self._answer("thread/goal/get", answer)
        if goal is None:
            self.goal = None
        return goal

    # -- Stop -----------------------------------------------------------------------------------
    def stop(self) -> bool:
        """Pause an active goal, then interrupt Codex's running turn. Safe from any thread."""
        active = self.goal is not None and self.goal.status == "active"
        if not active and self.running_turn is None:
            return False
        if self._stopping:
            return True
        self._stopping = True
        try:
            self.thread.server.loop.call_soon_threadsafe(self._start_stop)
        except RuntimeError:
            self._stopping = False
            return False
        return True

    def _start_stop(self) -> None:
        task = asyncio.ensure_future(self._stop())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _stop(self) -> None:
        try:
            if self.goal is not None and self.goal.status == "active":
                try:
                    await self.set_status("paused")
                except AppServerError as err:  # still interrupt: the turn must end
                    self.thread.emit(WarningEvent(message=f"pausing the goal failed: {err}"), turn_id=None)
            turn_id = self.running_turn
            if turn_id is not None:
                await self.thread._interrupt(turn_id)
        finally:
            self._stopping = False
            self._wake()

    # -- a run ------------------------------------------------------------------------------------
    async def run(self, objective: str, *, budget: int | None, idle_timeout: float) -> GoalRunResult:
        if self._run_turns is not None:
            raise TurnError("a goal run is already following this thread's goal; await it or Stop it first")
        if self.thread.active_turn is not None or self.running_turn is not None:
            raise TurnError("a turn is running on this thread; await it or interrupt it before running a goal")
        if self.thread.collaboration_mode == "plan":  # Codex leaves a goal alone in Plan mode: no turn would start
            raise TurnError(
                "this thread is in Plan mode (its last turn ran with mode='plan'), where Codex does not work on "
                "a goal: it would stay active and no turn would start. Run a turn in Default mode first "
                "(await thread.run_turn('...', mode='default')), then the goal"
            )
        if not idle_timeout > 0:
            raise TurnError(f"idle_timeout must be a positive number of seconds, got {idle_timeout!r}")
        task = asyncio.ensure_future(self._follow(objective, budget, idle_timeout))
        return await await_interruptibly(task, interrupt=self.stop, what="Codex goal run")

    async def _follow(self, objective: str, budget: int | None, idle_timeout: float) -> GoalRunResult:
        log = TurnEventLog()
        unsubscribe = self.thread.subscribe(log.append)
        self._changed = asyncio.Event()
        self._run_turns = []
        self._ended = {}
        stopped = False
        loop = asyncio.get_running_loop()
        idle_since: float | None = None
        try:
            await self.set(objective, budget=budget)
            while True:
                if self._stopping:
                    stopped = True
                if self._closed is not None:
                    raise self._closed
                waiting = [t for t in self._run_turns if t not in self._ended]
                idle = self.running_turn is None and not waiting
                if (self.goal is None or self.goal.ended) and idle:
                    if not self._stopping:
                        break
                idle_since = (idle_since or loop.time()) if idle and not self._stopping else None
                left = None if idle_since is None else idle_since + idle_timeout - loop.time()
                if left is not None and left <= 0:
                    raise self._stalled(idle_timeout, log, stopped)
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), left)
        finally:
            unsubscribe()
            turn_ids, self._run_turns, self._changed = self._run_turns or [], None, None
        return self._result(turn_ids, log, stopped)

    def _stalled(self, idle_timeout: float, log: TurnEventLog, stopped: bool) -> GoalStalledError:
        turns = self._run_turns or []
        since = f"its turn {turns[-1]} ended" if turns else "the goal was set"
        result = self._result(list(turns), log, stopped)
        return GoalStalledError(
            f"the goal is still active, but Codex has started no turn for it in the {idle_timeout:g} s since "
            f"{since} ({len(turns)} turn{'' if len(turns) == 1 else 's'} ran: the error's .result holds them). "
            f"Codex continues a goal by itself and may skip that without a word (it does while the thread is in "
            f"Plan mode, which a resumed thread may be); read its log, then "
            f"thread.pause_goal() or thread.clear_goal(), or run_goal again (a longer idle_timeout for a slow model)",
            result,
        )

    def _result(self, turn_ids: list[str], log: TurnEventLog, stopped: bool) -> GoalRunResult:
        turns = [
            GoalTurn(
                turn_id=t,
                status=str(self._ended[t].get("status") or "failed"),
                items=list(self._ended[t].get("items") or []),
                error=(self._ended[t].get("error") or {}).get("message"),
            )
            for t in turn_ids[:MAX_GOAL_TURNS]
        ]
        stopped = stopped or any(t.status == "interrupted" for t in turns)
        return GoalRunResult(
            goal=self.goal,
            turns=turns,
            more_turns=max(len(turn_ids) - MAX_GOAL_TURNS, 0),
            events=list(log.events),
            dropped_deltas=log.dropped_deltas,
            stopped=stopped,
        )


__all__ = [
    "GOAL_IDLE_TIMEOUT",
    "MAX_GOAL_TURNS",
    "GoalRunResult",
    "GoalRuns",
    "GoalStalledError",
    "GoalTurn",
    "GoalsDisabledError",
]
