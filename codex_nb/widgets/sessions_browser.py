"""SessionsBrowser: a Codex home's saved sessions as a sortable, filterable table, one session's
plan timeline and transcript, and Resume / Fork into live widgets.

``cx.SessionsBrowser(codex_home=..., server=...)`` lists ``cx.codex_sessions()``. Selecting a row
(in the view, or ``select(id)``) reads that rollout and shows its ``PlanTimelineWidget`` and the
``Transcript`` of its last turn (``RolloutReplay.play_turn``), no binary needed. With a started
``cx.CodexAppServer`` as ``server``, ``await resume()`` reopens the session through ``thread/resume``
and ``await fork()`` starts a new thread from it through ``thread/fork`` (the Fork button is hidden
when the binary lacks it: ``server.features``), each shown in the notebook's live widgets
(checklist, turn controls, prompts, transcript); ``await refresh()`` lists the server's own threads
(``thread/list``). The live transcript starts with the saved conversation (its newest
``SAVED_TURNS`` turns) and the checklist with the last saved plan. The view's buttons run those on
the app-server's own loop (a comm message may arrive on another thread or loop, and the server's
futures belong to the loop it started on), as background tasks: a cell is never blocked, and a
failure is shown in the table's error line. Sort, filter and selection are synced traits, so the
Python calls and the view agree.
"""

from __future__ import annotations

import asyncio
import html
import logging
import os
from typing import Any

import anywidget
import ipywidgets
import traitlets

from ..protocol.events import PlanUpdate
from ..rollouts.rollout_replay import SAVED_TURNS, ReplayError, RolloutReplay
from ..rollouts.rollout_lines import RolloutError
from ..rollouts.sessions import CodexSession, SessionList, codex_sessions
from ..timeline.recorder import PlanTimeline
from ._static import asset
from .browser_messages import ProtocolError, protocol, validate_to_kernel
from .checklist import PlanChecklist, _running_loop
from .prompts import PromptsWidget
from .static_fallback import StaticFallback
from .timeline import PlanTimelineWidget
from .transcript import Transcript
from .turn_controls import TurnControls

log = logging.getLogger("codex_nb.sessions")
_NUMERIC = frozenset({"turns", "size"})
_SEARCHED = ("id", "started", "cwd", "prompt", "model", "status", "problem")


def visible_rows(rows: list[dict[str, Any]], query: str, sort_by: str, descending: bool) -> list[dict[str, Any]]:
    """The rows the view shows: every word of ``query`` somewhere in the row (case-insensitive),
    sorted by ``sort_by`` (ties by id); the rules of ``js/sessions_view.js``."""
    words = query.lower().split()
    kept = [r for r in rows if all(w in "\n".join(str(r.get(k, "")) for k in _SEARCHED).lower() for w in words)]
    numeric = sort_by in _NUMERIC
    kept.sort(key=lambda r: r["id"])
    kept.sort(key=lambda r: float(r.get(sort_by) or 0) if numeric else str(r.get(sort_by, "")), reverse=descending)
    return kept


class SessionsTable(StaticFallback, anywidget.AnyWidget):
    """The table view of ``SessionsBrowser`` (use the browser; this is its front end)."""

    _esm = asset("sessions.js")
    _css = asset("sessions.css")

    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``CodexSession.row()`` of every listed session."""
    live = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The running app-server's threads (``thread/list``): ``{id, preview, cwd, created}``."""
    query = traitlets.Unicode("").tag(sync=True)
    sort_by = traitlets.Unicode("started").tag(sync=True)
    descending = traitlets.Bool(True).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    features = traitlets.Dict().tag(sync=True)
    """``{"resume": bool, "fork": bool}``: which buttons the view shows."""
    status = traitlets.Unicode("").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    @traitlets.validate("sort_by")
    def _check_column(self, proposal: dict[str, Any]) -> str:
        columns = protocol()["widgets"]["sessions"]["columns"]
        if proposal["value"] not in columns:
            raise traitlets.TraitError(f"sort_by must be one of {columns}, got {proposal['value']!r}")
        return str(proposal["value"])

    def visible(self) -> list[dict[str, Any]]:
        """The rows as the view shows them (filtered by ``query``, sorted by ``sort_by``)."""
        return visible_rows(list(self.rows), self.query, self.sort_by, self.descending)

    def text(self) -> str:
        shown = self.visible()
        head = f"Codex sessions: {len(shown)} of {len(self.rows)} shown"
        if self.query:
            head += f" (filter {self.query!r})"
        lines = [head]
        for row in shown[:50]:
            mark = "*" if row["id"] == self.selected else " "
            turns = str(row["turns"]) if row["turns_exact"] else f">={row['turns']}"
            plan = f" plan {row['plan']}" if row["plan"] else ""
            problem = f"  ! {row['problem']}" if row["problem"] else ""
            lines.append(
                f"{mark} {row['started'][:16].replace('T', ' ')}  {row['cwd']}  {turns} turn(s){plan}  "
                f"{row['prompt'][:60]!r}{problem}"
            )
        if len(shown) > 50:
            lines.append(f"  ... {len(shown) - 50} more")
        if self.error:  # the status line names the home's path: the view shows it, the text does not
            lines.append(self.error)
        return "\n".join(lines)

    def html(self) -> str:
        return f'<pre class="cx-sessions-static">{html.escape(self.text())}</pre>'


class SessionsBrowser(StaticFallback, ipywidgets.VBox):
    """``cx.SessionsBrowser(codex_home=None, server=None)``: browse, open, resume and fork saved sessions."""

    def __init__(
        self,
        sessions: SessionList | None = None,
        *,
        codex_home: str | os.PathLike[str] | None = None,
        server: Any = None,
        **kwargs: Any,
    ) -> None:
        self.sessions = sessions if sessions is not None else codex_sessions(codex_home)
        self.server = server
        self.table = SessionsTable(rows=[s.row() for s in self.sessions], status=self.sessions.summary())
        self.table.features = self._features()
        self.detail = ipywidgets.VBox()
        self.replay: RolloutReplay | None = None
        self.timeline: PlanTimeline | None = None
        self.thread: Any = None
        """The thread the last Resume or Fork opened (a ``CodexThread``), or None."""
        self.live_widgets: list[Any] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        super().__init__([self.table, self.detail], **kwargs)
        self.table.observe(self._on_selected, names="selected")
        self.table.on_msg(self._on_view_msg)

    def _features(self) -> dict[str, bool]:
        if self.server is None:
            return {"resume": False, "fork": False}
        features = self.server.features
        return {"resume": bool(features.get("thread/resume")), "fork": bool(features.get("thread/fork"))}

    # -- the table ---------------------------------------------------------------------------
    def filter(self, query: str) -> list[CodexSession]:
        """Show only sessions whose row holds every word of ``query``; returns them in view order."""
        self.table.query = query
        return self.visible()

    def sort(self, column: str, *, descending: bool = False) -> list[CodexSession]:
        """Sort the table by ``column`` (``started``, ``cwd``, ``prompt``, ``model``, ``turns``,
        ``plan``, ``status``); returns the sessions in view order."""
        with self.table.hold_trait_notifications():
            self.table.sort_by = column
            self.table.descending = descending
        return self.visible()

    def visible(self) -> list[CodexSession]:
        """The sessions as the view shows them."""
        by_id = {s.row()["id"]: s for s in self.sessions}
        return [by_id[row["id"]] for row in self.table.visible()]

    def select(self, session_id: str) -> CodexSession:
        """Open a session: its plan timeline and its last turn's transcript appear below the table."""
        session = self._session(session_id)
        if self.table.selected != session_id:
            self.table.selected = session_id  # _on_selected shows it
        else:
            self._show(session)
        return session

    def _session(self, session_id: str | None) -> CodexSession:
        wanted = session_id or self.table.selected
        if not wanted:
            raise KeyError("no session is selected; select one first: browser.select(session_id)")
        for session in self.sessions:
            if session.row()["id"] == wanted:
                return session
        raise KeyError(f"no session {wanted!r} in {self.sessions.home}")

    def _on_selected(self, change: dict[str, Any]) -> None:
        if change["new"]:
            try:
                self._show(self._session(change["new"]))
            except KeyError as err:
                self.table.error = str(err.args[0])

    def _show(self, session: CodexSession) -> None:
        self._close_detail()
        header = ipywidgets.HTML(html.escape(f"{session.started or '?'} · {session.cwd or '?'} · {session.path.name}"))
        try:
            rollout = session.read()
        except RolloutError as err:
            self.detail.children = [header, ipywidgets.HTML(html.escape(f"cannot open it: {err}"))]
            self.table.error = ""
            return
        self.replay = RolloutReplay(rollout)
        self.timeline = PlanTimeline(self.replay)
        self.timeline.load_rollout(rollout)
        transcript = Transcript(self.replay, max_rate=None)
        try:
            self.replay.play_turn(-1)
        except ReplayError:
            pass  # no turns: the transcript says it is idle
        notes = [rollout.summary()] + ([session.problem] if session.problem else [])
        self.detail.children = [
            header,
            ipywidgets.HTML(html.escape("; ".join(notes))),
            PlanTimelineWidget(self.timeline, max_rate=None),
            transcript,
        ]
        self.table.error = ""

    def _close_detail(self) -> None:
        """Close every widget the detail area shows (a session's or a live thread's): a new
        selection or a Resume replaces them, and an unclosed widget keeps its comm and its
        subscription. A live thread goes on (``browser.thread``)."""
        for child in [*self.detail.children, *self.live_widgets]:
            child.close()
        self.live_widgets = []
        if self.timeline is not None:
            self.timeline.close()
            self.timeline = None
        self.detail.children = []

    # -- live: resume, fork, the server's thread list -----------------------------------------------
    def _need_server(self, what: str) -> Any:
        if self.server is None:
            raise RuntimeError(
                f"{what} needs a running Codex: pass server=cx.CodexAppServer(...) (started) to SessionsBrowser"
            )
        return self.server

    async def resume(self, session_id: str | None = None, **params: Any) -> Any:
        """Reopen the selected (or given) session live through ``thread/resume``; its thread is shown
        in the live widgets and returned. ``params`` go to ``CodexAppServer.resume_thread``."""
        server = self._need_server("Resume")
        session = self._session(session_id)
        thread = await server.resume_thread(session.thread_id or session.row()["id"], **params)
        self._open_live(thread, session, f"resumed {session.thread_id}")
        return thread

    async def fork(self, session_id: str | None = None, **params: Any) -> Any:
        """Start a new thread from the selected (or given) session through ``thread/fork``; shown and
        returned like ``resume``. Raises ``CodexVersionError`` when the binary has no ``thread/fork``."""
        server = self._need_server("Fork")
        session = self._session(session_id)
        thread = await server.fork_thread(session.thread_id or session.row()["id"], **params)
        self._open_live(thread, session, f"forked {session.thread_id} into {thread.thread_id}")
        return thread

    async def refresh(self) -> list[dict[str, Any]]:
        """List the running app-server's threads (``thread/list``) under the table; returns them."""
        server = self._need_server("The thread list")
        answer = await server.list_threads(limit=50)
        live = [
            {"id": str(t.get("id")), "preview": str(t.get("preview") or "")[:80], "cwd": str(t.get("cwd") or "")}
            for t in answer.get("data") or []
            if isinstance(t, dict)
        ]
        self.table.live = live
        return live

    def _open_live(self, thread: Any, session: CodexSession, what: str) -> None:
        self._close_detail()
        self.thread = thread
        notes = [f"Live: {what}"]
        try:
            replay: RolloutReplay | None = RolloutReplay(session.read())
        except RolloutError as err:
            replay = None
            notes.append(f"its saved conversation cannot be shown: {err}")
        plans = replay.rollout.plans if replay is not None else []
        if plans and thread.latest_plan() is None:
            # the checklist starts from the thread's last-value cache: seed it with the saved plan,
            # which a live plan then replaces (it gets the next revision)
            thread.emit(PlanUpdate.from_args(plans[-1].args), turn_id=plans[-1].turn_id)
        transcript = Transcript(thread)
        if replay is not None:
            saved, earlier = replay.saved_turns(SAVED_TURNS)
            transcript.show_saved(saved, earlier_turns=earlier)
        self.live_widgets = [TurnControls(thread), PlanChecklist(thread), PromptsWidget(thread), transcript]
        self.detail.children = [ipywidgets.HTML(html.escape("; ".join(notes))), *self.live_widgets]
        self.table.status = f"{what}: start a turn with browser.thread.start_turn(text)"
        self.table.error = ""

    def _on_view_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            message = validate_to_kernel("sessions", content)
        except ProtocolError as err:
            self.table.error = f"the view sent a message codex_nb cannot read: {err}"
            self.table.send(
                {"id": content.get("id") if isinstance(content, dict) else None, "kind": "error", "message": str(err)}
            )
            return
        kind = message["kind"]
        try:
            loop = self._need_server({"refresh": "The thread list", "resume": "Resume"}.get(kind, "Fork")).loop
        except Exception as err:  # no server, or not started: said in the view  # noqa: BLE001
            self.table.error = str(err).splitlines()[0][:400]
            return
        if loop.is_closed():
            self.table.error = "the app-server's event loop is closed: start a new cx.CodexAppServer"
            return
        self.table.error = ""
        self.run_on_loop(loop, kind, message.get("session"))

    def run_on_loop(self, loop: asyncio.AbstractEventLoop, kind: str, session: str | None) -> None:
        """Run the view's action ``kind`` (refresh | resume | fork) as a task on ``loop`` (the
        app-server's), from any thread; its failure is shown in the table's ``error``."""

        def start() -> None:
            action = self.refresh() if kind == "refresh" else (self.resume if kind == "resume" else self.fork)(session)
            task = loop.create_task(action)
            self._tasks.add(task)
            task.add_done_callback(self._done)

        if _running_loop() is loop:
            start()
        else:
            loop.call_soon_threadsafe(start)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.warning("%s", error)
            self.table.error = (str(error).splitlines() or [type(error).__name__])[0][:400]

    def close(self) -> None:
        """Close the table, the detail widgets and the live ones (a running turn goes on)."""
        self._close_detail()
        self.table.close()
        super().close()

    def text(self) -> str:
        """The table as text, and what the detail area shows."""
        parts = [self.table.text()]
        for child in self.detail.children:
            text = getattr(child, "text", None)
            if callable(text):
                parts.append(str(text()))
        return "\n".join(parts)

    def html(self) -> str:
        """The table and the detail area as static escaped HTML (viewers without a widget manager)."""
        return f'<pre class="cx-sessions-static">{html.escape(self.text())}</pre>'

    def __repr__(self) -> str:
        return self.text()
