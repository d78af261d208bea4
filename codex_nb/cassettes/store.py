"""``Cassette``: one cassette file opened in one record mode: what to replay, and atomic recording.

Writes: every ``record()`` rewrites the file through a temp file in the same directory and
``os.replace``, so a crash (a killed kernel mid-turn) leaves the old file or a complete new
one, never half a line. Writers of one path take one lock in the process (turns on
different threads or event loops, several models on one file) and ``flock`` on the
cassette's directory across processes (where ``fcntl`` exists); under both, the file on
disk is re-read and the new line appended to it, so concurrent writers add their
interactions whole, one after the other, and none is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._records import record
from .._version import __version__
from ..errors import CassetteError
from . import format as fmt
from .mismatch_diff import short_diff
from .modes import check_record_mode, rerecord_hint

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@record(frozen=True, kw_only=True)
class Played:
    """A recorded interaction chosen for replay: its position (``index``, 0-based) and file ``line``."""

    index: int
    line: int
    interaction: dict[str, Any]


class Cassette:
    """One cassette file in one record mode.

    ``recorded`` holds what the file held when opened (nothing in ``all`` mode, which never
    replays). ``play(match)`` hands out the first unplayed recorded interaction ``match``
    accepts (each plays at most once, as in vcrpy). ``recording`` says whether a request
    with no recording may be recorded (``record()``) rather than failing.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        kind: str,
        record_mode: Any = "once",
        validate: fmt.Validate | None = None,
    ) -> None:
        self.path = Path(path).expanduser()
        self.kind = kind
        self.record_mode = check_record_mode(record_mode)
        self._validate = validate
        self._played: set[int] = set()
        self._fresh = self.record_mode == "all"  # the first record() replaces the file
        self._guard = threading.Lock()
        exists = check_path(self.path, self.record_mode, example="turns.cassette.jsonl")
        self.header: fmt.Header | None = None
        self.recorded: list[dict[str, Any]] = []
        if exists and self.record_mode != "all":
            self.header, self.recorded = fmt.read(self.path, kind=kind, validate=validate)
        self.recording = self.record_mode in ("new_episodes", "all") or (self.record_mode == "once" and not exists)

    # -- replay ------------------------------------------------------------------------------
    def play(self, match: Callable[[dict[str, Any]], bool]) -> Played | None:
        """The first unplayed recorded interaction ``match`` accepts, now marked played; else ``None``."""
        with self._guard:
            for index, interaction in enumerate(self.recorded):
                if index not in self._played and match(interaction):
                    self._played.add(index)
                    return Played(index=index, line=index + 2, interaction=interaction)
        return None

    def next_unplayed(self) -> Played | None:
        """The first recorded interaction not yet played (what a mismatch is shown against)."""
        with self._guard:
            for index, interaction in enumerate(self.recorded):
                if index not in self._played:
                    return Played(index=index, line=index + 2, interaction=interaction)
        return None

    @property
    def unplayed(self) -> int:
        with self._guard:
            return len(self.recorded) - len(self._played)

    def mismatch(
        self,
        actual: Any,
        *,
        what: str,
        key: str | Callable[[dict[str, Any]], Any],
        normalise: Callable[[Any], Any] = lambda v: v,
    ) -> CassetteError:
        """The error for a ``what`` (e.g. "request") with no recording: a short diff against the next
        unplayed recorded interaction's ``key`` (a top-level key, or a function picking the value),
        the cassette and interaction named, and how to re-record."""
        nearest = self.next_unplayed()
        version = ""
        if self.header is not None and self.header.codex_nb_version not in ("", __version__):
            version = f" (recorded by codex_nb {self.header.codex_nb_version}; this is {__version__})"
        if nearest is None:
            where = f"all {len(self.recorded)} recorded interactions were already played"
            detail = ""
        else:
            where = f"it differs from interaction {nearest.index + 1} (line {nearest.line}), the next unplayed one"
            recorded = key(nearest.interaction) if callable(key) else nearest.interaction.get(key)
            detail = "\n" + short_diff(normalise(recorded), normalise(actual))
        return CassetteError(
            f"cassette {self.path}{version} has no recording of this {what} (record_mode={self.record_mode!r} "
            f"does not go to the network): {where}; {rerecord_hint(self.record_mode)}.{detail}",
            path=self.path,
            line=None if nearest is None else nearest.line,
        )

    # -- recording ---------------------------------------------------------------------------
    def record(self, interaction: dict[str, Any]) -> None:
        """Append ``interaction`` (already scrubbed) to the file, atomically and under the path's locks."""
        self.record_many([interaction])

    def record_many(self, interactions: list[dict[str, Any]]) -> None:
        """Append several interactions in one write (the file is rewritten whole on each write:
        a kind that records many small messages records them per exchange, not one by one)."""
        if not self.recording:
            raise CassetteError(
                f"cassette {self.path} is open with record_mode={self.record_mode!r}, which does not record",
                path=self.path,
            )
        lines = b"".join(fmt.dump_line(interaction) for interaction in interactions)
        with _path_lock(self.path), _file_lock(self.path.parent):
            with self._guard:
                fresh, self._fresh = self._fresh, False
            base = fmt.dump_line(fmt.Header(kind=self.kind).to_json()) if fresh else self._current()
            _write_atomically(self.path, base + lines)

    async def arecord(self, interaction: dict[str, Any]) -> None:
        """``record()`` off the event loop (the file is rewritten whole)."""
        await asyncio.to_thread(self.record_many, [interaction])

    def _current(self) -> bytes:
        """The file as it is now (another writer may have appended), checked, or a new header."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return fmt.dump_line(fmt.Header(kind=self.kind).to_json())
        except OSError as err:
            raise CassetteError(f"cassette {self.path} cannot be read: {err.strerror or err}", path=self.path) from None
        if len(data) > fmt.MAX_FILE_BYTES:
            raise CassetteError(
                f"cassette {self.path} would grow over codex_nb's {fmt.MAX_FILE_BYTES // fmt.MIB} MiB limit: "
                f"split the recordings into several cassettes",
                path=self.path,
            )
        # Never append to a broken file: its header must be ours, and its last line complete (a
        # cut-off line has no newline). Not a full parse: appending stays cheap on a long cassette.
        first, _, rest = data.partition(b"\n")
        fmt.parse(first + b"\n", path=self.path, kind=self.kind)
        if rest and not data.endswith(b"\n"):
            fmt.parse(data, path=self.path, kind=self.kind, validate=self._validate)  # names the line at fault
            data += b"\n"  # a complete last line without its newline (hand-edited)
        return data

    def __repr__(self) -> str:
        return (
            f"Cassette({str(self.path)!r}, kind={self.kind!r}, record_mode={self.record_mode!r}, "
            f"recorded={len(self.recorded)}, unplayed={self.unplayed})"
        )


def check_path(path: Path, record_mode: str, *, example: str) -> bool:
    """Whether the cassette file exists; an error for a directory, or for a missing file that
    ``record_mode`` may not record (``example`` names a file of the kind, for the message)."""
    if path.is_dir():
        raise CassetteError(f"cassette {path} is a directory: name a file such as {example}", path=path)
    exists = path.exists()
    if not exists and record_mode == "none":
        raise CassetteError(
            f"cassette {path} does not exist and record_mode='none' only replays: record it first "
            f"with record_mode='once' (records a missing cassette), or check the path",
            path=path,
        )
    return exists


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` as the whole file, atomically, under the path's locks (a blocking call)."""
    with _path_lock(path), _file_lock(path.parent):
        _write_atomically(path, data)


def _path_lock(path: Path) -> threading.Lock:
    key = os.path.abspath(path)
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


@contextlib.contextmanager
def _file_lock(directory: Path) -> Iterator[None]:
    """``flock`` on the directory (made if missing): serialises writers in other processes too (no
    lock file left behind)."""
    directory.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: the in-process lock only
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _write_atomically(path: Path, data: bytes) -> None:
    try:
        mode = path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644  # a cassette is committed and read by others: not mkstemp's 0600
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise CassetteError(f"cassette {path} cannot be written: {err.strerror or err}", path=path) from None
        raise
