"""Reading a config file a person pointed at (a config.toml, a hooks.json), safely.

The path comes from a person typing quickly (a magic, ``Session.load_hooks``): it may name a
FIFO (reading blocks until a writer comes), ``/dev/zero`` (never ends), a directory, a huge log
or a binary file. The file is opened without blocking and checked with ``fstat`` before any
read, the read is bounded, and every refusal is an error of the caller's type that names the
path and what to give.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Far above any real config.toml or hooks.json; a larger file is refused unread."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_text_file(path: Path, *, what: str, error: Callable[[str], Exception]) -> str:
    """The UTF-8 text of the regular file ``path``; ``what`` names it in errors ("config file"),
    ``error`` makes the exception raised (the caller's own type, so its callers catch one kind)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO must not wait for a writer
    except FileNotFoundError:
        raise error(f"no {what} at {path}; give the path of a Codex {_example(what)}") from None
    except OSError as err:
        raise error(f"cannot open the {what} {path}: {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
            raise error(f"the {what} {path} is {kind}, not a regular file; give the path of a Codex {_example(what)}")
        if info.st_size > MAX_FILE_BYTES:
            raise error(_too_big(path, what))
        data = read_at_most(fd, MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:  # it grew after fstat
        raise error(_too_big(path, what))
    return _decode(data, path, what, error)


def read_at_most(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd``, read to its end or to the limit (a bound on a file that grows)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(65536, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _decode(data: bytes, path: Path, what: str, error: Callable[[str], Exception]) -> str:
    if b"\0" in data:
        raise error(
            f"the {what} {path} is a binary file (it holds NUL bytes at offset {data.index(0)}); "
            f"give the path of a Codex {_example(what)} (UTF-8 text)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(
            f"the {what} {path} is not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8"
        ) from None


def _too_big(path: Path, what: str) -> str:
    return (
        f"the {what} {path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; a Codex {_example(what)} is a "
        f"few KiB: check the path"
    )


def _example(what: str) -> str:
    return "hooks.json or config.toml" if "hooks" in what else "config.toml"
