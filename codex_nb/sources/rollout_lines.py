"""The lines of a rollout file, read with bounds a hostile file cannot break.

A rollout is whatever file a user points at: it may be a FIFO or ``/dev/zero`` (reading
either never ends), a symlink loop, a multi-gigabyte session, or a few kilobytes of
``.jsonl.zst`` that inflate to gigabytes. So the file is opened without blocking and
refused unless it is a regular file, it is read (and inflated) as a stream in blocks,
the total is capped (``max_bytes``), and one line is capped (``max_line_bytes``): an
over-long line is reported by number and length while the reader skips to its end,
holding at most one block and one line in memory.
"""

from __future__ import annotations

import errno
import os
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


_KINDS = ((stat.S_ISDIR, "it is a directory"), (stat.S_ISFIFO, "it is a FIFO (named pipe)"),
          (stat.S_ISCHR, "it is a character device"), (stat.S_ISBLK, "it is a block device"),
          (stat.S_ISSOCK, "it is a socket"))


def open_regular(file: Path) -> BinaryIO:
    """``file`` opened for reading, or a ``RolloutError`` saying why it is not a rollout file."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
    # type is checked on the opened descriptor, so a file swapped after a check cannot slip by.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(file, flags)
    except FileNotFoundError:
        raise _not_a_file(file, "it does not exist") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _not_a_file(file, f"a symbolic link loop: {err.strerror}") from None
        raise RolloutError(f"cannot open {file}: {err.strerror or err}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            why = next((text for test, text in _KINDS if test(mode)), "it is not a regular file")
            raise _not_a_file(file, why)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def _too_large(file: Path, max_bytes: int, inflated: bool) -> RolloutError:
    what = "inflates to more than" if inflated else "is larger than"
    return RolloutError(f"{file.name} {what} {size_text(max_bytes)} (max_bytes={max_bytes}), so it was not read; "
                        f"if it is a real session that large, read it with cx.read_rollout(path, max_bytes=...)")


def _inflating(file: Path, stream: BinaryIO) -> BinaryIO:
    try:
        import zstandard
    except ImportError:
        raise RolloutError(f"{file.name} is zstd-compressed; install the zstandard package "
                           f"(pip install 'codex_nb[rollouts]' or pip install zstandard) to read it") from None
    # A stream, never one decompress() call: the inflated size is counted block by block. Every
    # frame is read (a file may hold several, as pzstd writes them).
    return zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True, closefd=False)


def _blocks(file: Path, max_bytes: int) -> Iterator[bytes]:
    with open_regular(file) as raw:
        compressed = file.name.endswith(".zst")
        if not compressed and os.fstat(raw.fileno()).st_size > max_bytes:
            raise _too_large(file, max_bytes, inflated=False)
        stream = _inflating(file, raw) if compressed else raw
        total = 0
        while True:
            try:
                block = stream.read(_BLOCK)
            except OSError as err:
                raise RolloutError(f"cannot read {file}: {err.strerror or err}") from None
            except Exception as err:  # zstandard.ZstdError: a damaged or non-zstd file
                if type(err).__name__ != "ZstdError":
                    raise
                raise RolloutError(f"{file.name} is not a valid zstd file: {err}") from None
            if not block:
                return
            total += len(block)
            if total > max_bytes:
                raise _too_large(file, max_bytes, inflated=compressed)
            yield block


def raw_lines(file: Path, *, max_bytes: int = MAX_BYTES, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[RawLine]:
    """Every line of ``file`` (inflated if it ends in ``.zst``), numbered from 1."""
    number, pending, overlong = 1, bytearray(), -1  # overlong: bytes of a line past the cap so far, or -1
    for block in _blocks(file, max_bytes):
        start = 0
        while True:
            end = block.find(b"\n", start)
            piece = memoryview(block)[start:] if end < 0 else memoryview(block)[start:end]
            if overlong >= 0:
                overlong += len(piece)
            elif len(pending) + len(piece) > max_line_bytes:
                overlong, pending = len(pending) + len(piece), bytearray()
            elif end >= 0 and not pending:
                line = bytes(piece)  # the common case: the whole line is in this block
            else:
                pending += piece
            if end < 0:
                break
            if overlong >= 0:
                yield RawLine(number=number, data=None, length=overlong, ended=True)
            else:
                if pending:
                    line, pending = bytes(pending), bytearray()
                yield RawLine(number=number, data=line, length=len(line), ended=True)
            number, start, overlong = number + 1, end + 1, -1
    if overlong >= 0:
        yield RawLine(number=number, data=None, length=overlong, ended=False)
    elif pending:
        yield RawLine(number=number, data=bytes(pending), length=len(pending), ended=False)
