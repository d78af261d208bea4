"""Reading a config file a person pointed at (a config.toml, a hooks.json), safely.

The path comes from a person typing quickly (a magic, ``Session.load_hooks``): it may name a
FIFO (reading blocks until a writer comes), ``/dev/zero`` (never ends), a directory, a huge log,
a binary file or hold a NUL byte. The file is read through ``codex_nb._files`` (the one path
guard: opened without blocking, checked with ``fstat`` before any read, the read bounded), and
every refusal is an error of the caller's type that names the path and what to give.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .._files import FileRefused, read_regular

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Far above any real config.toml or hooks.json; a larger file is refused unread."""


def read_text_file(path: Path, *, what: str, error: Callable[[str], Exception]) -> str:
    """The UTF-8 text of the regular file ``path``; ``what`` names it in errors ("config file"),
    ``error`` makes the exception raised (the caller's own type, so its callers catch one kind)."""
    try:
        data = read_regular(str(path), limit=MAX_FILE_BYTES, stat_first=False)
    except FileRefused as refused:
        if refused.missing:
            raise error(f"no {what} at {path}; give the path of a Codex {_example(what)}") from None
        if refused.step == "kind":
            raise error(
                f"the {what} {path} is {refused.kind}, not a regular file; give the path of a Codex {_example(what)}"
            ) from None
        if refused.step == "size":
            raise error(_too_big(path, what)) from None
        raise error(f"cannot open the {what} {path}: {refused.reason}") from None
    return _decode(data, path, what, error)


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
