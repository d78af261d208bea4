"""One short-lived daemon thread per piece of user code (a ``__repr__``, a ``run_code`` snippet),
which a timeout or a Stop can interrupt.

Python cannot kill a thread. What it can do is raise an exception in one at its next bytecode
(``PyThreadState_SetAsyncExc``): a pure-Python loop stops at once, code blocked inside C (a
``time.sleep``, a socket read) stops when that call returns. So a run that is stopped is asked
to stop, waited for briefly, and if it still runs the answer says so (the thread is a daemon: it
never keeps the kernel from exiting). Threads the code itself started are found by comparing
``threading.enumerate()`` before and after, and are asked to stop the same way; the threads of
other runs going on at the same time (calls over MCP may overlap) are not the code's own and are
left alone. A thread that a concurrent run's code started in the same window cannot be told apart
(Python records no parent thread) and counts as both runs'.
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class CodeStopped(BaseException):
    """Raised inside user code that a timeout or a Stop interrupted (a BaseException, so that a
    bare ``except Exception`` in the code does not swallow it)."""


def _quiet_stops(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    def hook(args: Any) -> object:
        if isinstance(args.exc_value, CodeStopped):  # a thread we stopped on purpose: not an error to print
            return None
        return previous(args)

    hook.codex_nb_quiet_stops = True  # type: ignore[attr-defined]
    return hook


def ask_to_stop(thread: threading.Thread) -> bool:
    """Raise ``CodeStopped`` in ``thread`` at its next bytecode; False if it had already ended.

    A thread the code started ends with that exception uncaught: ``threading.excepthook`` is wrapped
    (once, keeping whatever hook was there) so that it is not printed as a crash."""
    if not getattr(threading.excepthook, "codex_nb_quiet_stops", False):
        threading.excepthook = _quiet_stops(threading.excepthook)
    ident = thread.ident
    if ident is None or not thread.is_alive():
        return False
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(CodeStopped))
    return bool(done == 1)


@dataclass(kw_only=True)
class Run:
    """One piece of user code on its own thread; ``finished`` is set (thread-safely) when it returns."""

    thread: threading.Thread
    finished: asyncio.Event
    result: list[Any] = field(default_factory=list)
    error: list[BaseException] = field(default_factory=list)
    others_before: frozenset[threading.Thread] = frozenset()
    """The threads alive when the run started (the objects: an ended thread's ident is reused)."""

    def started_threads(self) -> list[threading.Thread]:
        """Threads alive now that were not before the run (the code's own), except the runs' own."""
        with _RUNS_LOCK:
            runs = set(_RUNS)
        return [
            t
            for t in threading.enumerate()
            if t not in self.others_before and t is not self.thread and t not in runs and t.is_alive()
        ]


_RUNS: set[threading.Thread] = set()
"""The threads of the runs going on now, in every session of the process."""
_RUNS_LOCK = threading.Lock()


def start(fn: Callable[[], Any], *, name: str) -> Run:
    """Run ``fn`` on a new daemon thread; must be called on the event loop that awaits it."""
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    before = frozenset(threading.enumerate())
    result: list[Any] = []
    error: list[BaseException] = []

    def body() -> None:
        try:
            result.append(fn())
        except BaseException as err:  # noqa: BLE001  user code may raise anything; it is reported
            error.append(err)
        finally:
            with _RUNS_LOCK:
                _RUNS.discard(thread)
            try:
                loop.call_soon_threadsafe(finished.set)
            except RuntimeError:  # the loop closed while the code ran: nobody waits any more
                pass

    thread = threading.Thread(target=body, name=name, daemon=True)
    run = Run(thread=thread, finished=finished, result=result, error=error, others_before=before)
    with _RUNS_LOCK:
        _RUNS.add(thread)
    try:
        thread.start()
    except BaseException:
        with _RUNS_LOCK:
            _RUNS.discard(thread)
        raise
    return run


async def stop(run: Run, *, grace: float = 1.0) -> bool:
    """Ask the run (and the threads it started) to stop; True if its thread ended within ``grace``."""
    for other in run.started_threads():
        ask_to_stop(other)
    ask_to_stop(run.thread)
    try:
        await asyncio.wait_for(asyncio.shield(run.finished.wait()), grace)
    except TimeoutError:
        return False
    run.thread.join(grace)  # past the user's code: only the thread's own teardown is left
    return not run.thread.is_alive()
