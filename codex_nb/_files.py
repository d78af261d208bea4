"""The one guard for a file that a model, an agent or a person names by path.

Every tool that reads a path it was given (``view_image``, ``image_gen``'s reference images, an
ACP agent's ``fs/read_text_file``, a hooks or config file) meets the same hostile names: a NUL
byte (Python raises ``ValueError``, not ``OSError``, and a turn would crash on it), a FIFO
(opening it waits for a writer, reading waits for data: a hang), ``/dev/zero`` (never ends), a
directory, a huge file, one that cannot be read, one that is missing. ``read_regular`` turns each
into a ``FileRefused`` saying which step failed and why, in the words of Rust's ``io::Error``
(what Codex's own messages hold), so each caller words its answer in its own style; it opens
without blocking (``O_NONBLOCK``), decides on the opened descriptor (``fstat``: a FIFO swapped in
after a ``stat`` is refused too) and reads at most ``limit`` bytes. It blocks on the disk: callers
run it on a worker thread, never on the event loop.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Literal

NUL_IN_NAME = "file name contained an unexpected NUL byte"
"""Rust's ``io::Error`` for a path holding a NUL byte (``std::fs`` refuses it before any system call)."""
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1024 * 1024

Step = Literal["locate", "kind", "size", "read"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class FileRefused(Exception):
    """Why ``path`` was not read. ``step``: ``locate`` (a NUL byte, missing, a bad component),
    ``kind`` (not a regular file: ``kind`` names it), ``size`` (over the limit: ``size`` bytes, or
    more than ``size - 1`` when ``grew``: it grew while read), ``read`` (it could not be opened or
    read). ``reason`` is the Rust-style cause; ``missing``: nothing has that name."""

    def __init__(
        self,
        path: str,
        step: Step,
        reason: str,
        *,
        kind: str | None = None,
        size: int = 0,
        grew: bool = False,
        missing: bool = False,
    ) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.step = step
        self.reason = reason
        self.kind = kind
        self.size = size
        self.grew = grew
        self.missing = missing


def io_error_text(err: OSError) -> str:
    """Rust's ``io::Error`` display: ``No such file or directory (os error 2)``."""
    return f"{err.strerror} (os error {err.errno})" if err.errno is not None and err.strerror else str(err)


def kind_of(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)", "a directory", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_name(path: str) -> None:
    """Refuse a path Python cannot hand to the system (a NUL byte), as Rust's ``std::fs`` does."""
    if "\0" in path:
        raise FileRefused(path, "locate", NUL_IN_NAME)


def read_regular(path: str, *, limit: int, stat_first: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them, or ``FileRefused``.
    ``stat_first``: look before opening (a missing or special file is then a ``locate`` or ``kind``
    refusal without an open, as Codex's ``metadata`` check); the opened descriptor decides anyway."""
    check_name(path)
    if stat_first:
        try:
            _check(path, os.stat(path), limit)
        except OSError as err:
            raise FileRefused(path, "locate", io_error_text(err), missing=err.errno == errno.ENOENT) from None
    try:
        fd = os.open(path, OPEN_FLAGS)  # O_NONBLOCK: a FIFO cannot make the open wait for a writer
    except OSError as err:
        raise FileRefused(path, "read", io_error_text(err), missing=err.errno == errno.ENOENT) from None
    try:
        _check(path, os.fstat(fd), limit)  # what was opened, not what was looked at
        data = read_at_most(fd, limit + 1)
    except OSError as err:
        raise FileRefused(path, "read", io_error_text(err)) from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew after fstat
        raise FileRefused(path, "size", f"more than {limit} bytes", size=len(data), grew=True)
    return data


def _check(path: str, info: os.stat_result, limit: int) -> None:
    kind = kind_of(info.st_mode)
    if kind is not None:
        reason = "Is a directory (os error 21)" if kind == "a directory" else f"not a regular file: {kind}"
        raise FileRefused(path, "kind", reason, kind=kind)
    if info.st_size > limit:
        raise FileRefused(path, "size", f"{info.st_size} bytes, more than {limit}", size=info.st_size)


def read_at_most(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd``, read to its end or to the limit (a bound on a file that grows)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(_CHUNK, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
