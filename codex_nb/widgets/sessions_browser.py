"""SessionsBrowser: a Codex home's saved sessions as a sortable, filterable table, one session's
plan timeline and transcript, and Resume / Fork into live widgets.

``cx.SessionsBrowser(codex_home=..., server=...)`` lists ``cx.codex_sessions()``. Selecting a row
(in the view, or ``select(id)``) reads that rollout and shows its ``PlanTimelineWidget`` and the
``Transcript`` of its last turn (``RolloutReplay.play_turn``), no binary needed. With a started
``cx.CodexAppServer`` as ``server``, ``await resume()`` reopens the session through ``thread/resume``
and ``await fork()`` starts a new thread from it through ``thread/fork`` (the Fork button is hidden
when the binary lacks it: ``server.features``), each shown in the notebook's live widgets
(checklist, turn controls, prompts, transcript); ``await refresh()`` lists the server's own threads
(``thread/list``). The live transcript starts with the saved conversation and the checklist with
the last saved plan. A long session (a rollout over ``long_thread_bytes``) with a server that pages
history (``features["thread history pages"]``) is never parsed whole: selecting it shows its newest
``HISTORY_PAGE_TURNS`` turns read by pages (``ThreadHistory``), Resume and Fork ask Codex for no
turns (``excludeTurns``) and open with the newest page, and a "Load older turns" button above the
transcript adds the next older page (``await load_older()``). Otherwise the newest ``SAVED_TURNS``
turns come from the rollout. The view's buttons run those on
the app-server's own loop (a comm message may arrive on another thread or loop, and the server's
futures belong to the loop it started on), as background tasks: a cell is never blocked, and a
failure is shown in the table's error line. Sort, filter and selection are synced traits, so the
Python calls and the view agree.

With a server whose release has them (``server.features``), the selected session can also be
renamed (``await rename(name)``: ``thread/name/set``), archived (``await archive()``), deleted
(``await delete()``: the view asks first) and, from the archived list under the table
(``refresh()`` fills it), unarchived (``await unarchive(thread_id)``); the table is listed again
after each. A button for what the release lacks is hidden.

``cx.SessionsBrowser(agent=acp_agent)`` is the same table over an ACP agent's ``session/list``
(columns title, folder, updated): listed in the background when a loop runs (``await refresh()``
lists again), ``await resume()`` loads the selected session (``session/load``; its replay becomes
the transcript's saved conversation) or resumes it (``session/resume``) into the live widgets, and
``await fork()`` forks it where the agent offers ``session/fork``; the buttons run on the agent's
loop. What the agent lists is bounded: ``ACP_ROWS`` rows, titles and folders cut for display.
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

from ..acp.listing import SessionListing
from ..app_server.app_server_errors import AppServerError
from ..app_server.history_pages import HistoryError, HistoryPage, ThreadHistory
from ..protocol.events import Event, PlanUpdate
from ..rollouts.rollout_replay import SAVED_TURNS, ReplayError, RolloutReplay, SavedTurn
from ..rollouts.rollout import Rollout
from ..rollouts.rollout_lines import RolloutError
from ..rollouts.sessions import CodexSession, SessionList, codex_sessions
from ..timeline.recorder import PlanTimeline
from ._static import asset
from .browser_messages import ProtocolError, protocol, validate_to_kernel
from .checklist import PlanChecklist
from .kernel_loop import call_on, running_loop
from .prompts import PromptsWidget
from .static_fallback import StaticFallback
from .timeline import PlanTimelineWidget
from .transcript import Transcript
from .turn_controls import TurnControls

log = logging.getLogger("codex_nb.sessions")
_NUMERIC = frozenset({"turns", "size"})
_SEARCHED = ("id", "started", "cwd", "prompt", "model", "status", "problem", "title", "updated")
ACP_ROWS = 1000
"""The most rows an ACP agent's listing shows (the rest are counted in the status line)."""
ACP_LIST_BUDGET = 10.0
"""Seconds a listing (Refresh) pages an ACP agent's ``session/list`` before it shows what it has."""
_THREAD_VERBS = {
    "rename": "thread/name/set",
    "archive": "thread/archive",
    "unarchive": "thread/unarchive",
    "delete": "thread/delete",
}
"""The sessions browser's thread buttons -> the feature each rests on (hidden without it)."""
HISTORY_PAGE_TURNS = 20
"""Turns a resumed or forked thread's transcript opens with, and each "Load older turns" adds, when
the binary pages history (``thread/turns/list``)."""
HISTORY_ROWS = 2_000
"""The most transcript entries a paged history's view shows (about 500 plain turns): older turns
loaded beyond them are counted in the view's fold line, not drawn."""
LONG_THREAD_BYTES = 4 * 1024 * 1024
"""Rollouts larger than this are read by pages (selection, Resume, Fork: ``long_thread_bytes``)."""
PLAN_SEED_BYTES = 4 * 1024 * 1024
"""A paged Resume / Fork starts the checklist from the rollout's last plan only when the rollout is
at most this big: a longer one is not read whole at open (the next live plan fills the checklist)."""
_TITLE_CHARS = 200
_CWD_CHARS = 400
_ID_CHARS = 256


def _cut(text: Any, limit: int) -> str:
    text = "" if text is None else str(text)
    text = " ".join(text.split())  # one line: a title may hold newlines
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def acp_rows(listed: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The table rows of an ACP agent's ``list_sessions()`` answer: ``{id, title, cwd, updated}``,
    titles and folders cut for display, at most ``ACP_ROWS`` of them; and how many were left out
    (beyond ``ACP_ROWS``, repeated ids, ids that are not a short string)."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in listed:
        session_id = item.get("session_id")
        if not isinstance(session_id, str) or not session_id or len(session_id) > _ID_CHARS or session_id in seen:
            continue
        if len(rows) == ACP_ROWS:
            break
        seen.add(session_id)
        rows.append(
            {
                "id": session_id,
                "title": _cut(item.get("title"), _TITLE_CHARS),
                "cwd": _cut(item.get("cwd"), _CWD_CHARS),
                "updated": _cut(item.get("updated_at"), 40),
            }
        )
    return rows, len(listed) - len(rows)


def acp_features(agent: Any) -> dict[str, bool]:
    """Which buttons an ACP agent's capabilities allow: Resume (``loadSession`` or
    ``sessionCapabilities.resume``), Fork (``sessionCapabilities.fork``), Refresh (``.list``)."""
    info = getattr(agent, "info", None)
    if info is None:  # not started yet: the first listing starts it and says
        return {"resume": False, "fork": False, "refresh": True}
    capabilities = getattr(info, "agent_capabilities", None)
    sessions = getattr(capabilities, "session_capabilities", None)
    return {
        "resume": bool(getattr(capabilities, "load_session", False)) or getattr(sessions, "resume", None) is not None,
        "fork": getattr(sessions, "fork", None) is not None,
        "refresh": getattr(sessions, "list", None) is not None,
    }


def saved_acp_turns(events: list[Event]) -> list[SavedTurn]:
    """An ACP ``session/load`` replay as saved turns: each replayed user message starts one (its
    prompt); what the agent replayed after it is that turn's (the replay says nothing of how a turn
    ended: each is shown as completed). The session's title is no turn's: ``Transcript`` reads it
    from the session."""
    turns: list[SavedTurn] = []
    for event in events:
        if event.msg.type == "user_message":
            turns.append(
                SavedTurn(
                    turn_id=f"replay-{len(turns)}",
                    status="completed",
                    prompt=str(getattr(event.msg, "message", "")),
                    events=[],
                )
            )
        elif event.msg.type not in ("turn_started", "turn_complete", "turn_aborted", "acp_session_title"):
            # the title is the session's (Transcript reads it from the session), no turn's
            if not turns:
                turns.append(SavedTurn(turn_id="replay-0", status="completed", prompt=None, events=[]))
            turns[-1].events.append(event)
    return turns


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
    """``CodexSession.row()`` of every listed session (an ACP agent's: ``acp_rows()``)."""
    columns = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """The columns shown: a Codex home's (protocol ``columns``) or an ACP agent's (``acp_columns``)."""
    live = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The running app-server's threads (``thread/list``): ``{id, preview, cwd, created}``."""
    archived = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The app-server's archived threads (``thread/list`` with ``archived``): ``{id, name, preview}``."""
    query = traitlets.Unicode("").tag(sync=True)
    sort_by = traitlets.Unicode("started").tag(sync=True)
    descending = traitlets.Bool(True).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    features = traitlets.Dict().tag(sync=True)
    """``{"resume": bool, "fork": bool, "rename", "archive", "unarchive", "delete"}`` (and
    ``"refresh"`` for an ACP agent): which buttons the view shows."""
    status = traitlets.Unicode("").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    @traitlets.default("columns")
    def _codex_columns(self) -> list[str]:
        return list(protocol()["widgets"]["sessions"]["columns"])

    @traitlets.validate("sort_by")
    def _check_column(self, proposal: dict[str, Any]) -> str:
        columns = list(self.columns)
        if proposal["value"] not in columns:
            raise traitlets.TraitError(f"sort_by must be one of {columns}, got {proposal['value']!r}")
        return str(proposal["value"])

    def visible(self) -> list[dict[str, Any]]:
        """The rows as the view shows them (filtered by ``query``, sorted by ``sort_by``)."""
        return visible_rows(list(self.rows), self.query, self.sort_by, self.descending)

    def text(self) -> str:
        shown = self.visible()
        acp = "title" in self.columns
        head = f"{'ACP' if acp else 'Codex'} sessions: {len(shown)} of {len(self.rows)} shown"
        if self.query:
            head += f" (filter {self.query!r})"
        lines = [head]
        for row in shown[:50]:
            mark = "*" if row["id"] == self.selected else " "
            if acp:
                lines.append(f"{mark} {row['updated'][:16].replace('T', ' ')}  {row['cwd']}  {row['title'][:60]!r}")
                continue
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
    """``cx.SessionsBrowser(codex_home=None, server=None)``: browse, open, resume and fork saved
    sessions; ``cx.SessionsBrowser(agent=acp_agent, cwd=None)``: the same for an ACP agent's sessions."""

    def __new__(
        cls,
        sessions: SessionList | None = None,
        *,
        codex_home: str | os.PathLike[str] | None = None,
        server: Any = None,
        agent: Any = None,
        cwd: str | os.PathLike[str] | None = None,
        **kwargs: Any,
    ) -> SessionsBrowser:
        # checked here: a widget half-built by __init__ fails in __del__
        if agent is not None and (sessions is not None or codex_home is not None or server is not None):
            raise ValueError(
                "SessionsBrowser shows a Codex home's sessions (codex_home=, server=) or an ACP agent's "
                "(agent=), not both: make one browser for each"
            )
        if agent is None and cwd is not None:
            raise ValueError("SessionsBrowser(cwd=...) filters an ACP agent's listing: pass agent= too")
        browser: SessionsBrowser = super().__new__(cls)
        return browser

    def __init__(
        self,
        sessions: SessionList | None = None,
        *,
        codex_home: str | os.PathLike[str] | None = None,
        server: Any = None,
        agent: Any = None,
        cwd: str | os.PathLike[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.agent = agent
        """The ACP agent whose ``session/list`` the table shows (``agent=``), or None."""
        self.cwd = None if cwd is None else str(cwd)
        self.server = server
        self._creation_loop = running_loop()
        if agent is None:
            self.sessions: SessionList | None = sessions if sessions is not None else codex_sessions(codex_home)
            self.table = SessionsTable(rows=[s.row() for s in self.sessions], status=self.sessions.summary())
            self.table.features = self._features()
        else:
            self.sessions = None
            name = os.path.basename(str(getattr(agent, "command", "") or "")) or "agent"
            self.table = SessionsTable(
                columns=list(protocol()["widgets"]["sessions"]["acp_columns"]),
                status=f"the sessions of the ACP agent {name}: listing...",
            )
            self.table.sort_by = "updated"
            self.table.features = acp_features(agent)
        self.detail = ipywidgets.VBox()
        self.replay: RolloutReplay | None = None
        self.timeline: PlanTimeline | None = None
        self.thread: Any = None
        """The thread the last Resume or Fork opened (a ``CodexThread``), or None."""
        self.history: ThreadHistory | None = None
        """The paged history of the thread the last Resume or Fork opened (``load_older()`` adds a
        page), or None when the binary cannot page (its newest ``SAVED_TURNS`` come from the rollout)."""
        self.long_thread_bytes = LONG_THREAD_BYTES
        """A session whose rollout is larger than this is read by pages when the server pages
        history: selecting it shows its newest turns (no plan timeline), Resume and Fork ask Codex
        for no turns and open with the newest page. A smaller one is read whole from its rollout,
        which is as quick and shows its plan timeline."""
        self._history_view: Transcript | None = None
        self.older_button: ipywidgets.Button | None = None
        """The "Load older turns" button above a paged history's transcript (None when none is shown)."""
        self.live_widgets: list[Any] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        super().__init__([self.table, self.detail], **kwargs)
        self.table.observe(self._on_selected, names="selected")
        self.table.on_msg(self._on_view_msg)
        if agent is not None:
            loop = self._acp_loop()
            if loop is not None and not loop.is_closed():
                self.run_on_loop(loop, "refresh", None)
            else:
                self.table.status = f"the sessions of the ACP agent {name}: list them with await browser.refresh()"

    def _features(self) -> dict[str, bool]:
        if self.server is None:
            return {"resume": False, "fork": False}
        features = self.server.features
        found = {"resume": bool(features.get("thread/resume")), "fork": bool(features.get("thread/fork"))}
        for verb, method in _THREAD_VERBS.items():
            found[verb] = bool(features.get(method))
        return found

    # -- the table ---------------------------------------------------------------------------
    def filter(self, query: str) -> list[Any]:
        """Show only sessions whose row holds every word of ``query``; returns them in view order."""
        self.table.query = query
        return self.visible()

    def sort(self, column: str, *, descending: bool = False) -> list[Any]:
        """Sort the table by ``column`` (``started``, ``cwd``, ``prompt``, ``model``, ``turns``,
        ``plan``, ``status``; an ACP agent's: ``title``, ``cwd``, ``updated``); returns the sessions
        in view order."""
        with self.table.hold_trait_notifications():
            self.table.sort_by = column
            self.table.descending = descending
        return self.visible()

    def visible(self) -> list[Any]:
        """The sessions as the view shows them (``CodexSession`` s; an ACP agent's: its rows,
        ``{id, title, cwd, updated}``)."""
        if self.sessions is None:
            return self.table.visible()
        by_id = {s.row()["id"]: s for s in self.sessions}
        return [by_id[row["id"]] for row in self.table.visible()]

    def select(self, session_id: str) -> Any:
        """Open a session: its plan timeline and its last turn's transcript appear below the table
        (an ACP agent's: what its listing says of it; Resume loads it). Returns the session (an ACP
        agent's: its row)."""
        session = self._acp_row(session_id) if self.sessions is None else self._session(session_id)
        if self.table.selected != session_id:
            self.table.selected = session_id  # _on_selected shows it
        else:
            self._show(session)
        return session

    def _session(self, session_id: str | None) -> CodexSession:
        wanted = session_id or self.table.selected
        if not wanted:
            raise KeyError("no session is selected; select one first: browser.select(session_id)")
        assert self.sessions is not None
        for session in self.sessions:
            if session.row()["id"] == wanted:
                return session
        raise KeyError(f"no session {wanted!r} in {self.sessions.home}")

    def _acp_row(self, session_id: str | None) -> dict[str, Any]:
        wanted = session_id or self.table.selected
        if not wanted:
            raise KeyError("no session is selected; select one first: browser.select(session_id)")
        for row in self.table.rows:
            if row["id"] == wanted:
                return dict(row)
        raise KeyError(f"no session {wanted!r} in the ACP agent's listing (await browser.refresh() lists it again)")

    def _on_selected(self, change: dict[str, Any]) -> None:
        if change["new"]:
            try:
                self._show(self._acp_row(change["new"]) if self.sessions is None else self._session(change["new"]))
            except KeyError as err:
                self.table.error = str(err.args[0])

    def _show(self, session: Any) -> None:
        if isinstance(session, dict):
            self._show_acp(session)
            return
        self._close_detail()
        self.history = None  # a live thread's history is shown no more
        header = ipywidgets.HTML(html.escape(f"{session.started or '?'} · {session.cwd or '?'} · {session.path.name}"))
        if session.size > self.long_thread_bytes and session.thread_id and self._pages() and self._server_open():
            self._show_paged(session, header)
            return
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

    def _server_open(self) -> bool:
        connection = getattr(self.server, "connection", None)
        loop = getattr(self.server, "_loop", None)
        return connection is not None and connection.closed is None and loop is not None and not loop.is_closed()

    def _show_paged(self, session: CodexSession, header: ipywidgets.HTML) -> None:
        """A long session opened by pages: its newest turns from the server (``thread/turns/list``)
        in the transcript, older ones on demand; the rollout is not read whole, so no plan timeline."""
        assert session.thread_id is not None
        self.replay = RolloutReplay(Rollout(path=session.path, session_id=session.session_id))
        transcript = Transcript(self.replay, max_rate=None)
        self._history_view = transcript
        note = ipywidgets.HTML(
            html.escape(
                f"{session.turns if session.turns_exact else f'at least {session.turns}'} turn(s), "
                f"{session.size / 1e6:.1f} MB: read by pages, newest first (the plan timeline of a rollout "
                "this long is not read at open; Resume shows the live thread)"
            )
        )
        note.add_class("cx-sessions-paged")
        self.detail.children = [header, note, transcript]
        self.table.error = ""
        self.history = self.server.history(session.thread_id, page_size=HISTORY_PAGE_TURNS)
        self._run_history(self.server.loop, self._load_newest(self.history))

    async def _load_newest(self, history: ThreadHistory) -> HistoryPage:
        page = await history.newest()
        if history is self.history:
            self._show_history(page)
        return page

    def _run_history(self, loop: asyncio.AbstractEventLoop, action: Any) -> None:
        """Run a history read on the server's loop (from any thread), its failure in the table's error."""

        def start() -> None:
            task = loop.create_task(action)
            self._tasks.add(task)
            task.add_done_callback(self._done)

        call_on(loop, start)

    def _show_acp(self, row: dict[str, Any]) -> None:
        self._close_detail()
        header = f"{row['title'] or '(no title)'} · {row['cwd'] or '?'} · updated {row['updated'] or '?'} · {row['id']}"
        features = self.table.features
        how = (
            "Resume loads it into the live widgets (the agent replays it)"
            if features.get("resume")
            else "this agent cannot load or resume sessions"
        )
        self.detail.children = [ipywidgets.HTML(html.escape(header)), ipywidgets.HTML(html.escape(how))]
        self.table.error = ""

    def _close_detail(self) -> None:
        """Close every widget the detail area shows (a session's or a live thread's): a new
        selection or a Resume replaces them, and an unclosed widget keeps its comm and its
        subscription. A live thread goes on (``browser.thread``)."""
        for child in [*self.detail.children, *self.live_widgets]:
            child.close()
        self.live_widgets = []
        self.older_button = None  # closed with the detail area's children
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
        in the live widgets and returned. ``params`` go to ``CodexAppServer.resume_thread``.

        An ACP agent's session is loaded (``session/load``: the agent replays it, shown as the
        transcript's saved conversation), or resumed (``session/resume``) by an agent that cannot
        load; the ``AcpSession`` is returned. ``params`` go to ``load_session`` (``mcp_servers``)."""
        if self.agent is not None:
            return await self._acp_open(session_id, fork=False, **params)
        server = self._need_server("Resume")
        session = self._session(session_id)
        paged = self._pages() and session.size > self.long_thread_bytes
        if paged:
            params.setdefault("excludeTurns", True)  # the history comes in pages, not whole
        thread = await server.resume_thread(session.thread_id or session.row()["id"], **params)
        await self._open(thread, session, f"resumed {session.thread_id}", paged=paged)
        return thread

    async def fork(self, session_id: str | None = None, **params: Any) -> Any:
        """Start a new thread from the selected (or given) session through ``thread/fork``; shown and
        returned like ``resume``. Raises ``CodexVersionError`` when the binary has no ``thread/fork``.
        An ACP agent's: ``session/fork`` (an ``AcpError`` when the agent does not offer it)."""
        if self.agent is not None:
            return await self._acp_open(session_id, fork=True, **params)
        server = self._need_server("Fork")
        session = self._session(session_id)
        paged = self._pages() and session.size > self.long_thread_bytes
        if paged:
            params.setdefault("excludeTurns", True)
        thread = await server.fork_thread(session.thread_id or session.row()["id"], **params)
        await self._open(thread, session, f"forked {session.thread_id} into {thread.thread_id}", paged=paged)
        return thread

    # -- rename, archive, unarchive, delete -------------------------------------------------------
    def _thread_id(self, session_id: str | None) -> str:
        """The selected (or given) session's thread id; a given id the table does not list is taken
        as a thread id (the app-server's lists hold threads the home's listing may not)."""
        try:
            session = self._session(session_id)
        except KeyError:
            if not session_id:
                raise
            return session_id
        return str(session.thread_id or session.row()["id"])

    async def rename(self, name: str, session_id: str | None = None) -> None:
        """Name the selected (or given) session's thread (``thread/name/set``); Codex's clients and
        ``thread/list`` show the name."""
        server = self._need_server("Rename")
        thread_id = self._thread_id(session_id)
        await server.rename_thread(thread_id, name)
        await self._relist(f"renamed {thread_id}")

    async def archive(self, session_id: str | None = None) -> None:
        """Archive the selected (or given) session (``thread/archive``): it leaves the table and
        the thread list; ``unarchive`` brings it back."""
        server = self._need_server("Archive")
        thread_id = self._thread_id(session_id)
        await server.archive_thread(thread_id)
        await self._relist(f"archived {thread_id}")

    async def unarchive(self, thread_id: str) -> dict[str, Any]:
        """Bring an archived thread back (``thread/unarchive``; ``refresh()`` lists the archived
        ones); returns it as Codex lists it."""
        server = self._need_server("Unarchive")
        found: dict[str, Any] = await server.unarchive_thread(thread_id)
        await self._relist(f"unarchived {thread_id}")
        return found

    async def delete(self, session_id: str | None = None) -> None:
        """Delete the selected (or given) session for good (``thread/delete``: its rollout files
        go). The view asks first; a Python call does not."""
        server = self._need_server("Delete")
        thread_id = self._thread_id(session_id)
        await server.delete_thread(thread_id)
        if self.table.selected in (session_id, thread_id) or session_id is None:
            self._close_detail()
            self.table.selected = ""
        await self._relist(f"deleted {thread_id}")

    async def _relist(self, what: str) -> None:
        """List the home's sessions and the server's threads again after a change."""
        if self.sessions is not None:
            self.sessions = codex_sessions(self.sessions.home)
            self.table.rows = [s.row() for s in self.sessions]
        await self.refresh()
        self.table.status = f"{what}; {self.sessions.summary() if self.sessions is not None else ''}".rstrip("; ")
        self.table.error = ""

    async def refresh(self) -> list[dict[str, Any]]:
        """List the running app-server's threads (``thread/list``) under the table; returns them.
        An ACP agent's sessions are listed again (``session/list``, for ``cwd`` when given): the
        table's rows, returned."""
        if self.agent is not None:
            return await self._acp_list()
        server = self._need_server("The thread list")
        answer = await server.list_threads(limit=50)
        live = [
            {"id": str(t.get("id")), "preview": str(t.get("preview") or "")[:80], "cwd": str(t.get("cwd") or "")}
            for t in answer.get("data") or []
            if isinstance(t, dict)
        ]
        if server.features.get("thread/unarchive"):
            archived = await server.list_threads(limit=50, archived=True)
            self.table.archived = [
                {
                    "id": str(t.get("id")),
                    "name": _cut(t.get("name"), _TITLE_CHARS),
                    "preview": _cut(t.get("preview"), 80),
                }
                for t in archived.get("data") or []
                if isinstance(t, dict) and isinstance(t.get("id"), str) and len(t["id"]) <= _ID_CHARS
            ]
        self.table.live = live
        return live

    def _pages(self) -> bool:
        """True when the server reads history by pages (``features["thread history pages"]``)."""
        return bool(self.server is not None and self.server.features.get("thread history pages"))

    async def _open(self, thread: Any, session: CodexSession, what: str, *, paged: bool) -> None:
        if not paged:
            self.history = None
            self._open_live(thread, session, what)
            return
        history = self.server.history(thread.thread_id, page_size=HISTORY_PAGE_TURNS)
        try:
            page = await history.newest()
        except (HistoryError, AppServerError) as err:  # the thread is open: show it as before, saying why
            log.warning("the newest turns of %s could not be read by pages: %s", thread.thread_id, err)
            history.paged = False
        if not history.paged:  # the binary refused the pages: the rollout's newest turns, as before
            self.history = None
            self._open_live(thread, session, what)
            return
        notes = [f"Live: {what}"]
        if session.size <= PLAN_SEED_BYTES:
            try:
                plans = session.read().plans
            except RolloutError as err:
                plans = []
                notes.append(f"its saved plan cannot be shown: {err}")
            if plans and thread.latest_plan() is None:
                thread.emit(PlanUpdate.from_args(plans[-1].args), turn_id=plans[-1].turn_id)
        else:
            notes.append("its rollout is too long to read for the last plan at open; the next plan shows")
        self.history = history
        self._show_live(thread, what, notes, None)
        self._history_view = next((w for w in self.live_widgets if isinstance(w, Transcript)), None)
        self._show_history(page)

    def _history_head(self) -> str:
        history = self.history
        assert history is not None
        if history.more:
            return (
                f"Saved conversation: the newest {history.loaded} turn(s); older ones load on demand (Load older turns)"
            )
        head = f"Saved conversation: {history.loaded} turn(s)"
        return f"{head}; {history.note}" if history.note else head

    def _show_history(self, page: HistoryPage) -> None:
        """The loaded turns in the live transcript, and the button while older ones remain."""
        history = self.history
        transcript = self._history_view
        if history is None or transcript is None or transcript not in self.detail.children:
            return
        # the view shows the newest `rows` entries: widen it so the older turns just loaded show (bounded)
        needed = sum(len(t.events) + 2 for t in history.turns) + 10
        transcript.rows = max(transcript.rows, min(needed, HISTORY_ROWS))
        transcript.show_saved(history.turns, head=self._history_head())
        button = self.older_button
        if button is None or button not in self.detail.children:
            button = self.older_button = ipywidgets.Button(
                description="Load older turns", tooltip="Read the next older page of this thread's history"
            )
            button.add_class("cx-sessions-older")
            button.on_click(self._on_older_clicked)
            children = list(self.detail.children)
            children.insert(children.index(transcript), button)
            self.detail.children = children
        button.disabled = False
        button.layout.display = None if history.more else "none"

    async def load_older(self) -> HistoryPage:
        """Read the next older page of the opened thread's history into its transcript (the "Load
        older turns" button); returns the page (no turns once the history is all loaded)."""
        history = self.history
        if history is None:
            raise RuntimeError(
                "no paged history is open: Resume or Fork a session first (with a binary that pages history)"
            )
        try:
            page = await history.older()
        finally:
            if self.older_button is not None:
                self.older_button.disabled = False
        if history is self.history:  # not replaced by another Resume meanwhile
            self._show_history(page)
        return page

    def _on_older_clicked(self, _button: Any) -> None:
        try:
            loop = self._need_server("Load older turns").loop
        except Exception as err:  # noqa: BLE001  said in the view
            self.table.error = str(err).splitlines()[0][:400]
            return
        if self.older_button is not None:
            self.older_button.disabled = True
        self._run_history(loop, self.load_older())

    def _open_live(self, thread: Any, session: CodexSession, what: str) -> None:
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
        saved = replay.saved_turns(SAVED_TURNS) if replay is not None else None
        self._show_live(thread, what, notes, saved)

    def _show_live(self, thread: Any, what: str, notes: list[str], saved: tuple[list[SavedTurn], int] | None) -> None:
        self._close_detail()
        self.thread = thread
        transcript = Transcript(thread)
        if saved is not None:
            transcript.show_saved(saved[0], earlier_turns=saved[1])
        self.live_widgets = [TurnControls(thread), PlanChecklist(thread), PromptsWidget(thread), transcript]
        self.detail.children = [ipywidgets.HTML(html.escape("; ".join(notes))), *self.live_widgets]
        self.table.status = f"{what}: start a turn with browser.thread.start_turn(text)"
        self.table.error = ""

    # -- an ACP agent's sessions -------------------------------------------------------------------
    def _acp_loop(self) -> asyncio.AbstractEventLoop | None:
        """Where the agent's requests run: the loop it started on, else (not started yet) the loop
        the browser was made on, else the running one."""
        return getattr(self.agent, "loop", None) or self._creation_loop or running_loop()

    async def _acp_list(self) -> list[dict[str, Any]]:
        agent = self.agent
        name = os.path.basename(str(agent.command))
        try:
            listed = await agent.list_sessions(self.cwd, limit=ACP_ROWS, budget=ACP_LIST_BUDGET)
        except BaseException:
            self.table.status = f"the sessions of the ACP agent {name}: not listed"
            raise
        finally:
            self.table.features = acp_features(agent)  # known once the agent is started
        rows, left_out = acp_rows(listed)
        status = f"{len(rows)} session(s) of the ACP agent {name}" + (f" in {self.cwd}" if self.cwd else "")
        if left_out:
            status += f"; {left_out} more not shown (the first {ACP_ROWS} with a usable id are)"
        note = listed.note() if isinstance(listed, SessionListing) else ""
        if note:
            status += f"; {note}"
        with self.table.hold_trait_notifications():
            self.table.rows = rows
            self.table.status = status
            self.table.error = ""
        return rows

    async def _acp_open(self, session_id: str | None, *, fork: bool, **params: Any) -> Any:
        agent = self.agent
        row = self._acp_row(session_id)
        cwd = row["cwd"] or self.cwd
        title = row["title"] or row["id"]
        saved: tuple[list[SavedTurn], int] | None = None
        if fork:
            if params:
                raise TypeError(f"forking an ACP session takes no parameters, got {sorted(params)}")
            session = await agent.fork_session(row["id"], cwd)
            what = f"forked {title!r} into {session.session_id}"
        elif acp_features(agent)["resume"] and not getattr(agent.info.agent_capabilities, "load_session", False):
            session = await agent.resume_session(row["id"], cwd)
            what = f"resumed {title!r} (session/resume: the agent replays nothing)"
        else:
            replay: list[Event] = []
            session = await agent.load_session(row["id"], cwd, on_replay=replay.append, **params)
            turns = saved_acp_turns(replay)
            saved = (turns[-SAVED_TURNS:], max(len(turns) - SAVED_TURNS, 0))
            what = f"loaded {title!r}"
        notes = [f"Live: {what}"]
        if session.latest_plan() is None:
            plan = self._saved_codex_plan(row["id"])
            if plan is not None:
                # codex-acp replays messages but no plan: its store is a Codex home, whose rollout has it
                session.emit(PlanUpdate.from_args(plan.args))
                notes.append("the checklist starts from the plan its Codex rollout saved")
        self._show_live(session, what, notes, saved)
        return session

    def _saved_codex_plan(self, session_id: str) -> Any:
        """The last plan the agent's Codex home saved for ``session_id`` (codex-acp keeps its
        sessions as Codex rollouts under ``CODEX_HOME``), or None."""
        home = (getattr(self.agent, "env", None) or {}).get("CODEX_HOME")
        if not home or not os.path.isdir(home):
            return None
        try:
            for session in codex_sessions(home):
                if session.session_id == session_id:
                    plans = session.read().plans
                    return plans[-1] if plans else None
        except (OSError, RolloutError) as err:
            log.info("the saved plan of %s cannot be read: %s", session_id, err)
        return None

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
        if self.agent is not None:
            acp_loop = self._acp_loop()
            if acp_loop is None or acp_loop.is_closed():
                self.table.error = "the ACP agent's event loop is gone: make a new cx.AcpAgent and browser"
                return
            self.table.error = ""
            self.run_on_loop(acp_loop, kind, message.get("session"))
            return
        try:
            loop = self._need_server(kind.capitalize()).loop
        except Exception as err:  # no server, or not started: said in the view  # noqa: BLE001
            self.table.error = str(err).splitlines()[0][:400]
            return
        if loop.is_closed():
            self.table.error = "the app-server's event loop is closed: start a new cx.CodexAppServer"
            return
        self.table.error = ""
        self.run_on_loop(loop, kind, message.get("session"), name=message.get("name"))

    def run_on_loop(
        self, loop: asyncio.AbstractEventLoop, kind: str, session: str | None, *, name: str | None = None
    ) -> None:
        """Run the view's action ``kind`` (refresh | resume | fork | rename | archive | unarchive |
        delete) as a task on ``loop`` (the app-server's, or the ACP agent's), from any thread; its
        failure is shown in the table's ``error``."""

        def start() -> None:
            action = self._action(kind, session, name)
            task = loop.create_task(action)
            self._tasks.add(task)
            task.add_done_callback(self._done)

        call_on(loop, start)

    def _action(self, kind: str, session: str | None, name: str | None) -> Any:
        if kind == "refresh":
            return self.refresh()
        if kind == "rename":
            return self.rename(name or "", session)
        if kind == "unarchive":
            return self.unarchive(session or "")
        verbs = {"resume": self.resume, "fork": self.fork, "archive": self.archive, "delete": self.delete}
        return verbs[kind](session)

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
