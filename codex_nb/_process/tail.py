"""A bounded tail of a child's stderr: the last lines, each line capped, ANSI colours removed."""

from __future__ import annotations

import collections
import re

MAX_LINES = 400
MAX_LINE_CHARS = 2000

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class StderrTail:
    """The last ``max_lines`` lines a child wrote to stderr; fed raw chunks, never unbounded."""

    def __init__(self, max_lines: int = MAX_LINES) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self.total_lines = 0
        self._partial = bytearray()

    def feed(self, chunk: bytes) -> None:
        self._partial += chunk
        *complete, rest = self._partial.split(b"\n")
        for raw in complete:
            self.add(raw)
        # an endless line keeps its start only (the limit is on bytes, a few UTF-8 chars over)
        self._partial = bytearray(rest[: MAX_LINE_CHARS * 4])

    def finish(self) -> None:
        if self._partial:
            self.add(bytes(self._partial))
            self._partial.clear()

    def add(self, raw: bytes | bytearray) -> None:
        text = _ANSI.sub("", raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.total_lines += 1
        self.lines.append(text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + " ...")

    def tail(self, n: int = 20) -> str:
        return "\n".join(list(self.lines)[-n:])
