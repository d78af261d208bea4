"""One start at a time: the claim a ``start_turn`` (or an ACP ``prompt``) makes before building its turn.

A runtime ``Session``, an app-server ``CodexThread`` and an ``AcpSession`` each refuse a second
turn while one runs. Checking for a running turn and marking the start happen under one lock, and the
mark stays until the turn is built: when the check and the assignment were apart, two threads calling
at once both passed (1 round in 200), and code the start itself runs could start another.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType


class StartGate:
    """Admits one start at a time; ``refusal(starting)`` says why a caller may not start, or None."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.starting = False
        """True while an admitted start builds its turn."""

    def claim(self, refusal: Callable[[bool], BaseException | None]) -> StartGate:
        """Raise what ``refusal`` returns (it is told whether another start is building its turn),
        else hold the start until the ``with`` block ends, however it ends."""
        __tracebackhide__ = True  # IPython and pytest show the caller's line, not this one
        with self._lock:
            error = refusal(self.starting)
            if error is not None:
                raise error
            self.starting = True
        return self

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.starting = False
