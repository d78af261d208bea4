"""The lines of a rollout file, read with bounds a hostile file cannot break.

A rollout is whatever file a user points at: it may be a FIFO or ``/dev/zero`` (reading
either never ends), a symlink loop, a multi-gigabyte session, or a few kilobytes of
``.jsonl.zst`` that inflate to gigabytes. So the file is opened without blocking and
refused unless it is a regular file, it is read (and inflated) as a stream in blocks,
the total is capped (``max_bytes``), as are the lines with text (``max_lines``) and one
line (``max_line_bytes``): an over-long line is reported by number and length while the
reader skips to its end, holding at most one block and one line in memory.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import CodexNbError

MAX_BYTES = 1 << 30
"""Default cap on a rollout's (inflated) size: real sessions reach hundreds of MiB."""
MAX_LINE_BYTES = 32 << 20
"""Default cap on one line: Codex's largest lines (images as base64, compactions) are a few MiB."""
MAX_LINES = 1_000_000
"""Default cap on lines with text: real sessions average kilobytes a line (a 732 MiB one had 170,000),
and a file of many millions of tiny lines would keep the kernel busy for minutes."""
_BLOCK = 1 << 20


class RolloutError(CodexNbError):
    """A rollout file cannot be read at all (missing, not a regular file, too large, bad zstd)."""


@dataclass(kw_only=True, frozen=True, slots=True)
class RawLine:
    """One line of the file; ``data`` is None when the line was longer than the cap (and skipped)."""

    number: int
    """1-based."""
    data: bytes | None
    length: int
    ended: bool
    """False for a last line without its newline (a writer cut off, or still writing)."""


def size_text(count: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            value = count / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} bytes"


def _not_a_file(file: Path, why: str) -> RolloutError:
    return RolloutError(f"{file} is not a rollout file ({why}); find saved sessions with cx.list_rollouts()")


_KINDS = (
    (stat.S_ISDIR, "it is a directory"),
    (stat.S_ISFIFO, "it is a FIFO (named pipe)"),
    (stat.S_ISCHR, "it is a character device"),
    (stat.S_ISBLK, "it is a block device"),
    (stat.S_ISSOCK, "it is a socket"),
)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


def open_regular_fd(file: Path) -> tuple[int, os.stat_result]:
    """``file`` opened for reading as a descriptor (left non-blocking, which a regular file's reads
    ignore) with its ``fstat``, or a ``RolloutError`` saying why it is not a rollout file."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
    # type is checked on the opened descriptor, so a file swapped after a check cannot slip by.
    try:
        fd = os.open(file, _OPEN_FLAGS)
    except FileNotFoundError:
        raise _not_a_file(file, "it does not exist") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _not_a_file(file, f"a symbolic link loop: {err.strerror}") from None
        raise RolloutError(f"cannot open {file}: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            why = next((text for test, text in _KINDS if test(info.st_mode)), "it is not a regular file")
            raise _not_a_file(file, why)
        return fd, info
    except BaseException:
        os.close(fd)
        raise


def open_regular(file: Path) -> BinaryIO:
    """``file`` opened for reading, or a ``RolloutError`` saying why it is not a rollout file."""
    fd, _ = open_regular_fd(file)
    try:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def _too_large(file: Path, max_bytes: int, inflated: bool) -> RolloutError:
    what = "inflates to more than" if inflated else "is larger than"
    return RolloutError(
        f"{file.name} {what} {size_text(max_bytes)} (max_bytes={max_bytes}), so it was not read; "
        f"if it is a real session that large, read it with cx.read_rollout(path, max_bytes=...)"
    )


def _inflating(file: Path, stream: BinaryIO) -> tuple[BinaryIO, type[Exception]]:
    try:
        import zstandard
    except ImportError:
        raise RolloutError(
            f"{file.name} is zstd-compressed; install the zstandard package "
            f"(pip install 'codex_nb[rollouts]' or pip install zstandard) to read it"
        ) from None
    # A stream, never one decompress() call: the inflated size is counted block by block. Every
    # frame is read (a file may hold several, as pzstd writes them).
    reader = zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True, closefd=False)
    return reader, zstandard.ZstdError


def _blocks(file: Path, max_bytes: int) -> Iterator[bytes]:
    with open_regular(file) as raw:
        compressed = file.name.endswith(".zst")
        if not compressed and os.fstat(raw.fileno()).st_size > max_bytes:
            raise _too_large(file, max_bytes, inflated=False)
        stream, bad_zstd = _inflating(file, raw) if compressed else (raw, ())
        total = 0
        while True:
            try:
                block = stream.read(_BLOCK)
            except bad_zstd as err:
                raise RolloutError(f"{file.name} is not a valid zstd file: {err}") from None
            except OSError as err:
                raise RolloutError(f"cannot read {file}: {err.strerror or err}") from None
            if not block:
                return
            total += len(block)
            if total > max_bytes:
                raise _too_large(file, max_bytes, inflated=compressed)
            yield block


_TEXT = re.compile(rb"[^\n]+")


class _Splitter:
    """Cuts blocks into numbered lines; a line may span blocks. Runs of empty lines are
    counted in C (``bytes.count``), never visited one by one."""

    def __init__(self, file: Path, max_line_bytes: int, max_lines: int) -> None:
        self.file, self.max_line_bytes, self.max_lines = file, max_line_bytes, max_lines
        self.number, self.yielded = 1, 0
        self.pending: bytearray | None = None  # the start of a line that the next block continues
        self.overlong = -1  # length so far of a line past the cap (its bytes are dropped), or -1

    def line(self, data: bytes | None, length: int, ended: bool) -> RawLine:
        self.yielded += 1
        if self.yielded > self.max_lines:
            raise RolloutError(
                f"{self.file.name} has more than {self.max_lines} lines (max_lines={self.max_lines}), "
                f"so it was not read; if it is a real session that long, read it with "
                f"cx.read_rollout(path, max_lines=...)"
            )
        if data is not None and length > self.max_line_bytes:
            data = None
        return RawLine(number=self.number, data=data, length=length, ended=ended)

    def carry(self, piece: memoryview) -> None:
        if self.overlong >= 0:
            self.overlong += len(piece)
        elif len(self.pending or b"") + len(piece) > self.max_line_bytes:
            self.overlong, self.pending = len(self.pending or b"") + len(piece), None
        elif self.pending is None:
            self.pending = bytearray(piece)
        else:
            self.pending += piece

    def carried(self, ended: bool) -> RawLine:
        data = None if self.overlong >= 0 else bytes(self.pending or b"")
        line = self.line(data, self.overlong if data is None else len(data), ended)
        self.pending, self.overlong = None, -1
        return line

    def block(self, block: bytes) -> Iterator[RawLine]:
        view, pos = memoryview(block), 0
        if self.pending is not None or self.overlong >= 0:
            end = block.find(b"\n")
            self.carry(view if end < 0 else view[:end])
            if end < 0:
                return
            yield self.carried(ended=True)
            self.number, pos = self.number + 1, end + 1
        last = block.rfind(b"\n")
        if last >= pos:
            for match in _TEXT.finditer(block, pos, last):
                self.number += block.count(b"\n", pos, match.start())
                yield self.line(match.group(), match.end() - match.start(), ended=True)
                pos = match.end()
            self.number += block.count(b"\n", pos, last + 1)
            pos = last + 1
        if pos < len(block):
            self.carry(view[pos:])

    def end(self) -> Iterator[RawLine]:
        if self.pending is not None or self.overlong >= 0:
            yield self.carried(ended=False)


def raw_lines(
    file: Path, *, max_bytes: int = MAX_BYTES, max_line_bytes: int = MAX_LINE_BYTES, max_lines: int = MAX_LINES
) -> Iterator[RawLine]:
    """Every line of ``file`` with text (inflated if it ends in ``.zst``), numbered from 1 as in
    the file; empty lines are skipped. Raises ``RolloutError`` past ``max_bytes`` or ``max_lines``."""
    for name, cap in (("max_bytes", max_bytes), ("max_line_bytes", max_line_bytes), ("max_lines", max_lines)):
        if not isinstance(cap, int) or isinstance(cap, bool) or cap < 1:
            raise ValueError(f"{name} must be a positive integer, got {cap!r}")
    splitter = _Splitter(file, max_line_bytes, max_lines)
    for block in _blocks(file, max_bytes):
        yield from splitter.block(block)
    yield from splitter.end()
