"""Running a real Codex thread's verb (rewind, compact) that a widget's view asked for.

A comm message may arrive on another thread or loop than the app-server's, whose futures belong to
the loop it started on, so the verb runs as a task there; the cell is never blocked, and how it
ended (its one-line error included) goes to a callback the widget shows in a trait.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from .kernel_loop import call_on

log = logging.getLogger("codex_nb.widgets")


def offers(source: Any, verb: str, feature: str) -> bool:
    """True when ``source`` has ``verb`` and its server offers ``feature`` (``server.features``):
    a real Codex thread on a release with it. Other sources offer nothing."""
    features = getattr(getattr(source, "server", None), "features", None)
    return callable(getattr(source, verb, None)) and isinstance(features, dict) and bool(features.get(feature))


def first_line(error: BaseException) -> str:
    """An error as the one line a view shows."""
    return (str(error).splitlines() or [type(error).__name__])[0][:400]


def run_on_server(
    source: Any,
    make: Callable[[], Coroutine[Any, Any, Any]],
    said: Callable[[str], None],
    *,
    done: Callable[[Any], str],
    tasks: set[asyncio.Task[Any]],
) -> None:
    """Run ``make()`` on ``source.server``'s loop; ``said`` gets ``done(result)`` or the error's line."""
    try:
        loop = source.server.loop
    except Exception as err:  # not started: said in the view  # noqa: BLE001
        said(first_line(err))
        return
    if loop.is_closed():
        said("the app-server's event loop is closed: start a new cx.CodexAppServer")
        return

    def finished(task: asyncio.Task[Any]) -> None:
        tasks.discard(task)
        if task.cancelled():
            said("cancelled")
            return
        error = task.exception()
        if error is not None:
            log.warning("%s", error)
            said(first_line(error))
            return
        said(done(task.result()))

    def start() -> None:
        task = loop.create_task(make())
        tasks.add(task)
        task.add_done_callback(finished)

    call_on(loop, start)
