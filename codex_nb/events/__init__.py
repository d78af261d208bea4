"""Events: the bus every source emits on and the ``EventSource`` protocol widgets read.

The package's ``__all__`` is the public part: ``Event`` (what every source emits, and what a
``session.subscribe`` callback receives) and ``EventSource`` (what a widget can show). They load
on first use.

Modules:

* ``bus``: the event bus: in-order subscribers and bounded async consumers.
* ``observers``: observer lists that detach and report a faulty observer.
* ``source``: ``EventSource``, what a widget reads.
* ``turn_log``: the events a turn's result keeps, with text deltas bounded.
* ``usage_meter``: ``UsageMeter``, token usage folded from ``token_count`` events.

Layer: above ``protocol/`` (which it may import), beside ``frontend/`` and ``config/``; ``tools/``
and everything above may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attach as _attach

if TYPE_CHECKING:  # loaded on first use (codex_nb._lazy); __all__ is derived from these
    from ..protocol.events import Event as Event
    from .source import EventSource as EventSource

__getattr__, __dir__ = _attach(__name__)
