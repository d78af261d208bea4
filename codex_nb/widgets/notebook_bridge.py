"""``NotebookBridge``: the live notebook document for the notebook tools, through the front end.

Why this path: the kernel cannot see the document a person has open, and of the ecosystem's ways
to reach it, the prebuilt ipylab extension (1.1) is the one that needs no server extension and no
custom build, works in JupyterLab 4 and Notebook 7, and leaves every other document alone (the
collaborative model, jupyter-collaboration, turns every document of the server into a shared one).
ipylab's Python API can execute commands but not read a document or hand back a command's result,
so the bridge is a small anywidget of ours: its front-end half reads and edits the cells through
the notebook's shared model (so the person sees each change and can undo it), and runs a cell
through the JupyterLab application that ipylab's extension gives its models.

Kernel -> browser: the synced ``requests`` list and ``owner``; browser -> kernel: ``hello`` (what the
page can do) and one ``reply`` per request (``protocol.json``, widget ``notebook_bridge``).

Stop reaches the page: a call that is cancelled (Stop) or times out takes its request out of
``requests``, and the page skips it if it has not started it (it applies changes one at a time,
in order) or, if it has, says what it did once done (``stopped``). Those reports, and a reply
that comes after the kernel stopped waiting (dropped, not an error), are kept in ``after_stop``. Without a
front end (nbclient, a plain kernel) no ``hello`` comes: the first call waits
``frontend_timeout_seconds`` and every later one fails at once with the same clear message, until a
page says hello.

``Send to agent``: a bridge made with ``cells_command=True`` (the extension's, at ``%load_ext
codex_nb``) registers the command ``codex_nb:send-cells-to-agent`` in the page (the cell context menu
and, through ipylab, the command palette). The page sends the selected cells (``attach``) and, while
the kernel lists them in ``attached_ids``, their state after every change (``cells_changed``), so the
prompt that takes them reads them as they are when it is sent; the kernel answers each ``attach``
in ``attach_status``, which the page shows as a notice.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import anywidget
import traitlets
from ipywidgets import widget_serialization

from ..tools.notebook.cells import Cell
from ..tools.notebook.document import NO_FRONT_END, CellNotFound, DocumentUnavailable, EditConflict
from ._static import asset
from .browser_messages import ProtocolError, validate_to_kernel

log = logging.getLogger("codex_nb.widgets.notebook_bridge")

WIDGET = "notebook_bridge"
SEND_CELLS = "codex_nb:send-cells-to-agent"
"""The page's command that attaches the selected cells to the next prompt."""
PALETTE_CATEGORY = "codex_nb"
MAX_CELLS = 5_000
MAX_AFTER_STOP = 100
"""Reports kept in ``after_stop`` (and requests remembered as given up), the newest ones."""
AWAITED_IN_CELL = (
    "; if this tool ran from a cell that awaits the turn (await session.run_turn(...)), the kernel is busy "
    "with that cell and the page cannot answer: start the turn with session.start_turn(...) instead"
)


def _ipylab_front_end() -> Any:
    try:
        with warnings.catch_warnings():  # ipylab 1.1 passes a trait type, which traitlets deprecates
            warnings.filterwarnings("ignore", "Traits should be given as instances", DeprecationWarning)
            from ipylab import JupyterFrontEnd
    except ImportError:
        return None
    return JupyterFrontEnd()


class NotebookBridge(anywidget.AnyWidget):
    """Implements ``NotebookDocument`` for the notebook this kernel runs in. Never displayed."""

    _esm = asset("notebook_bridge.js")

    frontend = traitlets.Any(None).tag(sync=True, **widget_serialization)
    requests = traitlets.List(traitlets.Dict()).tag(sync=True)
    owner = traitlets.Unicode("").tag(sync=True)
    cells_command = traitlets.Bool(False).tag(sync=True)
    """Register ``Send to agent`` in the page (the extension's bridge)."""
    attached_ids = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Ids of the cells the kernel holds as pending attachments (the page sends their changes)."""
    attach_status = traitlets.Dict().tag(sync=True)
    """``{seq, ok, text}``: the kernel's answer to the latest ``attach``, shown by the page."""
    after_stop = traitlets.List(traitlets.Dict())
    """What the page did with requests the kernel had stopped waiting for (not synced; observe it):
    ``{id, op, why, outcome, detail}``, why ``stopped`` or ``timed out``, outcome ``skipped`` (the
    page never started it), ``finished`` or ``failed``; the newest ``MAX_AFTER_STOP``."""

    def __init__(self, *, frontend_timeout: float = 5.0, **kwargs: Any) -> None:
        lab = _ipylab_front_end()
        super().__init__(frontend=lab, **kwargs)
        self.frontend_timeout = frontend_timeout
        self.page: dict[str, Any] | None = None
        """The latest ``hello``: what the answering page can do."""
        self._absent = False
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = {}
        self._hello_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._given_up: OrderedDict[str, tuple[str, str]] = OrderedDict()
        """Request id -> (op, why) of the requests the kernel stopped waiting for."""
        self.error = ""
        self.cells_listener: Callable[[str, list[dict[str, Any]], int], str] | None = None
        """Called with (``attach`` or ``changed``, cells, how many were selected); returns the notice
        for an ``attach``, raises ``ValueError`` with the notice when it refuses them."""
        self._palette: Any = None
        if self.cells_command and self.frontend is not None:  # made now, so the page knows it by hello
            from ipylab.commands import CommandPalette

            self._palette = CommandPalette()
        self.on_msg(self._on_message)

    # -- browser -> kernel (any thread) ------------------------------------------------
    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            message = validate_to_kernel(WIDGET, content)
        except ProtocolError as err:
            self.error = str(err)
            log.warning("notebook bridge: rejected a message from the page: %s", err)
            return
        if message["kind"] == "hello":
            self._hello(message)
        elif message["kind"] in ("attach", "cells_changed"):  # any page of this notebook may send cells
            self._cells(message)
        elif message.get("page") != self.owner:
            return
        elif message["kind"] == "stopped":
            self._after_stop(message["id"], message["outcome"], message["detail"], op=message["op"])
        else:
            self._reply(message)

    def _hello(self, message: dict[str, Any]) -> None:
        with self._lock:
            self.page = message
            self._absent = False
            waiters, self._hello_waiters = self._hello_waiters, []
        self.owner = message["id"]  # the newest page answers (a reload, or a second tab)
        if self._palette is not None and message["commands"]:
            self._palette.add_item(SEND_CELLS, PALETTE_CATEGORY)
        for loop, future in waiters:
            loop.call_soon_threadsafe(_settle, future, None)

    def _cells(self, message: dict[str, Any]) -> None:
        attach = message["kind"] == "attach"
        cells = [c for c in message["cells"][:MAX_CELLS] if isinstance(c, dict)]
        selected = message.get("selected", len(cells))
        ok, text = False, "this kernel takes no cells (load the extension: %load_ext codex_nb)"
        if self.cells_listener is not None:
            try:
                text = self.cells_listener("attach" if attach else "changed", cells, selected)
                ok = True
            except ValueError as err:
                text = str(err)
            except Exception as err:  # a comm handler must not die; the person sees why  # noqa: BLE001
                log.exception("notebook bridge: attaching cells failed")
                text = f"attaching the cells failed: {type(err).__name__}: {err}"
        if attach:
            self.attach_status = {"seq": int(self.attach_status.get("seq", 0)) + 1, "ok": ok, "text": text}

    def _reply(self, message: dict[str, Any]) -> None:
        with self._lock:
            entry = self._waiting.pop(message["id"], None)
        if entry is None:  # late: the call was stopped or timed out meanwhile; the page had done it
            outcome = "finished" if message["ok"] else "failed"
            detail = "the page answered after the kernel stopped waiting" + (
                "" if message["ok"] else f": {str(message['error'])[:500]}"
            )
            self._after_stop(message["id"], outcome, detail)
            return
        loop, future = entry
        loop.call_soon_threadsafe(_settle, future, message)

    def _after_stop(self, request_id: str, outcome: str, detail: str, *, op: str = "") -> None:
        with self._lock:
            given_up = self._given_up.pop(request_id, None)
        if given_up is None:
            return  # not a request this kernel gave up (a stale page, a repeated report)
        report = {
            "id": request_id,
            "op": given_up[0],
            "why": given_up[1],
            "outcome": outcome[:40],
            "detail": detail[:2000],
        }
        self.after_stop = [*self.after_stop[-(MAX_AFTER_STOP - 1) :], report]
        log.info(
            "notebook bridge: %s request %s (%s): %s: %s", report["why"], request_id, report["op"], outcome, detail
        )

    def _give_up(self, request_id: str, op: str, why: str) -> None:
        with self._lock:
            self._given_up[request_id] = (op, why)
            while len(self._given_up) > MAX_AFTER_STOP:
                self._given_up.popitem(last=False)

    # -- kernel side ---------------------------------------------------------------------
    async def _page(self) -> dict[str, Any]:
        """The answering page's ``hello``, waiting for the first one at most ``frontend_timeout``."""
        loop = asyncio.get_running_loop()
        with self._lock:
            page, absent = self.page, self._absent
            if page is None and not absent:
                future: asyncio.Future[None] = loop.create_future()
                self._hello_waiters.append((loop, future))
        if page is None:
            if absent:
                raise DocumentUnavailable(NO_FRONT_END)
            try:
                await asyncio.wait_for(future, self.frontend_timeout)
            except TimeoutError:
                with self._lock:
                    self._absent = self.page is None
                if self.page is None:
                    raise DocumentUnavailable(
                        f"{NO_FRONT_END} (no page answered within {self.frontend_timeout:g} s)"
                    ) from None
            page = self.page
        assert page is not None
        if not page["document"]:
            raise DocumentUnavailable(f"{NO_FRONT_END} ({page['reason']})")
        return page

    async def _call(self, op: str, args: dict[str, Any], *, timeout: float) -> Any:
        await self._page()
        loop = asyncio.get_running_loop()
        request_id = f"nb-{next(self._ids)}"
        future: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            self._waiting[request_id] = (loop, future)
        self.requests = [*self.requests, {"id": request_id, "op": op, "args": args}]
        try:
            reply = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self._give_up(request_id, op, "timed out")
            raise DocumentUnavailable(
                f"the notebook page did not answer {op} within {timeout:g} s{AWAITED_IN_CELL}"
            ) from None
        except asyncio.CancelledError:  # Stop: taking it out of `requests` below tells the page
            self._give_up(request_id, op, "stopped")
            raise
        finally:
            with self._lock:
                self._waiting.pop(request_id, None)
            self.requests = [r for r in self.requests if r["id"] != request_id]
        if not reply["ok"]:
            _raise(reply["error"])
        return reply["result"]

    async def cells(self) -> list[Cell]:
        raw = await self._call("cells", {}, timeout=self.frontend_timeout + 10)
        if not isinstance(raw, list):
            raise DocumentUnavailable("the page sent cells in an unknown shape (not a list)")
        try:
            return [Cell.from_json(c) for c in raw[:MAX_CELLS]]
        except ValueError as err:
            raise DocumentUnavailable(f"the page sent a malformed cell: {err}") from None

    async def cell_snapshots(self, *, timeout: float) -> list[dict[str, Any]]:
        """The page's cells now, in the shape ``Send to agent`` sends them (nbformat fields and the
        cell's ``index``): how a prompt reads attached cells again when it runs. The page's own
        ``cells_changed`` cannot be relied on for that: a front end may send comm messages on a
        kernel subshell, handled on another thread, so an edit sent before the prompt's run can
        arrive after it."""
        try:
            raw = await self._call("cells", {}, timeout=timeout)
        except (EditConflict, CellNotFound) as err:  # a read has no cell to miss: the page is wrong
            raise DocumentUnavailable(f"the page answered a read with an edit's error ({err})") from None
        if not isinstance(raw, list):
            raise DocumentUnavailable("the page sent cells in an unknown shape (not a list)")
        return [{**c, "index": i} for i, c in enumerate(raw[:MAX_CELLS]) if isinstance(c, dict)]

    async def insert_cell(self, *, index: int, cell_type: str, source: str) -> Cell:
        args = {"index": index, "cell_type": cell_type, "source": source}
        return _cell(await self._call("insert", args, timeout=self.frontend_timeout + 10))

    async def edit_cell(self, *, cell_id: str, expected_source: str, source: str) -> Cell:
        args = {"cell_id": cell_id, "expected_source": expected_source, "source": source}
        return _cell(await self._call("edit", args, timeout=self.frontend_timeout + 10))

    async def run_cell(self, *, cell_id: str, timeout: float) -> Cell:
        page = await self._page()
        if not page["commands"]:
            raise DocumentUnavailable(f"running a cell needs ipylab's JupyterLab application: {page['reason']}")
        return _cell(await self._call("run", {"cell_id": cell_id}, timeout=timeout))

    def __repr__(self) -> str:
        state = "no page yet" if self.page is None else f"page {self.page['app'] or 'without ipylab'}"
        return f"<NotebookBridge {state}>"


def _settle(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _raise(error: str) -> None:
    if error.startswith("conflict:"):
        raise EditConflict(error.removeprefix("conflict:"))
    if error.startswith("not_found:"):
        raise CellNotFound(error.removeprefix("not_found:"))
    raise DocumentUnavailable(f"the notebook page failed: {error[:2000]}")


def _cell(raw: Any) -> Cell:
    try:
        return Cell.from_json(raw)
    except ValueError as err:
        raise DocumentUnavailable(f"the page sent a malformed cell: {err}") from None
