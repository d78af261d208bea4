"""TurnControls: the session's turn state, its token usage, a Stop button and the agent's options.

Kernel interrupt does not stop a cell that awaits a turn, and a background turn has no
cell to interrupt at all; this widget is the way to stop one. It follows the session's
events only (``turn_started`` -> running, ``turn_complete`` -> completed or failed,
``turn_aborted`` -> interrupted), never reading runtime state after it is built.

The usage meter follows ``token_count``, the one event every source sends its usage in
(codex_nb's runtime from the Responses API's ``usage``, the real Codex's
``thread/tokenUsage/updated``, an ACP agent's ``usage_update`` and prompt usage): the tokens in
the context window of its size, this turn's tokens (the running total less the total when the
turn started) and the thread's total. A figure a source has not reported is left out, never
shown as zero.

A real Codex thread's goal (``goal_updated``: objective, status, tokens and time against its
budget) shows as a card at the top, in the words ``ThreadGoal.text()`` writes, so the live view and
the saved fallback say the same; Stop while a goal runs pauses it and ends its turn.

A real Codex thread's own account of itself shows too: beside the turn status, what it waits on
(``thread_status``: ``Waiting on your approval``, ``Waiting on your answer``, ``Codex reported a
system error``), and under it the settings of its next turn (``thread_settings``: model, effort,
Plan or Default mode, approvals, sandbox), each in the words ``ThreadStatus.text()`` /
``ThreadSettings.text()`` write, so the live view and the saved fallback say the same.

The option pickers follow the source's options (``capabilities.options``: an ACP agent's mode,
model, effort, Plan mode...), drawn from ``source.options`` and redrawn on each ``options_updated``
event, so a change the agent makes itself shows too. A person's pick calls
``await source.set_option(id, value)`` on the kernel's loop; the options shown change only when the
agent has answered (its own report of the option, never the pick), and a refusal is said under
the pickers.

Kernel -> browser is synced state: ``status``, ``stoppable``, ``last_stop`` (the
reply to the latest Stop request, by id), ``usage``, ``goal``, ``waiting``, ``settings``,
``options``, ``last_option`` and ``error``.
Browser -> kernel is ``{"id": ..., "kind": "stop"}`` (``protocol.json``, widget
``turn_controls``), which calls ``session.interrupt()``; every request gets exactly one reply in
``last_stop``: ``interrupting`` or ``not_running``. ``{"id", "kind": "set_option", "option",
"value"}`` is answered in ``last_option``: ``setting`` at once, then ``set`` or ``refused`` (with
the reason). The handler is thread-safe (comm messages may arrive on a subshell thread on
ipykernel 7.0-7.3).

A real Codex thread whose release has ``thread/compact/start`` also gets a Compact button
(``can_compact``): ``{"id": ..., "kind": "compact"}`` runs ``thread.compact()`` on the server's
loop, and ``compact_note`` says how it went; the transcript shows Codex's compaction turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import threading
from typing import Any

import anywidget
import traitlets

from ..events.source import EventSource
from ..protocol.capabilities import capabilities_of
from ..protocol.events import Event
from ..events.usage_meter import UsageMeter
from ..protocol.goal import STATUS_TEXT, ThreadGoal
from ..protocol.thread_state import ThreadSettings, ThreadSettingsUpdated, ThreadStatus, ThreadStatusChanged
from ._static import asset, load_json, turn_status_labels
from .browser_messages import ProtocolError, validate_to_kernel
from .final_state import FinalStateFallback
from .thread_actions import offers, run_on_server
from .kernel_loop import call_on

log = logging.getLogger("codex_nb.widgets.turn_controls")

WIDGET = "turn_controls"


def usage_text(usage: dict[str, Any]) -> str:
    """The meter's words (the view writes the same, ``js/turn_controls.js`` ``usageText``):
    ``Context: 11,142 of 258,400 tokens (4%) · This turn: 44,001 · In all: 44,001``; a figure
    not in ``usage`` is left out, and no figure at all is the empty string."""
    parts = []
    used, window = usage.get("context_used"), usage.get("context_window")
    if used is not None and window:
        parts.append(f"Context: {used:,} of {window:,} tokens ({used * 100 // window}%)")
    elif used is not None:
        parts.append(f"Context: {used:,} tokens")
    if usage.get("turn") is not None:
        parts.append(f"This turn: {usage['turn']:,}")
    if usage.get("total") is not None:
        parts.append(f"In all: {usage['total']:,}")
    return " \u00b7 ".join(parts)


def goal_state(goal: ThreadGoal | None) -> dict[str, Any]:
    """The synced ``goal`` trait of a goal ({} for none): its fields and its words, written once
    here so the view and the saved fallback read the same."""
    if goal is None:
        return {}
    return {
        "objective": goal.objective,
        "status": goal.status,
        "status_text": STATUS_TEXT[goal.status],
        "usage_text": goal.usage_text(),
        "tokens_used": goal.tokens_used,
        "token_budget": goal.token_budget,
    }


def goal_lines(goal: dict[str, Any]) -> list[str]:
    """The goal card's two lines as plain text (``ThreadGoal.text()``), none for no goal."""
    if not goal:
        return []
    return [f"Goal ({goal['status_text']}): {goal['objective']}", goal["usage_text"]]


def stop_outcomes() -> tuple[str, ...]:
    """The reply outcomes of a ``stop`` request, from ``protocol.json``."""
    return tuple(load_json("protocol.json")["widgets"][WIDGET]["stop_outcomes"])


def option_outcomes() -> tuple[str, ...]:
    """The reply outcomes of a ``set_option`` request, from ``protocol.json``."""
    return tuple(load_json("protocol.json")["widgets"][WIDGET]["option_outcomes"])


def options_text(options: list[dict[str, Any]]) -> str:
    """The pickers' current values in one line (``Options: Mode: Plan · Model: gpt-5``), the name
    of each current choice; the empty string when the source offers none."""
    parts = []
    for option in options:
        current = option.get("current")
        if option.get("kind") == "boolean":
            shown = "on" if current else "off"
        else:
            names = {c.get("value"): c.get("name") for c in option.get("choices", [])}
            shown = str(names.get(current) or current)
        parts.append(f"{option.get('name')}: {shown}")
    return "Options: " + " \u00b7 ".join(parts) if parts else ""


class TurnControls(FinalStateFallback, anywidget.AnyWidget):
    """Turn state of ``session`` and a Stop button: ``cx.TurnControls(session)``."""

    _esm = asset("turn_controls.js")
    _css = asset("turn_controls.css")

    status = traitlets.Unicode("idle").tag(sync=True)
    """idle | running | completed | interrupted | failed (the latest turn of the session)."""
    stoppable = traitlets.Bool(False).tag(sync=True)
    """True while a turn runs and no Stop has been accepted for it yet."""
    can_stop = traitlets.Bool(True).tag(sync=True)
    """The source can stop a turn (``capabilities.interrupt``); the view shows no Stop button when not."""
    last_stop = traitlets.Dict().tag(sync=True)
    """Reply to the latest Stop request: ``{"id": ..., "outcome": "interrupting" | "not_running"}``."""
    error = traitlets.Unicode("").tag(sync=True)
    """The latest rejected browser message (cleared by the next accepted one)."""
    options = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The source's options as pickers draw them (``AgentOption.to_json()``: ``id``, ``name``,
    ``kind``, ``current``, ``category``, ``choices``), in the agent's order; empty when it offers none."""
    can_pick = traitlets.Bool(True).tag(sync=True)
    """Picks are sent (False once detached: a finished turn's controls show its options, frozen)."""
    last_option = traitlets.Dict().tag(sync=True)
    """Reply to the latest option pick: ``{"id", "option", "outcome": "setting" | "set" | "refused",
    "message"}``."""
    can_compact = traitlets.Bool(False).tag(sync=True)
    """The source can compact its thread (a real Codex thread whose release has
    ``thread/compact/start``); the view shows a Compact button only then."""
    compact_note = traitlets.Unicode("").tag(sync=True)
    """How the last Compact went (``Compacting…``, ``Context compacted``, or its one-line error)."""
    usage = traitlets.Dict().tag(sync=True)
    """Token usage, each figure only once reported (``UsageMeter``): ``context_used`` (tokens in the
    context window), ``context_window`` (its size), ``turn`` (this turn's tokens), ``total`` (the
    thread's). Keys: ``codex_nb.events.usage_meter.FIGURES``."""
    goal = traitlets.Dict().tag(sync=True)
    """The thread's goal ({} for none; ``goal_state``): ``objective``, ``status``, ``status_text``,
    ``usage_text``, ``tokens_used``, ``token_budget``."""
    waiting = traitlets.Unicode("").tag(sync=True)
    """What a real Codex thread waits on, as its status says (``ThreadStatus.text()``: ``Waiting on
    your approval``...); "" when there is nothing to say (idle, running, another source)."""
    settings = traitlets.Unicode("").tag(sync=True)
    """The settings of a real Codex thread's next turn in one line (``ThreadSettings.text()``); ""
    when the source reports none."""

    def __new__(cls, session: EventSource | None = None, **kwargs: Any) -> TurnControls:
        # checked before any widget state exists, so a bad call leaves no comm behind
        if not (hasattr(session, "subscribe") and hasattr(session, "interrupt")):
            raise TypeError(
                f"TurnControls needs a codex_nb.Session, got {type(session).__name__}; "
                f"create one with codex_nb.Session() and pass it: cx.TurnControls(session)"
            )
        widget: TurnControls = super().__new__(cls, session, **kwargs)
        return widget

    def __init__(self, session: EventSource, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._session = session
        self._lock = threading.Lock()
        self._detached = False
        self._turn_id: str | None = None
        self._failed_turns: set[str] = set()
        self.rejected: list[str] = []
        self.stops: list[dict[str, str]] = []
        """Every Stop reply, in order (for tests and notebooks)."""
        self.option_replies: list[dict[str, str]] = []
        """Every option pick's replies, in order (for tests and notebooks)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):  # made outside a loop: picks are sent where they arrive
            self._loop = asyncio.get_running_loop()
        # the thread's total so far (a later widget of the same session starts from it), so that
        # "this turn" is the running total less what it was when the turn started
        total = getattr(getattr(session, "token_usage", None), "total_tokens", None)
        self._meter = UsageMeter(total if isinstance(total, int) else None)
        self.usage = self._meter.snapshot()
        current = getattr(session, "goal", None)
        self.goal = goal_state(current if isinstance(current, ThreadGoal) else None)
        status = getattr(session, "status", None)
        self._thread_status = status if isinstance(status, ThreadStatus) else None
        self.waiting = self._thread_status.text() if self._thread_status is not None else ""
        settings = getattr(session, "settings", None)
        self.settings = settings.text() if isinstance(settings, ThreadSettings) else ""
        capabilities = capabilities_of(session)
        self.can_stop = capabilities.interrupt
        self._option_ids = capabilities.options
        if self._option_ids:
            offered: Any = getattr(session, "options", {})
            self.options = [o.to_json() for o in offered.values()]
        self.can_compact = offers(session, "compact", "thread/compact/start")
        self._compactions: set[asyncio.Task[Any]] = set()
        agent: Any = session  # a source that runs turns has active_turn
        active = agent.active_turn if capabilities.runs_turns else None
        if active is not None:  # attached while a turn already runs
            self._set("running", active.turn_id, stoppable=not active.turn.cancel.cancelled)
        self._unsubscribe = session.subscribe(self._on_event)
        self.on_msg(self._on_view_msg)

    # -- kernel -> view (from events only) -------------------------------------------------
    def _on_event(self, event: Event) -> None:
        kind = event.msg.type
        if kind == "goal_updated":
            self.goal = goal_state(getattr(event.msg, "goal", None))
        elif isinstance(event.msg, ThreadStatusChanged):
            self._thread_status = event.msg.status
            self.waiting = event.msg.status.text()
        elif isinstance(event.msg, ThreadSettingsUpdated):
            self.settings = event.msg.settings.text()
        elif kind == "token_count":
            with self._lock:
                if self._meter.count(getattr(event.msg, "info", None)):
                    self.usage = self._meter.snapshot()
        elif kind == "turn_started":
            with self._lock:
                self._meter.start_turn()
                self.usage = self._meter.snapshot()
            self._set("running", event.turn_id, stoppable=True)
        elif kind == "error" and event.turn_id is not None:
            self._failed_turns.add(event.turn_id)
        elif kind == "turn_complete" and event.turn_id == self._turn_id:
            self._set("failed" if event.turn_id in self._failed_turns else "completed", event.turn_id)
            self._stop_waiting()
        elif kind == "turn_aborted" and event.turn_id == self._turn_id:
            self._set("interrupted", event.turn_id)
            self._stop_waiting()
        elif kind == "options_updated":
            with self._lock:
                self.options = list(getattr(event.msg, "options", []))

    def _stop_waiting(self) -> None:
        """A turn that ended waits on no one: a waiting note Codex did not take back (its server
        died mid-question) goes with the turn; a system error stays, it is the thread's."""
        status = self._thread_status
        if status is not None and status.kind == "active":
            self.waiting = ""

    def _set(self, status: str, turn_id: str | None, *, stoppable: bool = False) -> None:
        with self._lock:
            self._turn_id = turn_id
            with self.hold_sync():
                self.status = status
                self.stoppable = stoppable

    # -- view -> kernel --------------------------------------------------------------------
    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        # ipykernel 7.0-7.3 may deliver comm messages on a subshell thread: a pick starts a task on
        # the kernel's loop, so the message is handled there (Stop is thread-safe either way)
        call_on(self._loop, self._handle_view_msg, content)

    def _handle_view_msg(self, content: object) -> None:
        try:
            self.handle_message(content)
        except ProtocolError as err:
            self._reject(str(err))
        except Exception as err:  # never let a widget message kill the comm handler  # noqa: BLE001
            log.exception("turn controls message failed")
            self._reject(f"internal error handling {content!r}: {type(err).__name__}: {err}")

    def handle_message(self, content: object) -> dict[str, str]:
        """Validate and apply one browser message; returns the reply (raises on a bad one)."""
        message = validate_to_kernel(WIDGET, content)
        if message["kind"] == "set_option":
            return self.set_option(message["option"], message["value"], request_id=message["id"])
        if message["kind"] == "compact":
            return self.compact(request_id=message["id"])
        return self.stop(request_id=message["id"])

    def set_option(self, option_id: str, value: str | bool, *, request_id: str = "python") -> dict[str, str]:
        """What a picker does: ``await source.set_option(option_id, value)`` in a task on the
        kernel's loop. Returns the first reply (``setting``, or ``refused`` at once when the source
        offers no such option or no loop runs); the agent's answer follows in ``last_option`` (and
        ``option_replies``): ``set``, or ``refused`` with the agent's reason."""
        if self._detached:
            return self._option_reply(
                request_id,
                option_id,
                "refused",
                "these controls show a finished turn; pick in the side panel, or pass --option to %%codex",
            )
        if option_id not in self._option_ids:
            offered = ", ".join(self._option_ids) or "none"
            return self._option_reply(
                request_id, option_id, "refused", f"this source offers no option {option_id!r} (its options: {offered})"
            )
        loop = self._loop
        if loop is None or loop.is_closed():
            return self._option_reply(request_id, option_id, "refused", "no event loop runs to send the option on")
        session: Any = self._session
        task = loop.create_task(session.set_option(option_id, value))
        self._tasks.add(task)

        def done(task: asyncio.Task[Any]) -> None:
            self._tasks.discard(task)
            error = None if task.cancelled() else task.exception()
            if task.cancelled():
                self._option_reply(request_id, option_id, "refused", "the pick was cancelled before the agent answered")
            elif error is not None:
                self._option_reply(request_id, option_id, "refused", str(error))
            else:
                self._option_reply(request_id, option_id, "set", "")

        task.add_done_callback(done)
        return self._option_reply(request_id, option_id, "setting", "")

    def _option_reply(self, request_id: str, option_id: str, outcome: str, text: str) -> dict[str, str]:
        reply = {"id": request_id, "option": option_id, "outcome": outcome, "message": text}
        with self._lock, self.hold_sync():
            self.last_option = reply
            self.error = ""
        self.option_replies.append(reply)
        return reply

    def compact(self, *, request_id: str = "python") -> dict[str, str]:
        """What the Compact button does: ``thread.compact()`` on the server's loop, in the background;
        ``compact_note`` says how it went. Refused (said in the note) while a turn runs."""
        session: Any = self._session
        if not self.can_compact:
            self.compact_note = "this source cannot compact its thread"
        elif self.status == "running":
            self.compact_note = "a turn is running: stop it or let it end before compacting"
        else:
            self.compact_note = "Compacting…"
            run_on_server(
                session,
                session.compact,
                self._compacted,
                done=lambda r: "Context compacted" if r.status == "completed" else f"Compaction {r.status}",
                tasks=self._compactions,
            )
        self.error = ""
        return {"id": request_id, "outcome": self.compact_note}

    def _compacted(self, line: str) -> None:
        self.compact_note = line

    def stop(self, *, request_id: str = "python") -> dict[str, str]:
        """What the Stop button does: interrupt the running turn. Safe from any thread."""
        started = not self._detached and self._session.interrupt()
        reply = {"id": request_id, "outcome": "interrupting" if started else "not_running"}
        with self._lock, self.hold_sync():
            if started:
                self.stoppable = False
            self.last_stop = reply
            self.error = ""
        self.stops.append(reply)
        return reply

    def _reject(self, text: str) -> None:
        log.warning("turn controls rejected a message: %s", text)
        self.rejected.append(text)
        self.error = text

    # -- reprs (stable for nbval: no addresses, no ids, no times) ---------------------------
    def status_text(self) -> str:
        """The turn status in one line (``Turn: running [Stop]``), in the wording the view shows;
        ``(stopping)`` once a Stop was accepted and the turn has not ended yet."""
        line = f"Turn: {turn_status_labels().get(self.status, self.status)}"
        if self.stoppable:
            line += " [Stop]"
        elif self.status == "running":
            line += " (stopping)"
        return line

    def status_line(self) -> str:
        """``status_text()`` and, on a real Codex thread waiting on the person, what it waits on:
        ``Turn: running [Stop] · Waiting on your approval``."""
        return " \u00b7 ".join(part for part in (self.status_text(), self.waiting) if part)

    def settings_text(self) -> str:
        """``Settings: gpt-5.1-codex · Plan mode · approvals: never · sandbox: read-only``; "" when
        the source reports no settings."""
        return f"Settings: {self.settings}" if self.settings else ""

    def text(self) -> str:
        """The goal card's lines (a real Codex thread with a goal), ``status_line()``, the settings
        line (a real Codex thread), then the options' line where the source offers options, then the
        usage meter's line once a source has reported usage."""
        lines = [
            *goal_lines(self.goal),
            self.status_line(),
            self.settings_text(),
            options_text(self.options),
            usage_text(self.usage),
        ]
        return "\n".join(line for line in lines if line)

    def html(self) -> str:
        """``text()`` as escaped HTML, with a disabled Stop button while a turn runs; the meter's
        line is a block of its own, so a viewer without the widget's CSS shows it on its own line."""
        button = "<button disabled>Stop</button>" if self.status == "running" else ""
        meter = usage_text(self.usage)
        usage = f'<div class="cx-turn-usage">{html.escape(meter)}</div>' if meter else ""
        chosen = options_text(self.options)
        options = f'<div class="cx-turn-options">{html.escape(chosen)}</div>' if chosen else ""
        card = ""
        if self.goal:
            title, figures = goal_lines(self.goal)
            card = (
                f'<div class="cx-goal-card" data-status="{html.escape(self.goal["status"])}">'
                f'<div class="cx-goal-title">{html.escape(title)}</div>'
                f'<div class="cx-goal-usage">{html.escape(figures)}</div></div>'
            )
        waiting = f' <span class="cx-turn-waiting">\u00b7 {html.escape(self.waiting)}</span>' if self.waiting else ""
        line = self.settings_text()
        settings = f'<div class="cx-turn-settings">{html.escape(line)}</div>' if line else ""
        return (
            f'<div class="cx-turn-controls-static">{card}<span class="cx-turn-status">'
            f"{html.escape(self.status_text())}</span>{button}{waiting}{settings}{options}{usage}</div>"
        )

    def __repr__(self) -> str:
        return self.text()

    def detach(self) -> None:
        """Stop following the session (the shown state stays): a finished turn's controls.

        A detached Stop never interrupts: it would stop a later turn it does not show; its option
        pickers are frozen too."""
        self._detached = True
        self.can_pick = False
        self._unsubscribe()

    def close(self) -> None:
        """Stop following the session, then close the comm."""
        self._unsubscribe()
        super().close()
