"""``turn_diff``: the whole turn's unified diff, and its files with their added and removed lines.

Codex sends the diff of everything a turn changed so far (its core's ``TurnDiffEvent``, the
app-server's ``turn/diff/updated``), again after every change, so the latest one is the turn's.
The transcript, the plan timeline and their saved fallbacks all show it by file, so the one
reading of a unified diff lives here, below all of them. The diff comes from a peer and may be
megabytes: ``bounded_diff`` keeps its head up to ``MAX_TURN_DIFF_CHARS`` on a line boundary and
the event says how much was cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .events import EventMsg

MAX_TURN_DIFF_CHARS = 100_000
"""Characters of a turn's diff kept (its head); the rest is counted in ``TurnDiff.cut_chars``. The
transcript shows an entry's text whole up to the same size, so the view never cuts a kept diff."""

MAX_DIFF_FILES = 500
"""Files of one diff listed (the first); the rest are counted in ``DiffSummary.more_files``."""


class TurnDiff(EventMsg):
    """``turn_diff``: the unified diff of everything the turn ``turn_id`` changed so far."""

    type: Literal["turn_diff"] = "turn_diff"
    turn_id: str | None = None
    unified_diff: str
    cut_chars: int = 0
    """Characters past ``MAX_TURN_DIFF_CHARS`` not kept (0: the whole diff is here)."""


def bounded_diff(text: str, *, limit: int = MAX_TURN_DIFF_CHARS) -> tuple[str, int]:
    """``text`` cut to at most ``limit`` characters at the last line end before it, and how many
    characters were cut (0 if none)."""
    if len(text) <= limit:
        return text, 0
    end = text.rfind("\n", 0, limit)
    kept = text[: end + 1] if end >= 0 else text[:limit]
    return kept, len(text) - len(kept)


@dataclass(frozen=True, slots=True)
class DiffFile:
    """One file of a unified diff: its path, its added and removed lines, its part of the diff."""

    path: str
    kind: str
    """add | delete | update (a rename is an update whose ``path`` is the new one)."""
    added: int
    removed: int
    diff: str
    """This file's lines of the diff (headers and hunks)."""


@dataclass(frozen=True, slots=True)
class DiffSummary:
    """A unified diff read by file (``diff_files``)."""

    files: tuple[DiffFile, ...]
    more_files: int = 0
    """Files past ``MAX_DIFF_FILES`` not listed."""

    @property
    def added(self) -> int:
        """Lines added, in all the listed files."""
        return sum(f.added for f in self.files)

    @property
    def removed(self) -> int:
        """Lines removed, in all the listed files."""
        return sum(f.removed for f in self.files)

    def headline(self) -> str:
        """``2 files changed, +3 -1`` (or ``no changes``)."""
        count = len(self.files) + self.more_files
        if not count:
            return "no changes"
        return f"{count} file{'' if count == 1 else 's'} changed, +{self.added} -{self.removed}"


def _path(line: str) -> str | None:
    """The path of a ``--- a/x`` / ``+++ b/x`` header line; None for ``/dev/null``."""
    name = line[4:].split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def diff_files(text: str, *, max_files: int = MAX_DIFF_FILES) -> DiffSummary:
    """The files of a unified (git-style) diff, in order, with their counts of added and removed
    lines. A diff with no ``diff --git`` headers (plain ``---``/``+++`` pairs) is read too."""
    chunks: list[list[str]] = []
    lines = text.splitlines()
    git = any(line.startswith("diff --git ") for line in lines)
    for i, line in enumerate(lines):
        header = (
            line.startswith("diff --git ")
            if git
            else line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")
        )
        if header or not chunks:
            chunks.append([])
        chunks[-1].append(line)
    files: list[DiffFile] = []
    for chunk in chunks:
        if not any(line.startswith(("@@", "--- ", "+++ ", "diff --git ", "Binary files")) for line in chunk):
            continue  # text before the first header
        old = new = None
        added = removed = 0
        in_hunk = False
        for line in chunk:
            if line.startswith("@@"):
                in_hunk = True
            elif not in_hunk and line.startswith("--- "):
                old = _path(line) or ""
            elif not in_hunk and line.startswith("+++ "):
                new = _path(line) or ""
            elif in_hunk and line.startswith("+"):
                added += 1
            elif in_hunk and line.startswith("-"):
                removed += 1
        if old is None and new is None and chunk[0].startswith("diff --git "):
            parts = chunk[0].split(" b/", 1)
            new = parts[1] if len(parts) == 2 else chunk[0][len("diff --git ") :]
        kind = "add" if old == "" else "delete" if new == "" else "update"
        path = (new or old or "").strip()
        files.append(DiffFile(path=path, kind=kind, added=added, removed=removed, diff="\n".join(chunk)))
    return DiffSummary(tuple(files[:max_files]), more_files=max(len(files) - max_files, 0))


def summary_lines(summary: DiffSummary, *, cut_chars: int = 0, indent: str = "  ") -> list[str]:
    """The plain-text lines a saved fallback shows: one per file (``path +a -r``), then what is not
    listed or was cut."""
    lines = [f"{indent}{f.kind} {f.path} +{f.added} -{f.removed}" for f in summary.files]
    if summary.more_files:
        lines.append(f"{indent}... {summary.more_files} more file(s) not listed")
    if cut_chars:
        lines.append(
            f"{indent}(the diff was cut: {cut_chars} characters past the first {MAX_TURN_DIFF_CHARS} not kept)"
        )
    return lines


__all__ = [
    "MAX_DIFF_FILES",
    "MAX_TURN_DIFF_CHARS",
    "DiffFile",
    "DiffSummary",
    "TurnDiff",
    "bounded_diff",
    "diff_files",
    "summary_lines",
]
