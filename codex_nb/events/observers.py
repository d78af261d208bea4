"""One list of observers with one way to treat a faulty one.

Observers cannot veto: an observer that raises is detached at once (it gets nothing
more) and its owner is told through ``on_fault`` (the bus turns that into a
``warning`` event). The event bus and the call records both use this class, so a
faulty subscriber and a faulty lifecycle observer are handled the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")
Observer = Callable[[T], object]
FaultHandler = Callable[[Callable[[T], object], Exception, T], None]


def observer_name(fn: Callable[..., object]) -> str:
    return getattr(fn, "__qualname__", repr(fn))


class Observers(Generic[T]):
    """Synchronous, in-order observers of ``T``; a raising one is detached and reported."""

    def __init__(self, on_fault: FaultHandler[T], *, what: str = "a callable taking one argument") -> None:
        self._fns: list[Callable[[T], object]] = []
        self._lock = threading.RLock()
        self._on_fault = on_fault
        self._what = what
        self.detached: list[tuple[Callable[[T], object], Exception]] = []
        """Every observer detached so far, with the error that detached it."""

    def __len__(self) -> int:
        return len(self._fns)

    def add(self, fn: Callable[[T], object]) -> Callable[[], None]:
        """Observe every later item; returns a remover (calling it twice is harmless)."""
        if not callable(fn):
            raise TypeError(f"expected {self._what}, got {type(fn).__name__}")
        with self._lock:
            self._fns.append(fn)
        return lambda: self.remove(fn)

    def remove(self, fn: Callable[[T], object]) -> None:
        with self._lock:
            try:
                self._fns.remove(fn)
            except ValueError:  # removed before (a remover may be called twice)
                pass

    def notify(self, item: T) -> None:
        """Call every observer in order; faulty ones are reported after all others ran."""
        if self._fns:  # most records have no observer at all
            self.report(self.call(item), item)

    def call(self, item: T) -> Sequence[tuple[Callable[[T], object], Exception]]:
        """Call every observer in order and return the ones that raised (not yet detached)."""
        failed: list[tuple[Callable[[T], object], Exception]] | None = None  # made only if one raises
        for fn in tuple(self._fns):  # a copy: an observer may add or remove observers
            try:
                fn(item)
            except Exception as err:  # an observer must never break the run
                if failed is None:
                    failed = []
                failed.append((fn, err))
        return () if failed is None else failed

    def report(self, failed: Sequence[tuple[Callable[[T], object], Exception]], item: T) -> None:
        """Detach each faulty observer and tell the owner (``on_fault``)."""
        for fn, err in failed:
            self.remove(fn)
            self.detached.append((fn, err))
            self._on_fault(fn, err, item)
