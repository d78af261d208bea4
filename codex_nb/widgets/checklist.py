"""PlanChecklist: a live anywidget checklist of one session's plan snapshots.

Kernel -> browser is synced state only (a custom message sent right after display() is
lost). Every accepted PlanUpdate replaces the whole snapshot (explanation, steps, thread,
turn, revision) in one ``hold_sync`` batch, i.e. one comm message. Snapshots from other threads are ignored,
stale or out-of-order revisions are dropped, and bursts are coalesced: at most
``max_rate`` messages per second, the latest snapshot wins, and a pending snapshot is
flushed by a timer on the kernel's asyncio loop no later than ``1 / max_rate`` seconds
after it arrived. Turn status changes (start, end, error) flush at once.

Browser -> kernel requests are ``{id, kind, ...}`` messages checked against
``protocol.json``; malformed ones are logged, shown in the ``protocol_error`` trait and
answered with an ``error`` reply. The kernel keeps running.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anywidget
import traitlets

from ..events.source import EventSource
from ..protocol.capabilities import capabilities_of
from ..protocol.events import Event
from ..protocol.plan import PlanItemArg, StepStatus, UpdatePlanArgs
from ..protocol.wire import well_formed
from ._static import asset
from .plan_static import plain_text, static_html
from .browser_messages import ProtocolError, kinds, validate_to_kernel
from ..timeline.why import NoPlan, NoPlanTracker
from .final_state import FinalStateFallback
from .kernel_loop import running_loop

log = logging.getLogger("codex_nb.widgets.checklist")

WIDGET = "plan_checklist"
DEFAULT_MAX_RATE = 60.0
"""Comm messages a second at most: one a display frame (a browser draws ~60 frames a second), so
a snapshot waits at most ~17 ms for its message while a plan streams; jupyter_server drops
IOPub above ~1,000 messages a second, so bursts are still coalesced."""
_TURN_END = {"completed", "interrupted", "failed"}
SNAPSHOT_KEYS = ("explanation", "steps", "thread_id", "turn_id", "revision")


@dataclass(kw_only=True)
class ChecklistStats:
    """Counters for tests and benchmarks."""

    snapshots: int = 0
    """PlanUpdate events of this thread received."""
    dropped_stale: int = 0
    other_thread: int = 0
    coalesced: int = 0
    """Snapshots replaced by a newer one before they were sent."""
    flushes: int = 0
    """State batches sent (each one comm message)."""


@dataclass(kw_only=True, frozen=True)
class _Snapshot:
    explanation: str | None
    steps: list[dict[str, str]]
    thread_id: str
    turn_id: str | None
    revision: int


@dataclass(kw_only=True)
class _Pending:
    snapshot: _Snapshot | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def empty(self) -> bool:
        return self.snapshot is None and not self.meta


class PlanChecklist(FinalStateFallback, anywidget.AnyWidget):
    """Live checklist of ``session``'s plan: ``cx.PlanChecklist(session)``."""

    _esm = asset("plan_checklist.js")
    _css = asset("plan_checklist.css")

    explanation = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    steps = traitlets.List(traitlets.Dict()).tag(sync=True)
    thread_id = traitlets.Unicode("").tag(sync=True)
    turn_id = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    revision = traitlets.Int(None, allow_none=True).tag(sync=True)
    """Revision of the shown snapshot; None until the first one."""
    turn_status = traitlets.Unicode("idle").tag(sync=True)
    """idle | running | completed | interrupted | failed (the latest turn of the thread)."""
    error = traitlets.Unicode("").tag(sync=True)
    """Why the latest turn failed (an ``error`` event or the background task's exception)."""
    protocol_error = traitlets.Unicode("").tag(sync=True)
    """The latest rejected browser message, shown in the view."""
    no_plan = traitlets.Unicode("").tag(sync=True)
    """Why the latest ended turn has no plan, in one line ("" when it had one or nothing says why;
    see ``codex_nb.timeline.why``)."""

    def __init__(
        self,
        session: EventSource,
        *,
        width: int = 80,
        max_rate: float | None = DEFAULT_MAX_RATE,
        only_active_turn: bool = False,
        **kwargs: Any,
    ) -> None:
        """``only_active_turn``: start from the source's latest plan only if the turn running now
        published it (a turn's own view), not from a finished turn's plan."""
        if not hasattr(session, "subscribe") or not hasattr(session, "thread_id"):
            raise TypeError(
                f"PlanChecklist needs a codex_nb.Session (with .subscribe and .thread_id), "
                f"got {type(session).__name__}; create one with codex_nb.Session()"
            )
        super().__init__(thread_id=session.thread_id, **kwargs)
        self.width = width
        self.stats = ChecklistStats()
        self.rendered_revision: int | None = None
        """The newest revision a view reported as rendered."""
        self.handle: Any = None
        """The tracked TurnHandle (for turn controls such as a Stop button)."""
        self._thread = session.thread_id
        self._interval = 1.0 / max_rate if max_rate else 0.0
        self._lock = threading.RLock()
        self._pending = _Pending()
        self._newest: int = 0
        self._status_turn: str | None = None
        self._last_flush = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._scheduled = False
        self._waiters: list[asyncio.Future[None]] = []
        self._handlers: dict[str, Callable[[dict[str, Any]], object]] = {"rendered": self._on_rendered}
        self._loop = running_loop()
        self._session = session
        self._why = NoPlanTracker(session, on_change=self._on_no_plan)
        self.on_msg(self._on_view_msg)
        self._unsubscribe: Callable[[], None] | None = session.subscribe(self._on_event)
        runtime: Any = session  # its capabilities say it has on_lifecycle
        self._unlifecycle: Callable[[], None] | None = (
            runtime.on_lifecycle(self._why.on_lifecycle) if capabilities_of(session).tool_plan else None
        )
        # Start current: the source's last-value cache holds the plan published before this
        # widget existed (subscribe first, so a newer snapshot wins by revision).
        latest = getattr(session, "latest_plan", None)
        current = latest() if callable(latest) else None
        if current is not None and only_active_turn:
            active = runtime.active_turn if capabilities_of(session).runs_turns else None
            if active is None or getattr(active, "turn_id", None) != current.turn_id:
                current = None
        if current is not None:
            self._on_event(current)

    @classmethod
    def attach(cls, session: EventSource, **kwargs: Any) -> PlanChecklist:
        """``PlanChecklist.attach(session)`` is ``PlanChecklist(session)``."""
        return cls(session, **kwargs)

    # ---- events in -------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if event.thread_id != self._thread:
            self.stats.other_thread += 1
            return
        msg = event.msg
        kind = msg.type
        self._why.on_event(event)
        if kind == "plan_update":
            self._offer(event)
        elif kind == "turn_started":
            turn = getattr(msg, "turn_id", None) or event.turn_id
            self._status("running", turn=turn, error="")
            self._track_active(turn)
        elif kind == "turn_complete":
            self._status("completed", turn=event.turn_id)
        elif kind == "turn_aborted":
            self._status("interrupted", turn=event.turn_id)
        elif kind == "error":
            self._status("failed", turn=event.turn_id, error=getattr(msg, "message", "error"))

    def _offer(self, event: Event) -> None:
        msg: Any = event.msg
        with self._lock:
            self.stats.snapshots += 1
            revision = event.revision if event.revision is not None else self._newest + 1
            if revision <= self._newest:
                self.stats.dropped_stale += 1
                return
            self._newest = revision
            if self._pending.snapshot is not None:
                self.stats.coalesced += 1
            # Comms send UTF-8: a lone surrogate (valid in the model's JSON as an escape) is shown as U+FFFD.
            if event.turn_id != self._status_turn:
                # A plan from outside the shown turn (call_tool, another turn): that turn's
                # status says nothing about this plan, so none is shown.
                self._pending.meta["turn_status"] = "idle"
                self._pending.meta["error"] = ""
                self._status_turn = None
            self._pending.snapshot = _Snapshot(
                explanation=None if msg.explanation is None else well_formed(msg.explanation),
                steps=_steps(msg),
                thread_id=event.thread_id,
                turn_id=event.turn_id,
                revision=revision,
            )
            self._request_flush(urgent=False)

    def _on_no_plan(self, reason: NoPlan | None) -> None:
        with self._lock:
            self._pending.meta["no_plan"] = "" if reason is None else well_formed(reason.line)
            self._request_flush(urgent=True)

    def _status(self, status: str, *, turn: str | None, error: str | None = None) -> None:
        with self._lock:
            meta = self._pending.meta
            current = meta.get("turn_status", self.turn_status)
            if status == "running":
                self._status_turn = turn
            elif current == "failed" and status in _TURN_END and turn == self._status_turn:
                status = "failed"  # a failed turn stays failed when it then completes
            meta["turn_status"] = status
            if error is not None:
                meta["error"] = well_formed(error)
            self._request_flush(urgent=True)

    def track(self, handle: Any) -> Any:
        """Show the outcome of a background turn (``session.start_turn``) in this widget.

        An exception in ``handle.task`` becomes the ``error`` trait, so it is never lost;
        returns ``handle`` so ``checklist.track(session.start_turn(...))`` reads well.
        """
        self.handle = handle
        task = getattr(handle, "task", handle)
        task.add_done_callback(self._on_task_done)
        with self._lock:
            if self._pending.meta.get("turn_status", self.turn_status) not in ("running",):
                self._pending.meta.update(turn_status="running", error="")
                self._request_flush(urgent=True)
        return handle

    def _track_active(self, turn: str | None) -> None:
        """Follow the session's running turn task, so an exception in it is shown here."""
        agent: Any = self._session
        handle = agent.active_turn if capabilities_of(agent).runs_turns else None
        if handle is not None and handle is not self.handle and getattr(handle, "turn_id", None) == turn:
            self.handle = handle
            handle.task.add_done_callback(self._on_task_done)

    def _on_task_done(self, task: asyncio.Future[Any]) -> None:
        with self._lock:
            replaced = self._status_turn is None and self._pending.meta.get("turn_status", self.turn_status) == "idle"
        if replaced and not task.cancelled() and task.exception() is None:
            return  # a plan from no turn has replaced this turn's view since; its end is old news
        if task.cancelled():
            self._status("interrupted", turn=self._status_turn)
            return
        exc = task.exception()
        if exc is not None:
            log.error("background turn failed", exc_info=exc)
            self._status("failed", turn=self._status_turn, error=f"{type(exc).__name__}: {exc}")
            return
        status = getattr(task.result(), "status", "completed")
        self._status(status if status in _TURN_END else "completed", turn=self._status_turn)

    # ---- coalescing and flushing -----------------------------------------------------

    def _request_flush(self, *, urgent: bool) -> None:
        """Called with the lock held: flush now, or make sure a flush is scheduled."""
        loop = self._loop if self._loop is not None and not self._loop.is_closed() else running_loop()
        self._loop = loop
        now = time.monotonic()
        due = self._last_flush + self._interval
        on_loop = loop is not None and running_loop() is loop
        if loop is None or (on_loop and (urgent or now >= due)):
            self._flush()
        elif not on_loop and (urgent or now >= due):
            if not self._scheduled:
                self._scheduled = True
                loop.call_soon_threadsafe(self._flush)
        elif self._timer is None and not self._scheduled:
            self._scheduled = True
            loop.call_soon_threadsafe(self._arm_timer, due)

    def _arm_timer(self, due: float) -> None:
        with self._lock:
            if self._pending.empty():
                self._scheduled = False
                return
            assert self._loop is not None
            self._timer = self._loop.call_later(max(0.0, due - time.monotonic()), self._flush)

    def _flush(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._scheduled = False
            pending, self._pending = self._pending, _Pending()
            if not pending.empty():
                self._last_flush = time.monotonic()
                self.stats.flushes += 1
                with self.hold_sync():
                    snapshot = pending.snapshot
                    if snapshot is not None:
                        self._states_to_send.update(SNAPSHOT_KEYS)  # the message carries the whole snapshot
                        self.explanation = snapshot.explanation
                        self.steps = snapshot.steps
                        self.thread_id = snapshot.thread_id
                        self.turn_id = snapshot.turn_id
                        self.revision = snapshot.revision
                    for name, value in pending.meta.items():
                        setattr(self, name, value)
            waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.get_loop().call_soon_threadsafe(_resolve, waiter)

    async def settled(self) -> None:
        """Wait until every received snapshot and status is in the synced state."""
        while True:
            with self._lock:
                if self._pending.empty():
                    return
                waiter = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
            await waiter

    def flush(self) -> None:
        """Send any pending snapshot now (e.g. before reading the traits from another thread)."""
        self._flush()

    def before_static(self) -> None:
        """Send any snapshot still being coalesced, so the stored ``text/plain``/``text/html`` output
        (written at the cell's end) and the live view end on the same snapshot."""
        self._flush()

    # ---- browser -> kernel -------------------------------------------------------------

    def on_request(self, kind: str, handler: Callable[[dict[str, Any]], object]) -> None:
        """Handle browser requests of ``kind`` (declared in protocol.json) with ``handler(msg)``.

        The hook for turn controls: a handler may return a dict of extra reply fields.
        """
        if kind not in kinds(WIDGET, "to_kernel"):
            raise ValueError(f"{kind!r} is not a plan_checklist message kind; declare it in js/protocol.json first")
        self._handlers[kind] = handler

    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        msg_id = content.get("id") if isinstance(content, dict) else None
        reply_id = msg_id if isinstance(msg_id, str) else None
        try:
            message = validate_to_kernel(WIDGET, content)
            extra = self._handlers[message["kind"]](message)
        except ProtocolError as err:
            self._reject(reply_id, f"rejected a message from the checklist view: {err}")
            return
        except Exception as err:  # a handler bug must not take the kernel's comm down
            log.exception("checklist request handler failed")
            self._reject(reply_id, f"checklist request failed: {type(err).__name__}: {err}")
            return
        self.send({"kind": "ack", "id": message["id"], **(extra if isinstance(extra, dict) else {})})

    def _reject(self, msg_id: str | None, text: str) -> None:
        log.warning(text)
        with self._lock:
            self.protocol_error = text
        self.send({"kind": "error", "id": msg_id, "message": text})

    def _on_rendered(self, message: dict[str, Any]) -> None:
        revision = message["revision"]
        if revision is not None and (self.rendered_revision is None or revision > self.rendered_revision):
            self.rendered_revision = revision

    # ---- static fallbacks -------------------------------------------------------------

    def plan_args(self) -> UpdatePlanArgs | None:
        """The shown snapshot as ``UpdatePlanArgs`` (None before the first one)."""
        if self.revision is None:
            return None
        return _args(self.explanation, self.steps)

    def _latest(self) -> tuple[UpdatePlanArgs | None, str]:
        """The latest *accepted* snapshot and error, including one still being coalesced:
        a static repr must not lag behind what the next flush will show."""
        with self._lock:
            pending = self._pending.snapshot
            error = self._pending.meta.get("error", self.error)
        if pending is not None:
            return _args(pending.explanation, pending.steps), error
        return self.plan_args(), error

    def _no_plan_line(self, args: UpdatePlanArgs | None) -> str:
        """The why-no-plan line, in the static renderings only while there is no plan at all."""
        if args is not None:
            return ""
        with self._lock:
            return str(self._pending.meta.get("no_plan", self.no_plan))

    def text(self) -> str:
        """The Codex text rendering of the latest snapshot (stable: no ids, no addresses), and a last
        line when the turn stopped short ("Turn interrupted")."""
        args, error = self._latest()
        with self._lock:
            turn_status = str(self._pending.meta.get("turn_status", self.turn_status))
        return plain_text(
            args, width=self.width, error=error, no_plan=self._no_plan_line(args), turn_status=turn_status
        )

    def html(self) -> str:
        """A static, escaped HTML rendering for nbconvert, GitHub and other non-widget viewers."""
        args, error = self._latest()
        with self._lock:
            pending = self._pending.snapshot
            steps = pending.steps if pending is not None else self.steps
            turn_status = str(self._pending.meta.get("turn_status", self.turn_status))
        priorities = [step.get("priority", "") for step in steps]
        return static_html(
            args, error=error, no_plan=self._no_plan_line(args), priorities=priorities, turn_status=turn_status
        )

    def __repr__(self) -> str:
        return f"<PlanChecklist revision={self.revision} steps={len(self.steps)} turn_status={self.turn_status}>"

    # ---- teardown ----------------------------------------------------------------------

    def detach(self) -> None:
        """Stop following the session (the shown state stays)."""
        with self._lock:
            if self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None
            unlifecycle, self._unlifecycle = getattr(self, "_unlifecycle", None), None
            if unlifecycle is not None:
                unlifecycle()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def close(self) -> None:
        """Stop following the source (``detach()``) and close the widget's comm; the view goes blank."""
        if hasattr(self, "_lock"):
            self.detach()
        super().close()


def _steps(msg: Any) -> list[dict[str, str]]:
    steps = [{"step": well_formed(item.step), "status": str(item.status)} for item in msg.plan]
    # A source may rank steps outside the Codex payload (ACP plan priorities, a field of its event
    # class). Asked of the class: finding that a pydantic model lacks an attribute raises and catches
    # two AttributeErrors, 2 us of a plan update's 20. A shorter list leaves the rest unranked.
    priorities = msg.priorities if "priorities" in type(msg).model_fields else ()
    for step, priority in zip(steps, priorities or (), strict=False):
        if priority:
            step["priority"] = priority
    return steps


def _args(explanation: str | None, steps: list[dict[str, str]]) -> UpdatePlanArgs:
    return UpdatePlanArgs(
        explanation=explanation, plan=[PlanItemArg(step=s["step"], status=StepStatus(s["status"])) for s in steps]
    )


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
