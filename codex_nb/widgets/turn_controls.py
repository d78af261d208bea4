"""TurnControls: the session's turn state and a Stop button.

Kernel interrupt does not stop a cell that awaits a turn, and a background turn has no
cell to interrupt at all; this widget is the way to stop one. It follows the session's
events only (``turn_started`` -> running, ``turn_complete`` -> completed or failed,
``turn_aborted`` -> interrupted), never reading runtime state after it is built.

Kernel -> browser is synced state: ``status``, ``stoppable``, ``last_stop`` (the
reply to the latest Stop request, by id) and ``error``. Browser -> kernel is
``{"id": ..., "kind": "stop"}`` (``protocol.json``, widget ``turn_controls``), which
calls ``session.interrupt()``; every request gets exactly one reply in ``last_stop``:
``interrupting`` or ``not_running``. The handler is thread-safe (comm messages may
arrive on a subshell thread on ipykernel 7.0-7.3).
"""

from __future__ import annotations

import html
import logging
import threading
from typing import Any

import anywidget
import traitlets

from ..events.source import EventSource
from ..protocol.events import Event
from ._static import asset, load_json
from .browser_messages import ProtocolError, validate_to_kernel
from .final_state import FinalStateFallback

log = logging.getLogger("codex_nb.widgets.turn_controls")

WIDGET = "turn_controls"


def turn_status_labels() -> dict[str, str]:
    """The one wording of each turn status, from ``protocol.json`` (the views read it too)."""
    labels: dict[str, str] = load_json("protocol.json")["turn_status_labels"]
    return labels


def stop_outcomes() -> tuple[str, ...]:
    """The reply outcomes of a ``stop`` request, from ``protocol.json``."""
    return tuple(load_json("protocol.json")["widgets"][WIDGET]["stop_outcomes"])


class TurnControls(FinalStateFallback, anywidget.AnyWidget):
    """Turn state of ``session`` and a Stop button: ``cx.TurnControls(session)``."""

    _esm = asset("turn_controls.js")
    _css = asset("turn_controls.css")

    status = traitlets.Unicode("idle").tag(sync=True)
    """idle | running | completed | interrupted | failed (the latest turn of the session)."""
    stoppable = traitlets.Bool(False).tag(sync=True)
    """True while a turn runs and no Stop has been accepted for it yet."""
    last_stop = traitlets.Dict().tag(sync=True)
    """Reply to the latest Stop request: ``{"id": ..., "outcome": "interrupting" | "not_running"}``."""
    error = traitlets.Unicode("").tag(sync=True)
    """The latest rejected browser message (cleared by the next accepted one)."""

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
        active = getattr(session, "active_turn", None)
        if active is not None:  # attached while a turn already runs
            self._set("running", active.turn_id, stoppable=not active.turn.cancel.cancelled)
        self._unsubscribe = session.subscribe(self._on_event)
        self.on_msg(self._on_view_msg)

    # -- kernel -> view (from events only) -------------------------------------------------
    def _on_event(self, event: Event) -> None:
        kind = event.msg.type
        if kind == "turn_started":
            self._set("running", event.turn_id, stoppable=True)
        elif kind == "error" and event.turn_id is not None:
            self._failed_turns.add(event.turn_id)
        elif kind == "turn_complete" and event.turn_id == self._turn_id:
            self._set("failed" if event.turn_id in self._failed_turns else "completed", event.turn_id)
        elif kind == "turn_aborted" and event.turn_id == self._turn_id:
            self._set("interrupted", event.turn_id)

    def _set(self, status: str, turn_id: str | None, *, stoppable: bool = False) -> None:
        with self._lock:
            self._turn_id = turn_id
            with self.hold_sync():
                self.status = status
                self.stoppable = stoppable

    # -- view -> kernel --------------------------------------------------------------------
    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
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
        return self.stop(request_id=message["id"])

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
    def text(self) -> str:
        """The turn status in one line (``Turn: running [Stop]``), in the wording the view shows;
        ``(stopping)`` once a Stop was accepted and the turn has not ended yet."""
        line = f"Turn: {turn_status_labels().get(self.status, self.status)}"
        if self.stoppable:
            line += " [Stop]"
        elif self.status == "running":
            line += " (stopping)"
        return line

    def html(self) -> str:
        """``text()`` as escaped HTML, with a disabled Stop button while a turn runs."""
        button = "<button disabled>Stop</button>" if self.status == "running" else ""
        return (
            f'<div class="cx-turn-controls-static"><span class="cx-turn-status">'
            f"{html.escape(self.text())}</span>{button}</div>"
        )

    def __repr__(self) -> str:
        return self.text()

    def detach(self) -> None:
        """Stop following the session (the shown state stays): a finished turn's controls.

        A detached Stop never interrupts: it would stop a later turn it does not show."""
        self._detached = True
        self._unsubscribe()

    def close(self) -> None:
        """Stop following the session, then close the comm."""
        self._unsubscribe()
        super().close()
