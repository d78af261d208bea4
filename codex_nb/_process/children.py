"""The one registry of live children, and the two hooks that end them with the kernel.

It is process-wide on purpose: the operating system's children belong to the process,
and the hooks that must end them (interpreter exit, Jupyter kernel shutdown) are
process-wide too. Both are installed on the first spawn, never at import.
"""

from __future__ import annotations

import atexit
import sys
import threading
from typing import Any, Protocol


class Endable(Protocol):
    def kill_now(self) -> None: ...


_live: dict[int, Endable] = {}
_lock = threading.Lock()
_installed = False


def register(key: int, child: Endable) -> None:
    _install_hooks()
    with _lock:
        _live[key] = child


def unregister(key: int) -> None:
    with _lock:
        _live.pop(key, None)


def live() -> list[Endable]:
    with _lock:
        return list(_live.values())


def kill_all() -> int:
    """End every live child now (synchronously, no waiting); returns how many."""
    with _lock:
        children = list(_live.values())
        _live.clear()
    for child in children:
        try:
            child.kill_now()
        except Exception:  # noqa: BLE001 - one broken child must not spare the others
            pass
    return len(children)


def _install_hooks() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(kill_all)
    kernel = _ipykernel()
    if kernel is not None and not getattr(kernel, "_codex_nb_shutdown_hook", False):
        # A shutdown_request gives the kernel a few seconds before the manager kills it; atexit
        # may come too late, so the children end as the shutdown starts.
        original = kernel.do_shutdown

        def do_shutdown(*args: Any, **kwargs: Any) -> Any:
            kill_all()
            return original(*args, **kwargs)

        kernel.do_shutdown = do_shutdown
        kernel._codex_nb_shutdown_hook = True


def _ipykernel() -> Any:
    # A running kernel was started by IPKernelApp, so its module is loaded. Importing it here when
    # it is not (IPython with ipykernel merely imported, as under pytest with nbval) would import
    # ipykernel.ipkernel, which replaces comm's process-wide comm manager: every widget made before
    # then could no longer be closed (KeyError from its comm's close).
    if "ipykernel.kernelapp" not in sys.modules:
        return None
    try:
        from ipykernel.kernelapp import IPKernelApp

        return IPKernelApp.instance().kernel if IPKernelApp.initialized() else None
    except Exception:  # noqa: BLE001
        return None
