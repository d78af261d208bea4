"""PromptsWidget: answer questions, permission requests, command and file-change approvals and
MCP elicitations in the notebook.

Kernel -> browser is synced state only: ``requests`` holds the session's pending
requests (from its ``FrontendRequests`` broker, the registry of pending server
requests), ``resolved`` the recent outcomes (from ``frontend_request_resolved``
events), ``error`` the latest rejected browser message. Browser -> kernel is
``{id, kind, ...}`` with ``id`` the request id (``protocol.json``, widget ``prompts``);
answers are validated, then settle the request thread-safely. A malformed, unknown-id
or already-settled answer is shown in ``error`` and logged; the kernel keeps running.

While the widget's comm is open the session counts as having a frontend; once a view
has rendered (it sends ``ready``) requests wait for a person instead of failing fast.

``record`` carries the session's approvals record (the latest ``MAX_RECORD`` entries) so that
a notebook saved with its widget state keeps what was asked and answered.
"""

from __future__ import annotations

import html
import logging
from typing import Any

import anywidget
import traitlets

from ..events.source import EventSource
from ..frontend.record import summarize
from ..errors import AnswerError
from ..frontend.requests import FrontendRequest, RequestKind
from ..protocol.capabilities import capabilities_of
from ..protocol.events import Event
from ..protocol.frontend import FrontendRequestResolved
from ..protocol.wire import well_formed, well_formed_json
from ._static import asset
from .browser_messages import ProtocolError, validate_to_kernel
from .final_state import FinalStateFallback

log = logging.getLogger("codex_nb.widgets.prompts")

WIDGET = "prompts"
MAX_RESOLVED = 20
MAX_RECORD = 200


_ANSWER_KINDS = {
    RequestKind.USER_INPUT: "answer_user_input",
    RequestKind.PERMISSIONS: "answer_permissions",
    RequestKind.APPROVAL: "answer_approval",
    RequestKind.ELICITATION: "answer_elicitation",
}


def validate_message(message: object) -> dict[str, Any]:
    """Return ``message`` if it is a valid prompts request, else raise ``ProtocolError``."""
    return validate_to_kernel(WIDGET, message)


def _summary(request: FrontendRequest) -> str:
    return summarize(request.kind.value, request.msg.to_wire())


class PromptsWidget(FinalStateFallback, anywidget.AnyWidget):
    """Pending questions and permission requests of ``session``: ``cx.PromptsWidget(session)``."""

    _esm = asset("prompts.js")
    _css = asset("prompts.css")

    requests = traitlets.List(traitlets.Dict()).tag(sync=True)
    """Pending requests, oldest first: ``{id, kind, turn_id, call_id, request, deadline_ms}``."""
    resolved = traitlets.List(traitlets.Dict()).tag(sync=True)
    """Recent settlements, newest last: ``{id, kind, call_id, outcome}``."""
    error = traitlets.Unicode("").tag(sync=True)
    """The latest rejected browser message (cleared by the next accepted one)."""
    record = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The session's approvals record as JSON, newest last (saved with the notebook's widget state)."""

    def __new__(cls, session: EventSource | None = None, **kwargs: Any) -> PromptsWidget:
        # checked before any widget state exists, so a bad call leaves no half-built comm behind
        if not capabilities_of(session).answers:
            raise TypeError(
                f"PromptsWidget needs a source that asks a person (its capabilities.answers), got "
                f"{type(session).__name__}; show it for a codex_nb.Session, a Codex thread or an ACP session"
            )
        widget: PromptsWidget = super().__new__(cls, session, **kwargs)
        return widget

    def __init__(self, session: EventSource, **kwargs: Any) -> None:
        broker = session.frontend_requests
        super().__init__(**kwargs)
        self.ready = False
        """True once a view rendered in a browser (it sent ``ready``)."""
        self.rejected: list[str] = []
        self._broker = broker
        self._recorded = -1
        self._detach = broker.attach(self)
        self._unlisten = broker.add_listener(self._sync)
        self._unsubscribe = session.subscribe(self._on_event)
        self.on_msg(self._on_view_msg)
        self._sync()

    @property
    def alive(self) -> bool:
        """The comm is open (the widget may be displayed)."""
        return getattr(self, "comm", None) is not None

    # -- kernel -> view -------------------------------------------------------------------
    def _sync(self) -> None:
        record = self._broker.approvals
        if len(record) != self._recorded:
            self._recorded = len(record)
            self.record = well_formed_json([r.to_json() for r in record[-MAX_RECORD:]])
        views = well_formed_json([r.view() for r in self._broker.pending])  # comms carry UTF-8 only
        if views != self.requests:
            still = {v.get("id") for v in views}
            if any(r.get("id") not in still for r in self.requests):
                self.error = ""  # a request was settled (here or elsewhere): an earlier rejection is stale
            self.requests = views

    def _on_event(self, event: Event) -> None:
        msg = event.msg
        # The cheap check first: isinstance on a model class is slow, and most events are others.
        if msg.type != "frontend_request_resolved" or not isinstance(msg, FrontendRequestResolved):
            return
        entry = {"id": msg.request_id, "kind": msg.kind, "call_id": msg.call_id, "outcome": msg.outcome}
        self.resolved = [*self.resolved, entry][-MAX_RESOLVED:]

    # -- view -> kernel -------------------------------------------------------------------
    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        self.receive(content)

    def receive(self, content: object) -> bool:
        """Apply one browser message as the comm handler does: a bad message is shown in
        ``error`` (and kept in ``rejected``) instead of raising. Returns True if accepted."""
        try:
            self.handle_message(content)
        except (ProtocolError, AnswerError) as err:
            self._reject(str(err))
        except Exception as err:  # never let a widget message kill the comm handler  # noqa: BLE001
            log.exception("prompts widget message failed")
            self._reject(f"internal error handling {content!r}: {type(err).__name__}: {err}")
        else:
            return True
        return False

    def handle_message(self, content: object) -> None:
        """Validate and apply one browser message (raises on a bad one)."""
        message = validate_message(content)
        kind = message["kind"]
        if kind == "ready":
            self.ready = True
            return
        request = self._broker.get(message["id"])
        if request is not None:
            expected = _ANSWER_KINDS[request.kind]
            if kind != expected:
                raise ProtocolError(
                    f"request {request.id} is a {request.kind.value} request; answer it with {expected}, not {kind}"
                )
        if kind == "answer_user_input":
            response = message["answers"]
        elif kind == "answer_elicitation":
            response = {"action": message["action"], "content": message["content"], "persist": message.get("persist")}
        else:
            response = message["decision"]
        self._broker.answer(message["id"], response, by="widget")
        self.error = ""

    def _reject(self, text: str) -> None:
        log.info("prompts widget rejected a message: %s", text)
        self.rejected.append(text)
        self.error = well_formed(text)

    # -- reprs (stable for nbval: no addresses, no ids) -------------------------------------
    def text(self) -> str:
        """The pending requests as plain text: a count line, then one line per request with its kind
        and a summary (``Prompts: no pending requests`` when none wait)."""
        pending = self._broker.pending
        if not pending:
            return "Prompts: no pending requests"
        lines = [f"Prompts: {len(pending)} pending"]
        lines += [f"  [{r.kind.value}] {_summary(r)}" for r in pending]
        return "\n".join(lines)

    def html(self) -> str:
        """``text()`` as escaped HTML: the count line in bold, the requests as a list."""
        rows = "".join(f"<li>{html.escape(line.strip())}</li>" for line in self.text().splitlines()[1:])
        head = html.escape(self.text().splitlines()[0])
        return f'<div class="cx-prompts-static"><b>{head}</b>{f"<ul>{rows}</ul>" if rows else ""}</div>'

    def __repr__(self) -> str:
        return self.text()

    def close(self) -> None:
        """Detach from the session's requests, then close the comm. When no other rendered prompts
        widget is left, requests that waited for a person here are routed again (the answer policy,
        ``CODEX_NB_ANSWER_POLICY``, or a fail-fast error)."""
        self._detach()
        self._unlisten()
        self._unsubscribe()
        super().close()
