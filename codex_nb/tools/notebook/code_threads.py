"""One short-lived daemon thread per piece of user code (a ``__repr__``, a ``run_code`` snippet),
which a timeout or a Stop can interrupt.

Python cannot kill a thread. What it can do is raise an exception in one at its next bytecode
(``PyThreadState_SetAsyncExc``): a pure-Python loop stops at once, code blocked inside C (a
``time.sleep``, a socket read) stops when that call returns. So a run that is stopped is asked
to stop, waited for briefly, and if it still runs the answer says so (the thread is a daemon: it
never keeps the kernel from exiting).

Threads the code itself started are asked to stop the same way, and only those: Python records no
parent thread, so ``threading.Thread.start`` is wrapped (once, when the first run starts) to
remember which thread started each new one. A run's threads are its descendants. Comparing
``threading.enumerate()`` before and after, as this module once did, also caught threads that
anything else in the kernel started meanwhile (an asyncio executor worker, another run's), and
stopping an executor worker hung the event loop at shutdown.
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
import weakref
from collections.abc import Callable
from dataclasses import field
from typing import Any

from ..._records import record


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


_PARENTS: weakref.WeakKeyDictionary[threading.Thread, threading.Thread] = weakref.WeakKeyDictionary()
"""Each thread started since the wrapper was installed -> the thread that started it."""
_PARENTS_LOCK = threading.Lock()
_MAX_DEPTH = 1_000  # a chain of threads starting threads is never this deep; bounds the walk


def _remember_parents() -> None:
    """Wrap ``threading.Thread.start`` (once per process) to record the starting thread."""
    original = threading.Thread.start
    if getattr(original, "codex_nb_parents", False):
        return

    def start(self: threading.Thread) -> None:
        with _PARENTS_LOCK:
            _PARENTS[self] = threading.current_thread()
        original(self)

    start.codex_nb_parents = True  # type: ignore[attr-defined]
    start.__wrapped__ = original  # type: ignore[attr-defined]
    start.__doc__ = original.__doc__
    threading.Thread.start = start  # type: ignore[method-assign]


def descends_from(thread: threading.Thread, ancestor: threading.Thread) -> bool:
    """Whether ``ancestor`` started ``thread``, or started the thread that started it, and so on."""
    with _PARENTS_LOCK:
        current: threading.Thread | None = _PARENTS.get(thread)
        for _ in range(_MAX_DEPTH):
            if current is None:
                return False
            if current is ancestor:
                return True
            current = _PARENTS.get(current)
    return False


@record(kw_only=True)
class Run:
    """One piece of user code on its own thread; ``finished`` is set (thread-safely) when it returns."""

    thread: threading.Thread
    finished: asyncio.Event
    result: list[Any] = field(default_factory=list)
    error: list[BaseException] = field(default_factory=list)

    def started_threads(self) -> list[threading.Thread]:
        """The threads the code started (or that its threads started) that are still alive."""
        return [t for t in threading.enumerate() if t.is_alive() and descends_from(t, self.thread)]


def start(fn: Callable[[], Any], *, name: str) -> Run:
    """Run ``fn`` on a new daemon thread; must be called on the event loop that awaits it."""
    _remember_parents()
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    result: list[Any] = []
    error: list[BaseException] = []

    def body() -> None:
        try:
            result.append(fn())
        except BaseException as err:  # noqa: BLE001  user code may raise anything; it is reported
            error.append(err)
        finally:
            try:
                loop.call_soon_threadsafe(finished.set)
            except RuntimeError:  # the loop closed while the code ran: nobody waits any more
                pass

    thread = threading.Thread(target=body, name=name, daemon=True)
    thread.start()
    return Run(thread=thread, finished=finished, result=result, error=error)


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
