"""Keep the next cell's replies its own when a widget message lands as a cell ends (ipykernel 7.4).

ipykernel 7.4 dispatches a ``comm_msg`` at once while an async cell runs (so a cell can await a
widget's answer). Around that dispatch ``Kernel.shell_main`` saves the shell's parent header and
puts it back afterwards. The dispatch takes a few turns of the event loop; when the running cell
ends and the next one starts within them, the saved header is the finished cell's, and putting
it back makes the next cell's ``status: idle`` (and whatever else it publishes) answer the
finished cell. The front end never sees that cell end: in JupyterLab it stays ``[*]`` and Run All
never settles, while the kernel is idle. Every view that sends a message right after it renders
(the checklist reports the revision it drew) can set this off, and a loaded machine makes it
likelier.

The fix: while a codex_nb widget is shown in such a kernel, that put-back stores the parent the
shell holds at that moment (the running cell's), which is what the put-back is for: refreshing
the context that threads print through. Only the put-back is changed, it is recognised by its
caller's code object, and only a ``shell_main`` whose source has this put-back is patched.
``tests/kernel/test_kernel_comm_parent.py`` shows the race in a real kernel and the fix.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

_MARK = "_codex_nb_comm_parent_fix"
# the statement in ipykernel 7.4's Kernel.shell_main that restores the saved parent
_RESTORE = "self.set_parent(shell_ident, shell_parent"


def has_the_race(kernel: Any) -> bool:
    """True if ``kernel``'s ``shell_main`` puts a saved parent back after a concurrent comm."""
    shell_main = getattr(type(kernel), "shell_main", None)
    if shell_main is None or not hasattr(shell_main, "__code__"):
        return False
    try:
        source = inspect.getsource(shell_main)
    except (OSError, TypeError):
        return False
    return _RESTORE in source and hasattr(kernel, "_shell_parent") and hasattr(kernel, "_shell_parent_ident")


def install(kernel: Any | None = None) -> bool:
    """Patch the running kernel (idempotent); True if the fix is in place.

    ``kernel`` defaults to the IPython kernel this code runs in; without one (a terminal, a
    plain script) or with a kernel that has no such race, nothing is changed."""
    if kernel is None:
        kernel = _current_kernel()
        if kernel is None:
            return False
    if getattr(kernel, _MARK, False):
        return True
    if not has_the_race(kernel):
        return False
    restore_site = type(kernel).shell_main.__code__
    original: Callable[..., Any] = kernel.set_parent

    def set_parent(ident: Any, parent: Any, channel: str = "shell") -> Any:
        if channel == "shell" and sys._getframe(1).f_code is restore_site:
            # the put-back after a concurrent comm: keep the cell that runs now, not the one
            # that ran when the comm arrived
            try:
                ident, parent = kernel._shell_parent_ident.get(), kernel._shell_parent.get()
            except LookupError:  # no shell parent in this context yet: the saved one is all there is
                pass
        return original(ident, parent, channel)

    kernel.set_parent = set_parent
    setattr(kernel, _MARK, True)
    return True


def _current_kernel() -> Any | None:
    shell_module = sys.modules.get("IPython")
    if shell_module is None:  # IPython never loaded: no kernel to patch
        return None
    from IPython import get_ipython

    shell = get_ipython()
    return getattr(shell, "kernel", None)
