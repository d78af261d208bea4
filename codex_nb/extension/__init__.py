"""The IPython extension: ``%load_ext codex_nb`` makes codex_nb native in a notebook.

Loading sets up one default session for the kernel and registers the magics
(``%%codex``, ``%codex_plan``, ``%codex_stop``, ``%codex_config``, ``%codex_hooks``,
``%codex_tools``); ``%unload_ext codex_nb`` interrupts running turns and closes the
sessions and widgets it made. ``c.InteractiveShellApp.extensions = ["codex_nb"]`` loads it
at kernel start. This is the top layer: it may import everything, nothing imports it
except ``codex_nb.load_ipython_extension``.

Modules:

* ``attachments_view``: the Attachments block of a ``%%codex --cells/--vars`` turn.
* ``context``: cells, outputs and variables attached to a prompt, bounded.
* ``image_bytes``: the check an image's bytes pass before they go to an agent.
* ``magic_files``: files a magic reads, through the bounded reader.
* ``magics``: ``%%codex`` and the line magics.
* ``panel``: the side-panel checklist and Stop control.
* ``sources``: the model and runner behind a ``%%codex`` cell.
* ``state``: the extension's sessions, turns and widgets in one kernel.
* ``turn_view``: the box of live widgets a ``%%codex`` cell shows.
* ``value_summary``: bounded summaries of notebook values (frames, arrays, any repr).

Layer: the top, with ``render/``, ``widgets/``, ``extension/`` and ``agent_server/``, which may import
one another; it may import every layer below, and no lower layer imports it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .magics import CodexMagics
from .sources import SourceError, SourceRegistry
from .state import CodexNbExtension, KernelAgent

__all__ = [
    "CodexMagics",
    "CodexNbExtension",
    "KernelAgent",
    "SourceError",
    "SourceRegistry",
    "agent",
    "load_ipython_extension",
    "unload_ipython_extension",
    "wait_closed",
]

_closing: set[asyncio.Task[None]] = set()


def agent(shell: Any | None = None) -> KernelAgent | None:
    """The extension state of ``shell`` (default: the running IPython), or None if not loaded."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    magics = shell.magics_manager.registry.get(CodexMagics.__name__) if shell is not None else None
    return magics.agent if magics is not None else None


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext codex_nb``: one default session per kernel and the ``%%codex`` magics."""
    if agent(shell) is not None:
        return  # loaded twice (%load_ext again, or config + cell): keep the running state
    settings = CodexNbExtension(parent=shell)
    state = KernelAgent(settings=settings, namespace=shell.user_ns)
    shell.register_magics(CodexMagics(shell, state))
    if getattr(shell, "kernel", None) is not None:  # a front end may show it: Send to agent
        state.connect_page()


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext codex_nb``: remove the magics, interrupt running turns, close the widgets.

    ``await cx.extension.wait_closed()`` waits until the closing has finished.
    """
    state = agent(shell)
    if state is None:
        return
    magics = shell.magics_manager.registry.pop(CodexMagics.__name__)
    for kind, names in magics.magics.items():
        table = shell.magics_manager.magics[kind]
        for name in names:
            if table.get(name) is not None and getattr(table[name], "__self__", None) is magics:
                del table[name]
    task = state.close()
    if task is not None:
        _closing.add(task)
        task.add_done_callback(_closing.discard)


async def wait_closed() -> None:
    """Wait until every ``%unload_ext codex_nb`` has finished closing (turns, hooks, widgets)."""
    while _closing:
        await asyncio.gather(*list(_closing), return_exceptions=True)
