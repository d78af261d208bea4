"""``cx.compare``: one prompt, several agents at once, side by side.

A person choosing between agents (codex_nb's own runtime on a model, the real ``codex
app-server``, ACP agents, a recorded session) wants to see them do the same task together: each
one's plan, transcript and plan history in a column, a Stop per agent and one for all, and a
table that sums the runs up (steps, plan revisions, tool calls, time, outcome). Every source is a
turn source (``start_turn``, ``subscribe``, ``interrupt``, ``thread_id``: see
``codex_nb.extension.sources``), so the columns are the widgets every source already uses.

Each agent runs in a background task of its own and is watched only through its events, so the
cell that shows the widget returns at once, and an agent that fails, raises or hangs changes only
its own row: the others go on. ``await comparison`` gives the per-agent results (headless too,
where no view is built). A Stop asks the agent to stop; an agent still running ``STOP_GRACE``
seconds later has its task cancelled, so Stop all always ends every task.
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import ipywidgets

from dataclasses import dataclass
from ..protocol.capabilities import capabilities_of
from ..protocol.events import Event
from .final_state import FinalStateFallback

REFRESH_SECONDS = 0.1
"""The summary and the column headers are redrawn at most this often (a busy agent sends
hundreds of events a second; the views of its column coalesce their own updates)."""

STOP_GRACE = 10.0
"""Seconds an agent gets to end its turn after Stop before its task is cancelled."""

OUTCOMES = ("completed", "interrupted", "failed", "timed out", "stopped")
"""How a run ends: the source's own turn status, ``timed out`` (``timeout`` passed, then
stopped), or ``stopped`` (it did not end within ``STOP_GRACE`` of a Stop, its task was cancelled)."""


def _on_loop(loop: asyncio.AbstractEventLoop, fn: Any) -> None:
    """Run ``fn`` now on ``loop``'s thread, or soon from another one (a comm handler's thread)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        fn()
    elif not loop.is_closed():
        loop.call_soon_threadsafe(fn)


_NOT_TOOLS = frozenset({"userMessage", "agentMessage", "reasoning", "plan", "contextCompaction"})


@dataclass(kw_only=True)
class AgentRun:
    """One agent's run in a comparison: its summary row and the source's own turn result."""

    name: str
    status: str = "waiting"
    """waiting | running | stopping, then one of ``OUTCOMES``."""
    steps: int = 0
    """Steps of the agent's latest plan."""
    plan_revisions: int = 0
    """Plan snapshots the agent published during the run."""
    tool_calls: int = 0
    """Tool calls the agent started (``update_plan`` excepted: it is the plan)."""
    elapsed: float = 0.0
    """Seconds from the start of the turn to its end (or until now, while it runs)."""
    error: str | None = None
    result: Any = None
    """What ``await handle`` gave: ``TurnResult``, ``AppServerTurnResult``, ``AcpTurnResult``..."""

    @property
    def done(self) -> bool:
        """True once the run has an outcome."""
        return self.status in OUTCOMES


class _Lane:
    """One agent: starts its turn, counts what its events show, stops it."""

    def __init__(self, name: str, source: Any, model: Any, on_change: Any) -> None:
        self.name = name
        self.source = source
        self.model = model
        self.run = AgentRun(name=name)
        self.handle: Any = None
        self.task: asyncio.Task[AgentRun] | None = None
        self.loop = asyncio.get_running_loop()
        self._turn: asyncio.Future[Any] | None = None
        self._started = 0.0
        self._on_change = on_change
        self._calls: set[str] = set()
        self._unsubscribes = [source.subscribe(self._on_event)]
        # codex_nb's runtime announces a call with an item only when its model streams; its
        # lifecycle records name every call (the same ids, so a call is counted once)
        if capabilities_of(source).tool_lifecycle:
            self._unsubscribes.append(source.on_lifecycle(self._on_lifecycle))

    def _on_lifecycle(self, record: Any) -> None:
        if record.phase == "start" and getattr(record.tool_name, "name", None) != "update_plan":
            self._call(str(record.call_id))

    def _call(self, call_id: str) -> None:
        if self.run.status not in ("running", "stopping") or call_id in self._calls:
            return
        self._calls.add(call_id)
        self.run.tool_calls = len(self._calls)
        self._on_change()

    def _on_event(self, event: Event) -> None:
        msg = event.msg
        if self.run.status not in ("running", "stopping"):
            return
        if msg.type == "plan_update":
            self.run.plan_revisions += 1
            self.run.steps = len(getattr(msg, "plan", ()) or ())
            self._on_change()
        elif msg.type == "item_started":
            item = getattr(msg, "item", None) or {}
            if item.get("type") not in _NOT_TOOLS and item.get("tool") != "update_plan":
                self._call(str(item.get("id")))

    def start(self, prompt: str, timeout: float | None) -> None:
        self.run.status = "running"
        self._started = time.perf_counter()
        from ..extension.sources import turn_task  # on use: importing the extension loads IPython

        try:
            if capabilities_of(self.source).needs_model:
                self.handle = self.source.start_turn(prompt, model=self.model)
            else:
                self.handle = self.source.start_turn(prompt)
            self._turn = turn_task(self.handle)
        except Exception as err:  # a source that cannot start fails its own row only
            self._finish("failed", error=f"{type(err).__name__}: {err}")
            self.task = asyncio.ensure_future(self._done())
            return
        self.task = asyncio.ensure_future(self._wait(timeout))

    async def _done(self) -> AgentRun:
        for unsubscribe in self._unsubscribes:
            unsubscribe()
        return self.run

    async def _wait(self, timeout: float | None) -> AgentRun:
        assert self._turn is not None
        try:
            done, _ = await asyncio.wait({self._turn}, timeout=timeout)
            if not done:
                self.stop()
                await asyncio.wait({self._turn})
                if self.run.status != "stopped":
                    self._settle(timed_out=True)
                return self.run
            self._settle()
        except asyncio.CancelledError:
            self._turn.cancel()
            if not self.run.done:
                self._finish("stopped", error="the comparison was cancelled")
            raise
        finally:
            for unsubscribe in self._unsubscribes:
                unsubscribe()
        return self.run

    def _settle(self, *, timed_out: bool = False) -> None:
        assert self._turn is not None
        if self.run.done:
            return
        if self._turn.cancelled():
            self._finish("stopped", error=f"did not stop within {STOP_GRACE:g} s of Stop; its task was cancelled")
            return
        err = self._turn.exception()
        if err is not None:
            self._finish("failed", error=f"{type(err).__name__}: {err}")
            return
        result = self._turn.result()
        self.run.result = result
        status = str(getattr(result, "status", "completed"))
        if timed_out:
            self._finish(
                "timed out", error=getattr(result, "error", None) or "the timeout passed; the agent was stopped"
            )
        else:
            self._finish(status if status in OUTCOMES else "failed", error=getattr(result, "error", None))

    def _finish(self, status: str, *, error: str | None = None) -> None:
        self.run.status = status
        self.run.error = error
        self.run.elapsed = time.perf_counter() - self._started
        self._on_change()

    def stop(self) -> bool:
        """Ask the agent to stop; cancel its turn if it has not ended ``STOP_GRACE`` s later."""
        turn = self._turn
        if turn is None or turn.done() or self.run.status == "stopping":
            return False
        self.run.status = "stopping"
        try:
            self.handle.interrupt()
        except Exception as err:  # a hostile source's interrupt must not stop Stop all
            self.run.error = f"interrupt failed: {type(err).__name__}: {err}"
        _on_loop(self.loop, self._arm_grace)
        self._on_change()
        return True

    def _arm_grace(self) -> None:
        turn = self._turn
        if turn is not None and not turn.done():
            timer = self.loop.call_later(STOP_GRACE, self._cancel)
            turn.add_done_callback(lambda _t: timer.cancel())

    def _cancel(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._finish("stopped", error=f"did not stop within {STOP_GRACE:g} s of Stop; its task was cancelled")
            self._turn.cancel()

    def elapsed(self) -> float:
        if self.run.done or not self._started:
            return self.run.elapsed
        return time.perf_counter() - self._started


def _lanes(sources: Mapping[str, Any] | Sequence[Any]) -> list[tuple[str, Any, Any]]:
    from ..extension.sources import is_turn_source  # on use: the extension loads IPython

    items = list(sources.items()) if isinstance(sources, Mapping) else [(None, s) for s in sources]
    if not items:
        raise ValueError(
            "compare() needs at least one source, e.g. cx.compare({'codex': thread, 'acp': session}, text)"
        )
    lanes: list[tuple[str, Any, Any]] = []
    names: set[str] = set()
    for index, (name, entry) in enumerate(items):
        source, model = entry if isinstance(entry, tuple) and len(entry) == 2 else (entry, None)
        label = str(name) if name is not None else f"{index + 1}. {type(source).__name__}"
        if not is_turn_source(source):
            raise TypeError(
                f"compare(): {label} is a {type(source).__name__}, which cannot run turns; pass a "
                f"cx.Session with its model as (session, model), a CodexAppServer thread or an ACP session"
            )
        if capabilities_of(source).needs_model and model is None:
            raise TypeError(f"compare(): {label} is a {type(source).__name__} and needs a model: pass (source, model)")
        if not capabilities_of(source).needs_model and model is not None:
            raise TypeError(f"compare(): {label} brings its own model; pass the source alone, not (source, model)")
        if label in names:
            raise ValueError(f"compare(): two sources are named {label!r}; give each a name of its own")
        if any(source is other for _, other, _ in lanes):
            raise ValueError(f"compare(): {label} is listed twice; a source runs one turn at a time")
        names.add(label)
        lanes.append((label, source, model))
    return lanes


class Comparison(FinalStateFallback, ipywidgets.VBox):
    """The same prompt on several agents, side by side: ``cx.compare(sources, prompt)`` builds it.

    One column per agent: its status and Stop (``TurnControls``), its checklist, transcript and plan
    timeline; above them Stop all, below them the summary table. ``await comparison`` gives
    ``{name: AgentRun}`` once every agent has ended; ``stop(name)`` and ``stop_all()`` stop."""

    def __init__(self, lanes: list[_Lane], *, views: bool) -> None:
        self._lanes = {lane.name: lane for lane in lanes}
        self._table = ipywidgets.HTML()
        self._stop_all = ipywidgets.Button(description="Stop all", button_style="danger", icon="stop")
        self._stop_all.on_click(lambda _b: self.stop_all())
        self._headers: dict[str, ipywidgets.HTML] = {}
        self._views: list[Any] = []
        self._redraw: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()
        self._columns: dict[str, list[Any]] = {}
        """name -> its Stop control, checklist, transcript and timeline (what the static text and HTML show)."""
        children: list[Any] = []
        if views:
            columns = [self._column(lane) for lane in lanes]
            grid = ipywidgets.GridBox(
                columns, layout=ipywidgets.Layout(grid_template_columns=f"repeat({len(lanes)}, minmax(0, 1fr))")
            )
            children = [self._stop_all, grid, self._table]
        super().__init__(children=children)
        self.add_class("cx-compare")
        self._refresh()

    def _column(self, lane: _Lane) -> ipywidgets.VBox:
        from ..timeline import PlanTimeline
        from .checklist import PlanChecklist
        from .timeline import PlanTimelineWidget
        from .transcript import Transcript
        from .turn_controls import TurnControls

        header = ipywidgets.HTML()
        self._headers[lane.name] = header
        views = [
            TurnControls(lane.source),
            PlanChecklist(lane.source),
            Transcript(lane.source),
            PlanTimelineWidget(PlanTimeline(lane.source)),
        ]
        self._views.extend(views)
        self._columns[lane.name] = views
        return ipywidgets.VBox([header, *views])

    # ---- results ------------------------------------------------------------------------

    @property
    def runs(self) -> dict[str, AgentRun]:
        """Each agent's run so far, by name (``elapsed`` counts up while it runs)."""
        for lane in self._lanes.values():
            if not lane.run.done:
                lane.run.elapsed = lane.elapsed()
        return {name: lane.run for name, lane in self._lanes.items()}

    async def wait(self) -> dict[str, AgentRun]:
        """Wait until every agent has ended (completed, interrupted, failed, timed out or stopped).

        Cancelling this wait cancels every agent's turn still running (their rows say ``stopped``)."""
        tasks = [lane.task for lane in self._lanes.values() if lane.task is not None]
        await asyncio.gather(*tasks, return_exceptions=True)
        self._refresh()
        return self.runs

    def __await__(self) -> Generator[Any, None, dict[str, AgentRun]]:
        return self.wait().__await__()

    def done(self) -> bool:
        """True once every agent has an outcome."""
        return all(lane.run.done for lane in self._lanes.values())

    # ---- controls -----------------------------------------------------------------------

    def stop(self, name: str) -> bool:
        """Stop one agent (what its column's Stop does); False if it is not running."""
        if name not in self._lanes:
            raise KeyError(f"no agent named {name!r} in this comparison; the names are {', '.join(self._lanes)}")
        return self._lanes[name].stop()

    def stop_all(self) -> list[str]:
        """Stop every agent still running; returns the names of those asked to stop."""
        return [name for name, lane in self._lanes.items() if lane.stop()]

    # ---- what it shows ------------------------------------------------------------------

    def _changed(self) -> None:
        if not self._headers or self._redraw is not None:
            return  # headless: nothing to redraw; or a redraw is already due
        _on_loop(self._loop, self._schedule_redraw)

    def _schedule_redraw(self) -> None:
        if self._redraw is None:
            self._redraw = self._loop.call_later(REFRESH_SECONDS, self._refresh)

    def _refresh(self) -> None:
        if self._redraw is not None:
            self._redraw.cancel()
            self._redraw = None
        self._table.value = self._summary_html()
        for name, header in self._headers.items():
            run = self._lanes[name].run
            header.value = f"<b>{html.escape(name)}</b> · {html.escape(run.status)}"
        done = self.done()
        self._stop_all.disabled = done
        # red asks for attention: once every agent has ended there is nothing left to stop
        self._stop_all.button_style = "" if done else "danger"

    def summary(self) -> list[dict[str, Any]]:
        """The summary table as rows: agent, outcome, steps, revisions, tool calls, seconds, error."""
        return [
            {
                "agent": run.name,
                "outcome": run.status,
                "steps": run.steps,
                "plan revisions": run.plan_revisions,
                "tool calls": run.tool_calls,
                "seconds": round(run.elapsed, 2),
                "error": run.error or "",
            }
            for run in self.runs.values()
        ]

    def text(self) -> str:
        """The summary table as text, then each agent's checklist (when the views were built).

        Not the transcripts: a real agent's tool output arrives in a different form from run to run
        (streamed, or the final formatted block), and this text is what a stored output compares."""
        rows = self.summary()
        head = ["agent", "outcome", "steps", "revisions", "tool calls", "time"]
        body = [
            [
                r["agent"],
                r["outcome"],
                str(r["steps"]),
                str(r["plan revisions"]),
                str(r["tool calls"]),
                f"{r['seconds']:.2f} s",
            ]
            for r in rows
        ]
        widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]
        lines = [
            "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in [head, *body]
        ]
        lines += [f"{r['agent']}: {r['error']}" for r in rows if r["error"]]
        for name, (_controls, checklist, _transcript, _timeline) in self._columns.items():
            lines += ["", f"── {name} ──", checklist.text()]
        return "\n".join(lines)

    def html(self) -> str:
        """The summary table, then the columns side by side, as static HTML."""
        columns = "".join(
            f'<div style="flex:1;min-width:0"><h4>{html.escape(name)}</h4>{"".join(view.html() for view in views)}</div>'
            for name, views in self._columns.items()
        )
        side_by_side = f'<div style="display:flex;gap:1em">{columns}</div>' if columns else ""
        return self._summary_html() + side_by_side

    def before_static(self) -> None:
        """Send what the views are still coalescing, so the stored text is their final state."""
        self._refresh()
        for view in self._views:
            before = getattr(view, "before_static", None)
            if callable(before):
                before()

    def _summary_html(self) -> str:
        head = "".join(
            f"<th>{h}</th>" for h in ("agent", "outcome", "steps", "revisions", "tool calls", "time", "error")
        )
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    r["agent"],
                    r["outcome"],
                    r["steps"],
                    r["plan revisions"],
                    r["tool calls"],
                    f"{r['seconds']:.2f} s",
                    r["error"],
                )
            )
            + "</tr>"
            for r in self.summary()
        )
        return f'<table class="codex-nb-compare"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'

    def __repr__(self) -> str:
        return f"<Comparison {', '.join(f'{r.name}: {r.status}' for r in self.runs.values())}>"

    def close(self) -> None:
        """Stop every agent still running and close the views (the runs stay readable)."""
        self.stop_all()
        if self._redraw is not None:
            self._redraw.cancel()
            self._redraw = None
        for view in self._views:
            view.close()
        super().close()


def compare(
    sources: Mapping[str, Any] | Sequence[Any], prompt: str, *, timeout: float | None = None, views: bool | None = None
) -> Comparison:
    """Run ``prompt`` on every source at once and show them side by side.

    ``sources`` maps a name to a turn source (a ``CodexAppServer`` thread, an ACP session, a
    replaying one), or to ``(session, model)`` for a ``cx.Session``; a list names them by position.
    Each agent's turn starts now, in the background: the call returns at once. ``timeout`` (seconds)
    stops an agent still running after it. ``views`` builds the widgets of each column (default:
    only in a Jupyter kernel; headless, ``await cx.compare(...)`` gives the results).
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"compare() needs the prompt as non-empty text, got {prompt!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    specs = _lanes(sources)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(
            "compare() starts each agent's turn in the background and needs a running event loop: call it in "
            "a notebook cell (IPython runs one) or inside an async function (asyncio.run(main()))"
        ) from None
    if views is None:
        views = _in_kernel()
    refresh: list[Any] = []
    lanes = [_Lane(name, source, model, lambda: refresh and refresh[0]()) for name, source, model in specs]
    comparison = Comparison(lanes, views=views)
    refresh.append(comparison._changed)
    for lane in lanes:
        lane.start(prompt, timeout)
    comparison._refresh()
    return comparison


def _in_kernel() -> bool:
    try:
        from IPython.core.getipython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None
