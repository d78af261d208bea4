"""Several agents on one task: ``cx.compare(sources, prompt)`` runs one prompt on N sources at once.

A person who wants to know which agent plans a task best gives each the same prompt and watches
them side by side: each source's checklist, transcript and Stop button in its own column, a status
line per agent, Stop all, and a summary (plan steps, plan revisions, tool calls, time, outcome).
Any turn source works, in any mix: a ``cx.Session`` with its model (``(session, model)``), a real
Codex thread, an ACP session, a cassette-replayed agent. Headless (no widget shown), ``await
comparison`` gives the per-agent results.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Generator, Mapping
from typing import Any

from dataclasses import dataclass
from ..protocol.events import Event


_NOT_TOOLS = frozenset({"agentMessage", "userMessage", "reasoning", "plan"})


@dataclass(kw_only=True)
class AgentRun:
    """One source's run of the prompt, updated as its events arrive."""

    name: str
    source: Any
    status: str = "running"
    """running | completed | interrupted | failed"""
    steps: int = 0
    """Steps of the latest plan."""
    revisions: int = 0
    """Plan updates (each a whole new snapshot)."""
    tool_calls: int = 0
    seconds: float | None = None
    last_agent_message: str | None = None
    error: str | None = None
    result: Any = None
    started: float = 0.0
    handle: Any = None

    def row(self) -> dict[str, Any]:
        """The summary row: name, outcome, steps, revisions, tool calls, seconds."""
        return {
            "agent": self.name,
            "outcome": self.status,
            "steps": self.steps,
            "revisions": self.revisions,
            "tool_calls": self.tool_calls,
            "seconds": None if self.seconds is None else round(self.seconds, 2),
        }

    counts_items: bool = True
    """Tool calls are counted from ``item_started`` events (a Codex thread); a source with lifecycle
    records (``cx.Session``, an ACP session) counts their starts instead."""

    def on_event(self, event: Event) -> None:
        msg: Any = event.msg
        if msg.type == "plan_update":
            self.revisions += 1
            self.steps = len(msg.plan)
        elif self.counts_items and msg.type == "item_started" and msg.item.get("type") not in _NOT_TOOLS:
            self.tool_calls += 1

    def on_lifecycle(self, record: Any) -> None:
        if record.phase == "start":
            self.tool_calls += 1


class Comparison:
    """The running comparison: ``runs`` by name, ``stop(name)`` / ``stop()``, ``summary()``,
    ``await comparison`` (the runs once all ended) and, in a notebook, its side-by-side view."""

    def __init__(self, runs: dict[str, AgentRun], tasks: dict[str, asyncio.Future[Any]]) -> None:
        self.runs = runs
        self._tasks = tasks
        self._done = asyncio.ensure_future(self._finish())
        self._listeners: list[Any] = []

    async def _finish(self) -> dict[str, AgentRun]:
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        return self.runs

    def stop(self, name: str | None = None) -> list[str]:
        """Stop one agent's turn (``name``) or every running one; the names that were asked to stop."""
        if name is not None and name not in self.runs:
            raise KeyError(f"no agent {name!r} in this comparison; its agents are {', '.join(self.runs)}")
        names = [name] if name is not None else list(self.runs)
        return [n for n in names if self.runs[n].status == "running" and self.runs[n].source.interrupt()]

    def done(self) -> bool:
        return self._done.done()

    def summary(self) -> list[dict[str, Any]]:
        """One row per agent: outcome, plan steps, plan revisions, tool calls, seconds."""
        return [run.row() for run in self.runs.values()]

    def __await__(self) -> Generator[Any, None, dict[str, AgentRun]]:
        return self._done.__await__()

    def widget(self) -> Any:
        """The side-by-side view: per agent its status, checklist, transcript and Stop; Stop all; the summary."""
        import ipywidgets as w

        from .checklist import PlanChecklist
        from .transcript import Transcript
        from .turn_controls import TurnControls

        columns = []
        labels: dict[str, Any] = {}
        for name, run in self.runs.items():
            labels[name] = w.HTML()
            parts = [labels[name], PlanChecklist(run.source), TurnControls(run.source), Transcript(run.source)]
            columns.append(w.VBox(parts, layout=w.Layout(flex="1 1 0", min_width="18em")))
        stop_all = w.Button(description="Stop all", button_style="danger")
        stop_all.on_click(lambda _button: self.stop())
        table = w.HTML()

        def refresh(*_: Any) -> None:
            for name, run in self.runs.items():
                labels[name].value = f"<b>{name}</b>: {run.status}"
            rows = "".join(
                "<tr>" + "".join(f"<td>{value}</td>" for value in row.values()) + "</tr>" for row in self.summary()
            )
            head = "".join(f"<th>{key}</th>" for key in self.summary()[0]) if self.runs else ""
            table.value = f"<table><tr>{head}</tr>{rows}</table>"
            stop_all.disabled = all(run.status != "running" for run in self.runs.values())

        refresh()
        self._listeners.append(refresh)
        return w.VBox([w.HBox(columns), w.HBox([stop_all]), table])

    def _changed(self) -> None:
        for listener in self._listeners:
            listener()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget())

    def __repr__(self) -> str:
        return "<Comparison " + ", ".join(f"{r.name}: {r.status}" for r in self.runs.values()) + ">"


def compare(sources: Mapping[str, Any], prompt: str) -> Comparison:
    """Run ``prompt`` on every source at once; returns the ``Comparison`` at once (call it in a
    running event loop, e.g. a notebook cell).

    ``sources`` maps a name to a turn source (an ACP session, a Codex thread, a cassette-replayed
    agent's session) or, for a source that needs a model (``cx.Session``), ``(source, model)``."""
    from ..extension.sources import is_turn_source, needs_model, turn_task

    if not sources:
        raise ValueError("compare() needs at least one source: {'name': source, ...}")
    asyncio.get_running_loop()  # the turns run as tasks of the running loop; say so before starting any
    plan: list[tuple[str, Any, Any]] = []
    for name, value in sources.items():
        source, model = value if isinstance(value, tuple) else (value, None)
        if not is_turn_source(source):
            raise TypeError(
                f"compare(): {name!r} is a {type(source).__name__}, not a turn source (an ACP session, a "
                f"Codex thread or a cx.Session with its model as (session, model))"
            )
        if needs_model(source) and model is None:
            raise TypeError(f"compare(): {name!r} needs a model: pass ({name!r}: (session, model))")
        plan.append((name, source, model))
    runs: dict[str, AgentRun] = {}
    tasks: dict[str, asyncio.Future[Any]] = {}
    comparison: Comparison | None = None
    for name, source, model in plan:
        run = AgentRun(name=name, source=source, started=time.perf_counter())
        source.subscribe(run.on_event)
        if callable(getattr(source, "on_lifecycle", None)):
            run.counts_items = False
            source.on_lifecycle(run.on_lifecycle)
        handle = source.start_turn(prompt, model=model) if model is not None else source.start_turn(prompt)
        run.handle = handle
        runs[name] = run
        tasks[name] = asyncio.ensure_future(_follow(run, turn_task(handle), lambda: comparison))
    comparison = Comparison(runs, tasks)
    return comparison


async def _follow(run: AgentRun, task: asyncio.Future[Any], owner: Any) -> None:
    try:
        result = await task
    except asyncio.CancelledError:
        run.status, run.error = "interrupted", "cancelled"
    except Exception as err:  # noqa: BLE001 - one agent's failure is its row, not the comparison's
        run.status, run.error = "failed", f"{type(err).__name__}: {err}"
    else:
        run.result = result
        run.status = str(getattr(result, "status", "completed"))
        run.error = getattr(result, "error", None)
        run.last_agent_message = getattr(result, "last_agent_message", None)
    run.seconds = time.perf_counter() - run.started
    comparison = owner()
    if comparison is not None:
        comparison._changed()


__all__ = ["AgentRun", "Comparison", "compare"]
