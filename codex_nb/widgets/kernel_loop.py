"""Where a widget's work runs: the kernel's event loop, as a comm handler sees it.

ipykernel 7.0-7.3 may deliver comm messages on a subshell thread, and the tasks a view message
starts (an answer, a rewind, an option, a history page) belong on the loop their source was made
on. Every widget hands such work to ``call_on``: one check of which thread it is on, not a copy
per widget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop this thread runs, or None outside one."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def call_on(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., Any], *args: Any) -> None:
    """Call ``fn(*args)`` on ``loop``: now when this thread runs it (or there is no open loop to hand
    it to), else soon, on the loop's own thread."""
    if loop is None or loop.is_closed() or running_loop() is loop:
        fn(*args)
    else:
        loop.call_soon_threadsafe(fn, *args)
