"""One turn of the event loop, at the cost of a bare yield.

``await asyncio.sleep(0)`` is a bare ``yield`` inside one more coroutine. The turn loop
takes a loop turn every step and an emitted event is a cancellation point, so both await
the bare yield itself: the same loop turn, without a coroutine to build and unwind.
"""

from __future__ import annotations

import types
from collections.abc import Generator


@types.coroutine
def loop_turn() -> Generator[None, None, None]:
    """Let the running loop run everything else that is ready, once (as ``asyncio.sleep(0)`` does)."""
    yield
