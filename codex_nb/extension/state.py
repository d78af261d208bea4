"""The extension's state in one kernel: sessions, running turns, the widgets it made.

``%load_ext codex_nb`` creates one ``KernelAgent`` per IPython shell. It owns the
default session (and any named ones ``%%codex --session NAME`` asks for), keeps a strong
reference to every running turn (a background task nobody references can be collected
mid-turn), remembers the widgets it displayed, and closes all of it on ``%unload_ext``:
running turns are interrupted (their calls get paired outputs), pending person-requests
are settled, hook processes and Code Mode cells end, widget comms close.

Sessions the user passed in (``--source NAME``) are theirs: the agent uses them but never
closes them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from traitlets import Bool, Unicode
from traitlets.config import Configurable

from ..config import Config
from ..runtime.session import Session
from ..protocol.capabilities import capabilities_of
from .sources import SourceError, SourceRegistry, turn_task

if TYPE_CHECKING:
    from .context import Attachments

log = logging.getLogger("codex_nb.extension")

DEFAULT_SESSION = "default"
UNLOAD_TURN_GRACE = 30.0
"""How long ``%unload_ext`` waits for an interrupted turn before cancelling its task."""
PAGE_READ_TIMEOUT = 3.0
"""How long a prompt waits for the page to send the attached cells as they are when it runs."""


class CodexNbExtension(Configurable):
    """Settings of the ``codex_nb`` IPython extension (``c.CodexNbExtension.<name>`` in
    ``ipython_config.py``, or ``%codex_config --auto-panel on`` at run time)."""

    open_plan_panel = Bool(
        False,
        help="Open the plan panel (JupyterLab's side area) whenever a %%codex "
        "turn starts. Also `[codex_nb] open_plan_panel = true` in a loaded "
        "config.toml.",
    ).tag(config=True)
    default_model = Unicode(
        "", help="Name of the user-namespace variable that %%codex uses when the cell gives no --model."
    ).tag(config=True)


@dataclass(kw_only=True)
class RunningTurn:
    """A turn a ``%%codex`` cell started, with the source it runs on."""

    label: str
    source: Any
    handle: Any
    """The source's turn handle; None while the turn waits to start (the page's cells are read)."""
    task: asyncio.Future[Any]
    """Ends with the turn (the handle's own task when it has one)."""
    attachments: Attachments | None = None
    """What went with the prompt, once the turn started."""


@dataclass(kw_only=True)
class KernelAgent:
    """Everything ``%load_ext codex_nb`` set up in one kernel."""

    settings: CodexNbExtension
    namespace: dict[str, Any]
    sources: SourceRegistry = field(default_factory=SourceRegistry)
    sessions: dict[str, Any] = field(default_factory=dict)
    """Sessions the extension owns, by name (``default`` first)."""
    current: str = DEFAULT_SESSION
    """Label of the source the line magics act on: a session name or ``--source`` variable name."""
    external: dict[str, Any] = field(default_factory=dict)
    turns: list[RunningTurn] = field(default_factory=list)
    widgets: list[Any] = field(default_factory=list)
    panel: Any = None
    bridge: Any = None
    """The notebook bridge that registers ``Send to agent`` in the page (None without a front end)."""
    pending_cells: list[dict[str, Any]] = field(default_factory=list)
    """Cells ``Send to agent`` attached (nbformat cells with their ``index``), as the page last sent
    them; the next ``%%codex`` prompt takes them (``take_attachments``)."""
    closed: bool = False
    _closing: set[asyncio.Task[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.sessions.setdefault(DEFAULT_SESSION, Session())

    # -- sources ---------------------------------------------------------------------
    def source(self, label: str | None = None) -> Any:
        """The source named ``label`` (default: the current one): an extension-owned session or a
        ``--source`` object. Raises ``SourceError`` listing the known labels when there is none."""
        label = self.current if label is None else label
        if label in self.sessions:
            return self.sessions[label]
        if label in self.external:
            return self.external[label]
        raise SourceError(f"no session named {label!r}; known: {', '.join(self.labels())}")

    def labels(self) -> list[str]:
        """Every source label: the owned sessions (``default`` first), then the ``--source`` variables."""
        return [*self.sessions, *self.external]

    def use_session(self, name: str) -> Any:
        """The extension-owned session ``name`` (created on first use) becomes current."""
        if not name.isidentifier():
            raise SourceError(f"--session {name!r}: a session name must be an identifier (letters, digits, _)")
        if name not in self.sessions:
            self.sessions[name] = Session(config=self.sessions[DEFAULT_SESSION].config)
        self.current = name
        return self.sessions[name]

    def use_source(self, variable: str) -> Any:
        """The user's object named ``variable`` becomes current (never closed by us)."""
        source = self.sources.source(self._lookup(variable, "--source"), label=variable)
        self.external[variable] = source
        self.current = variable
        return source

    def model_for(self, variable: str | None) -> Any:
        """The model for one turn from the notebook variable ``variable`` (default: the extension's
        ``default_model``), adapted by the ``--model`` rules. Raises ``SourceError`` when no model is
        named or the variable does not exist or is no model."""
        name = variable or self.settings.default_model
        if not name:
            raise SourceError(
                "no model for this turn: pass --model NAME, where NAME is a variable holding a "
                "cx.ScriptedModel, a list of scripted responses or a real model (e.g. cx.ResponsesModel), "
                "or set a default once with %codex_config --model NAME"
            )
        return self.sources.model(self._lookup(name, "--model"), label=name)

    def _lookup(self, name: str, flag: str) -> Any:
        if name not in self.namespace:
            raise SourceError(
                f"{flag} {name}: no variable named {name!r} in the notebook; define it in a cell "
                f"above, then run this cell again"
            )
        return self.namespace[name]

    def replace_config(self, config: Config) -> Session:
        """A new current extension-owned session with ``config`` (the old one is closed)."""
        name = self.current if self.current in self.sessions else DEFAULT_SESSION
        old = self.sessions[name]
        if old.active_turn is not None:
            raise SourceError(
                f"a turn is running on session {name!r}; stop it (%codex_stop) before loading a new config"
            )
        self.sessions[name] = Session(config=config)
        self.current = name
        self._spawn(close_source(old))
        return self.sessions[name]

    # -- turns -----------------------------------------------------------------------
    def start_turn(
        self,
        text: str,
        *,
        model: str | None,
        mode: str,
        attachments: Attachments | None = None,
        agent_options: dict[str, str] | None = None,
        on_start: Callable[[RunningTurn], None] | None = None,
    ) -> RunningTurn:
        """Start a turn on the current source, in the background, and keep it until it ends (so
        ``%unload_ext`` can interrupt it). ``model`` names a variable for a source that needs a model;
        ``agent_options`` (``--option``) are set on an ACP session before its prompt. Raises
        ``SourceError`` while a turn runs on that source, for ``--model`` given to a source that brings
        its own model, or for ``--option`` given to a source that offers no options.

        The cells ``Send to agent`` attached go first, then ``attachments``, and are taken by this
        turn. With a page to ask, they are read from it again first (at most ``PAGE_READ_TIMEOUT``):
        an edit made just before the prompt ran may reach the kernel after it. The turn then starts
        when the page answered: ``handle`` is None until then, ``on_start`` is called with the
        started turn, and ``attachments`` is replaced by what went. Raises ``ContextError`` when
        the attached cells no longer fit (a later one ends the task)."""
        from .context import Attachments, joined

        source = self.source()
        options = self._turn_options(source, model=model, mode=mode, agent_options=agent_options)
        sent = self.peek_attachments()  # their bounds now, while the person is looking
        found = attachments if sent is None else joined(sent, attachments)

        def started(running: RunningTurn) -> None:
            if sent is not None:  # taken by this prompt only once its turn started
                self.clear_attachments()
            if on_start is not None:
                on_start(running)

        if sent is None or not self.page_cells_pending():
            handle, task = self._start_on(source, text, options, found)
            running = RunningTurn(label=self.current, source=source, handle=handle, task=task, attachments=found)
            self._keep_turn(running)
            started(running)
            return running
        loop = asyncio.get_running_loop()
        running = RunningTurn(
            label=self.current, source=source, handle=None, task=loop.create_future(), attachments=found
        )

        async def start() -> Any:
            note = await self.read_page_cells()
            if self.closed:
                raise SourceError("%unload_ext codex_nb ran before this turn started; it did not start")
            read = self.peek_attachments()
            assert read is not None
            if note:
                read = Attachments(items=read.items, notes=[*read.notes, note])
            running.attachments = joined(read, attachments)
            running.handle, task = self._start_on(source, text, options, running.attachments)
            started(running)
            return await task

        running.task = loop.create_task(start())
        self._keep_turn(running)
        return running

    async def read_page_cells(self) -> str:
        """Replace the pending cells with the page's current state of them; returns a note for the
        prompt when the page could not be read (they go as the page last sent them) or an attached
        cell is gone from the notebook, else ``""``."""
        from ..widgets.notebook_bridge import DocumentUnavailable

        if self.bridge is None:
            return ""
        try:
            cells = await self.bridge.cell_snapshots(timeout=PAGE_READ_TIMEOUT)
        except DocumentUnavailable as err:
            return f"the attached cells could not be read again from the page ({err}); they went as it last sent them"
        wanted = {c.get("id") for c in self.pending_cells}
        found = [c for c in cells if c.get("id") in wanted]
        self.update_cells(found)
        gone = len(wanted - {c.get("id") for c in found})
        if gone:
            return (
                f"{gone} attached cell{'' if gone == 1 else 's'} no longer in the notebook; "
                f"{'it' if gone == 1 else 'they'} went as the page last sent {'it' if gone == 1 else 'them'}"
            )
        return ""

    def page_cells_pending(self) -> bool:
        """Whether ``Send to agent`` cells wait for the next prompt and a page can be asked for them."""
        return bool(self.pending_cells) and self.bridge is not None and self.bridge.page is not None

    def _turn_options(
        self, source: Any, *, model: str | None, mode: str, agent_options: dict[str, str] | None
    ) -> dict[str, Any]:
        capabilities = capabilities_of(source)
        if source.active_turn is not None or any(r.source is source and r.handle is None for r in self.turns):
            raise SourceError(
                f"a turn is still running on session {self.current}; wait for it, stop it "
                f"(%codex_stop or its Stop button), or run this one on another thread with "
                f"--session NAME"
            )
        options: dict[str, Any] = {"mode": mode}
        if agent_options:
            if not capabilities.options:
                raise SourceError(
                    f"--option: {self.current} ({type(source).__name__}) offers no agent options; they are "
                    f"an ACP session's (session.options): drop --option (--mode plan is Plan mode here)"
                )
            options["options"] = agent_options
        if capabilities.needs_model:
            options["model"] = self.model_for(model)
        elif model is not None:
            raise SourceError(
                f"--model {model}: {self.current} ({type(source).__name__}) brings its own model; "
                f"drop --model (or choose its model where you created it)"
            )
        return options

    def _start_on(
        self, source: Any, text: str, options: dict[str, Any], attachments: Attachments | None
    ) -> tuple[Any, asyncio.Future[Any]]:
        prompt: Any = text
        options = dict(options)
        if attachments is not None and attachments.items:  # in the form this source takes (images or text)
            from .context import turn_input  # loaded by the first turn with attachments

            prompt, extra = turn_input(capabilities_of(source), text, attachments)
            options.update(extra)
        handle = source.start_turn(prompt, **options)
        return handle, turn_task(handle)

    def _keep_turn(self, running: RunningTurn) -> None:
        self.turns.append(running)
        running.task.add_done_callback(lambda _: self._forget(running))

    def start_goal(self, objective: str, *, budget: int | None) -> RunningTurn:
        """Set ``objective`` as the current source's goal and follow its continuation turns in the
        background (``thread.run_goal``). Raises ``SourceError`` for a source without goals (only
        the real Codex has them), in Plan mode, or while a turn runs on it."""
        source = self.source()
        if not hasattr(source, "run_goal"):
            raise SourceError(
                f"--goal: {self.current} ({type(source).__name__}) has no goals; goals are the real Codex's: "
                f"pass --source THREAD, a thread of a cx.CodexAppServer (Codex 0.160 or newer)"
            )
        if getattr(source, "collaboration_mode", None) == "plan":  # Codex leaves a goal alone in Plan mode
            raise SourceError(
                f"--goal: {self.current} is in Plan mode (its last turn ran with --mode plan), where Codex does "
                f"not work on a goal: it would stay active and no turn would start. Run a %%codex turn without "
                f"--mode plan first, then the goal"
            )
        starting = any(r.source is source and r.handle is None for r in self.turns)
        if source.active_turn is not None or starting or getattr(getattr(source, "goals", None), "running_turn", None):
            raise SourceError(
                f"a turn is still running on session {self.current}; wait for it or stop it "
                f"(%codex_stop or its Stop button) before starting a goal"
            )
        task = asyncio.ensure_future(source.run_goal(objective, budget=budget))
        running = RunningTurn(label=self.current, source=source, handle=task, task=task)
        self.turns.append(running)
        task.add_done_callback(lambda _: self._forget(running))
        return running

    # -- cells attached from the page (Send to agent) ---------------------------------
    def attach_cells(self, cells: list[dict[str, Any]], *, selected: int | None = None) -> str:
        """Keep ``cells`` (the page's selection) for the next prompt, replacing any pending ones;
        returns the line the person sees. Raises ``ContextError`` past ``MAX_CELLS`` cells or
        ``MAX_TOTAL`` characters (nothing is kept then)."""
        from .context import MAX_CELLS, ContextError, notebook_cells

        if selected is not None and len(cells) > selected:  # a page that says fewer than it sends
            raise ContextError(
                f"the page sent {len(cells)} cells but said {selected} were selected; nothing was attached: "
                "select the cells again and run Send to agent again"
            )
        count = len(cells) if selected is None else selected
        if count > MAX_CELLS:
            raise ContextError(
                f"{count} cells are selected; at most {MAX_CELLS} can be attached to one prompt: select fewer"
            )
        if not cells:
            raise ContextError("no cells are selected: select the cells to send, then run Send to agent again")
        notebook_cells(cells)  # the bounds now, while the person is looking (read again at send time)
        self.pending_cells = [dict(c) for c in cells]
        self.announce()
        return f"{self.attached_line()}: the next %%codex prompt takes them"

    def update_cells(self, cells: list[dict[str, Any]]) -> None:
        """The page's current state of attached cells (edited or re-run since), by cell id."""
        latest = {c.get("id"): c for c in cells}
        self.pending_cells = [dict(latest.get(c.get("id"), c)) for c in self.pending_cells]

    def clear_attachments(self) -> int:
        """Drop the pending cells; returns how many there were."""
        dropped = len(self.pending_cells)
        self.pending_cells = []
        self.announce()
        return dropped

    def peek_attachments(self) -> Attachments | None:
        """The pending cells as they are now, bounded (``ContextError`` if they no longer fit);
        None when there are none. They stay pending until ``clear_attachments``."""
        if not self.pending_cells:
            return None
        from .context import notebook_cells

        return notebook_cells(self.pending_cells)

    def connect_page(self) -> None:
        """Register ``Send to agent`` in the notebook's page (the cell context menu and the command
        palette), through the notebook bridge; the selected cells arrive in ``attach_cells``."""
        from ..widgets.notebook_bridge import NotebookBridge  # the widget stack loads here, with a kernel

        self.bridge = NotebookBridge(cells_command=True)
        self.bridge.cells_listener = self._from_page

    def _from_page(self, kind: str, cells: list[dict[str, Any]], selected: int) -> str:
        if kind == "changed":
            self.update_cells(cells)
            return ""
        return self.attach_cells(cells, selected=selected)

    def attached_line(self) -> str:
        """``2 cells attached`` (the side panel's line and the page's notice)."""
        n = len(self.pending_cells)
        return f"{n} cell{'' if n == 1 else 's'} attached"

    def announce(self) -> None:
        """Show the pending cells: the page watches them, the side panel says how many."""
        if self.bridge is not None:
            self.bridge.attached_ids = [str(c.get("id", "")) for c in self.pending_cells]
        if self.panel is not None:
            self.panel.show_attached(self.attached_line() if self.pending_cells else "")

    def _forget(self, running: RunningTurn) -> None:
        with contextlib.suppress(ValueError):
            self.turns.remove(running)

    def keep(self, widget: Any) -> Any:
        """Remember ``widget`` so that ``%unload_ext`` closes it; returns it, to display in one line."""
        self.widgets.append(widget)
        return widget

    # -- teardown --------------------------------------------------------------------
    def _spawn(self, coro: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:  # no running loop (terminal IPython between cells): finish now
            asyncio.run(coro)
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """Interrupt running turns, close owned sessions and every widget we made."""
        self.closed = True
        turns = list(self.turns)
        for running in turns:
            _quietly(running.source.interrupt, f"interrupting the turn on {running.label}")
        if turns:  # bounded: a source that never honours the interrupt must not hold the unload
            _, stuck = await asyncio.wait([running.task for running in turns], timeout=UNLOAD_TURN_GRACE)
            for running in turns:
                if running.task in stuck:
                    log.warning(
                        "codex_nb extension: the turn on %s did not end within %g s of its interrupt; cancelled it",
                        running.label,
                        UNLOAD_TURN_GRACE,
                    )
                    running.task.cancel()
            # a turn's own failure is its widgets' business; unloading goes on (cancelling unload still works)
            await asyncio.gather(*(running.task for running in turns), return_exceptions=True)
        self.turns.clear()
        for widget in [*self.widgets, *([self.panel] if self.panel is not None else [])]:
            _quietly(widget.close, f"closing {type(widget).__name__}")
        self.widgets.clear()
        self.panel = None
        self.pending_cells = []
        if self.bridge is not None:
            _quietly(self.bridge.close, "closing the notebook bridge")
            self.bridge = None
        for session in self.sessions.values():
            await close_source(session)
        self.sessions.clear()
        self.external.clear()
        others = [task for task in self._closing if task is not asyncio.current_task()]
        if others:  # sessions replaced by %codex_config, still closing
            await asyncio.gather(*others, return_exceptions=True)

    def close(self) -> asyncio.Task[None] | None:
        """Start ``aclose`` on the running loop (``%unload_ext`` is synchronous); returns the task."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.aclose())
            return None
        return loop.create_task(self.aclose())


async def close_source(session: Any) -> None:
    """Close a session we own (``Session.aclose``: turn, questions, hooks, Code Mode, events)."""
    await session.aclose()


def _quietly(fn: Callable[[], object], what: str) -> None:
    """Teardown goes on past one failing part; the failure is logged, not lost."""
    try:
        fn()
    except Exception:  # noqa: BLE001
        log.exception("codex_nb extension: %s failed during unload", what)
