"""Capturing what one ``run_code`` thread prints and displays, without touching anyone else's output.

``sys.stdout`` / ``sys.stderr`` and IPython's display publisher are process-wide, and the kernel
keeps printing the person's cells while an agent's code runs. So the capture is routed by thread:
while a run is active, a small router stands in front of each stream and sends the writes of
the run's thread to its capture, everything else to the stream it wraps; the last run to end
puts the original back. A capture keeps a bounded head and tail of the text, however much the
code prints, and counts the rest.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO


class Capture:
    """The bounded text and display outputs of one thread."""

    def __init__(self, *, limit: int, max_displays: int = 20) -> None:
        self.limit = limit
        self._head: list[str] = []
        self._head_len = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.total = 0
        self.displays: list[dict[str, Any]] = []
        self.dropped_displays = 0
        self._max_displays = max_displays
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        with self._lock:
            self.total += len(text)
            room = self.limit * 2 // 3 - self._head_len
            if room > 0:
                self._head.append(text[:room])
                self._head_len += min(room, len(text))
                text = text[room:]
            if not text:
                return
            self._tail.append(text[-self.limit :])
            self._tail_len += len(self._tail[-1])
            while self._tail_len - len(self._tail[0]) >= self.limit // 3 and len(self._tail) > 1:
                self._tail_len -= len(self._tail.popleft())

    def display(self, data: dict[str, Any]) -> None:
        with self._lock:
            if len(self.displays) < self._max_displays:
                self.displays.append(data)
            else:
                self.dropped_displays += 1

    def text(self) -> str:
        with self._lock:
            head = "".join(self._head)
            tail = "".join(self._tail)[-(self.limit // 3) :] if self._tail else ""
            dropped = self.total - len(head) - len(tail)
        if dropped <= 0:
            return head + tail
        return f"{head}\n…[{dropped} characters truncated]…\n{tail}"


class _Router:
    """Stands in for a text stream: writes of a captured thread go to its capture."""

    def __init__(self, wrapped: TextIO, routes: dict[int, Capture]) -> None:
        self.wrapped = wrapped
        self._routes = routes

    def write(self, text: str) -> int:
        capture = self._routes.get(threading.get_ident())
        if capture is None:
            return self.wrapped.write(text)
        capture.write(str(text))
        return len(text)

    def flush(self) -> None:
        if threading.get_ident() not in self._routes:
            self.wrapped.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


_lock = threading.Lock()
_routes: dict[int, Capture] = {}
_saved: dict[str, Any] = {}


def _install() -> None:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, _Router):
            _saved[name] = stream
            setattr(sys, name, _Router(stream, _routes))
    publisher = _display_publisher()
    if publisher is not None and "publish" not in _saved:
        original: Callable[..., Any] = publisher.publish
        _saved["publish"] = (publisher, original)

        def publish(data: Any = None, metadata: Any = None, *args: Any, **kwargs: Any) -> Any:
            capture = _routes.get(threading.get_ident())
            if capture is None:
                return original(data, metadata, *args, **kwargs)
            if isinstance(data, dict):
                capture.display(data)
            return None

        publisher.publish = publish


def _uninstall() -> None:
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, _Router) and name in _saved:
            setattr(sys, name, _saved.pop(name))
    if "publish" in _saved:
        publisher, _original = _saved.pop("publish")
        publisher.__dict__.pop("publish", None)


def _display_publisher() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return None
    shell = get_ipython()
    return getattr(shell, "display_pub", None) if shell is not None else None


@contextmanager
def routed(capture: Capture) -> Iterator[None]:
    """While inside, the calling thread's prints and displays go to ``capture``."""
    ident = threading.get_ident()
    with _lock:
        if not _routes:
            _install()
        _routes[ident] = capture
    try:
        yield
    finally:
        with _lock:
            _routes.pop(ident, None)
            if not _routes:
                _uninstall()
