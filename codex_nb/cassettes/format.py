"""The cassette file format: a header line, then one JSON interaction per line (JSONL).

JSONL rather than vcrpy's YAML: one interaction per line diffs well in review, appends
without rewriting structure, and a line number names the interaction at fault. Every
line this module writes ends with ``\\n``; a file whose last line has none and does not
parse was cut off mid-write (an older codex_nb, or a copy that stopped). A line whose JSON
stops before its object closes was cut too, even when a newline follows (a tool that ends
every file with one, or more written after the cut): it is named as cut, not as hand-edited.

Version rules: ``FORMAT`` is the format this codex_nb writes; it reads every format in
``READABLE``. A newer format says to upgrade codex_nb; an older unreadable one says to
re-record. The codex_nb version in the header is informational (a different version
reads the file as long as its format is readable).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import CassetteError
from pydantic_core import from_json

from ..protocol.serde_json import EOF_LIST, EOF_OBJECT, EOF_STRING, EOF_VALUE
from ..protocol.wire import loads

FORMAT = 1
READABLE = frozenset({1})
HEADER_KEY = "codex_nb_cassette"
MIB = 1024 * 1024
MAX_FILE_BYTES = 512 * MIB  # a cassette is read whole: a hostile or runaway file must not exhaust memory

Validate = Callable[[dict[str, Any]], str | None]


@dataclass(frozen=True, kw_only=True)
class Header:
    """Line 1 of a cassette."""

    kind: str
    format: int = FORMAT
    codex_nb_version: str = __version__

    def to_json(self) -> dict[str, Any]:
        return {HEADER_KEY: self.format, "kind": self.kind, "codex_nb_version": self.codex_nb_version}


def dump_line(obj: dict[str, Any]) -> bytes:
    """One line: compact JSON, non-ASCII kept readable, ending in a newline."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def dump(header: Header, interactions: list[dict[str, Any]]) -> bytes:
    return b"".join([dump_line(header.to_json()), *(dump_line(i) for i in interactions)])


def read(path: Path, *, kind: str, validate: Validate | None = None) -> tuple[Header, list[dict[str, Any]]]:
    """The header and interactions of the cassette at ``path`` (which exists), or a ``CassetteError``."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise CassetteError(
                f"cassette {path} is {size // MIB} MiB, over codex_nb's {MAX_FILE_BYTES // MIB} MiB limit for "
                f"one cassette: split the notebook's recordings into several cassettes",
                path=path,
            )
        data = path.read_bytes()
    except OSError as err:
        raise CassetteError(f"cassette {path} cannot be read: {err.strerror or err}", path=path) from None
    return parse(data, path=path, kind=kind, validate=validate)


def parse(
    data: bytes, *, path: Path, kind: str, validate: Validate | None = None
) -> tuple[Header, list[dict[str, Any]]]:
    lines = data.split(b"\n")
    complete = data.endswith(b"\n")
    if complete:
        lines.pop()
    if not data.strip():
        raise CassetteError(
            f"cassette {path} is empty (no header line): delete it to record it again, or restore it from git",
            path=path,
            line=1,
        )
    header = _header(lines[0], path=path, kind=kind, last=len(lines) == 1 and not complete)
    interactions: list[dict[str, Any]] = []
    last = len(lines)
    for number, raw in enumerate(lines[1:], start=2):
        try:
            obj = loads(raw)
        except ValueError:
            if not raw.strip():
                continue  # a blank line (hand-edited) holds nothing
            raise _bad_line(
                path, number, truncated=number == last and not complete, cut=_cut_short(raw), last=number == last
            ) from None
        if type(obj) is not dict:
            raise CassetteError(
                f"cassette {path}, line {number}: an interaction must be a JSON object, got "
                f"{type(obj).__name__} (hand-edited?); restore the line from git or re-record with record_mode='all'",
                path=path,
                line=number,
            )
        if validate is not None and (problem := validate(obj)) is not None:
            raise CassetteError(
                f"cassette {path}, line {number}: {problem} (hand-edited?); restore the line from git or "
                f"re-record with record_mode='all'",
                path=path,
                line=number,
            )
        interactions.append(obj)
    return header, interactions


def _bad_line(path: Path, number: int, *, truncated: bool, cut: bool = False, last: bool = True) -> CassetteError:
    if truncated or cut:
        if truncated:
            how = "the file ends mid-line"
        elif last:
            how = "its JSON stops before the object closes, the rest of the line is missing"
        else:
            how = "its JSON stops before the object closes and more lines follow it"
        return CassetteError(
            f"cassette {path} is truncated at line {number} ({how}: a write or copy was cut "
            f"off); restore it from git or re-record it with record_mode='all'",
            path=path,
            line=number,
        )
    return CassetteError(
        f"cassette {path}, line {number} is not JSON (hand-edited?); restore the line from git or re-record "
        f"with record_mode='all'",
        path=path,
        line=number,
    )


def _cut_short(raw: bytes) -> bool:
    """True when ``raw`` is the start of a JSON object whose end is missing (the line was cut)."""
    body = raw.rstrip()
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.reason != "unexpected end of data":
            return False
        body = body[: err.start]  # the cut fell inside a character
    if not body.lstrip().startswith(b"{"):
        return False
    try:
        from_json(body)
    except ValueError as err:
        return str(err).startswith((EOF_VALUE, EOF_LIST, EOF_OBJECT, EOF_STRING))
    return False


def _header(raw: bytes, *, path: Path, kind: str, last: bool) -> Header:
    try:
        obj = json.loads(raw)
    except ValueError:
        obj = None
    if not isinstance(obj, dict) or HEADER_KEY not in obj:
        if last and raw.lstrip().startswith(b"{"):
            raise _bad_line(path, 1, truncated=True)
        if _cut_short(raw):
            raise _bad_line(path, 1, truncated=False, cut=True, last=last)
        raise CassetteError(
            f"cassette {path} is not a codex_nb cassette: line 1 is not its header "
            f'{{"{HEADER_KEY}": {FORMAT}, "kind": ...}}{_foreign_hint(raw)}. Point cassette= at a file '
            f"codex_nb recorded, or at a new path to record one",
            path=path,
            line=1,
        )
    version, found_kind, written_by = obj.get(HEADER_KEY), obj.get("kind"), obj.get("codex_nb_version")
    by = f"codex_nb {written_by}" if isinstance(written_by, str) else "an unknown codex_nb"
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CassetteError(
            f"cassette {path}, line 1: the header's format {version!r} is not a version number (hand-edited?)",
            path=path,
            line=1,
        )
    if version > FORMAT:
        raise CassetteError(
            f"cassette {path} was recorded by {by} in cassette format {version}; this codex_nb "
            f"({__version__}) reads formats up to {FORMAT}, so it cannot read it: upgrade codex_nb, or "
            f"re-record the cassette with record_mode='all'",
            path=path,
            line=1,
        )
    if version not in READABLE:
        raise CassetteError(
            f"cassette {path} was recorded by {by} in cassette format {version}, which this codex_nb "
            f"({__version__}) can no longer read (it reads {', '.join(map(str, sorted(READABLE)))}): "
            f"re-record it with record_mode='all'",
            path=path,
            line=1,
        )
    if found_kind != kind:
        raise CassetteError(
            f"cassette {path} holds a {found_kind!r} recording, not a {kind!r} one: give each source its "
            f"own cassette file",
            path=path,
            line=1,
        )
    return Header(kind=kind, format=version, codex_nb_version=written_by if isinstance(written_by, str) else "")


def _foreign_hint(raw: bytes) -> str:
    text = raw.lstrip()[:40]
    if text.startswith((b"interactions:", b"version:", b"---")):
        return " (it looks like a vcrpy YAML cassette; codex_nb writes its own JSONL cassettes)"
    return ""
