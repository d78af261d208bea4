"""What an ACP permission request is about: the paths, command and diff behind its title.

An agent's ``session/request_permission`` names its tool call with a title ("Edit file") that does
not say which file, or that the file lies outside the session's folder. ``permission_details``
reads the tool call's ``locations``, its ``diff`` content and its ``raw_input`` (the command or path
the agent will use), marks each path outside the session's ``cwd``, and bounds everything, so the
person sees what they approve and a hostile agent cannot flood the prompt. ``PermissionDetails``
has two forms: ``lines()``, the text the question carries (what a saved notebook and a headless
answer policy read), and ``to_json()``, what the prompts widget draws as a card (the paths with
the outside ones marked, the command, each file's diff coloured as a Codex approval's).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAX_PATHS = 20
"""Paths listed for one request (the rest are counted)."""
MAX_PATH = 500
"""Characters of one path or command shown."""
MAX_DIFF = 4000
"""Characters of the diffs shown, all files together (a diff is read before it is approved; a longer
one is cut, and says so; files past it, or past ``MAX_PATHS`` files, are counted)."""
MAX_CHECKED = 1000
"""Paths checked for lying outside the session folder, listed or not (past it they are counted as
not checked)."""
MAX_DIFF_INPUT = 200_000
"""Characters of a file's old or new text compared (beyond this only the sizes are told)."""
OUTSIDE = "outside the session folder"
RAW_PATH_KEYS = ("path", "file_path", "filePath", "abs_path", "target", "destination", "cwd", "workdir")
RAW_COMMAND_KEYS = ("command", "cmd")


@dataclass(frozen=True, kw_only=True)
class PermissionPath:
    """One path the tool call touches, and whether it lies outside the session's folder."""

    path: str
    outside: bool
    line: int | None = None


@dataclass(frozen=True, kw_only=True)
class PermissionDiff:
    """One file's change as a unified diff (or a sentence saying it was too long to compare)."""

    path: str
    kind: str
    """``add`` (the agent sent no old text: a new file) or ``update``, as Codex's file changes say."""
    diff: str


@dataclass(frozen=True, kw_only=True)
class PermissionDetails:
    """What a permission request is about, bounded for a person to read."""

    paths: tuple[PermissionPath, ...] = ()
    more_paths: int = 0
    """Paths left out past ``MAX_PATHS``."""
    more_outside: int = 0
    """Of the paths left out, those that lie outside the session's folder."""
    unchecked: int = 0
    """Of the paths left out, those past ``MAX_CHECKED``: not checked (nor counted in ``more_outside``)."""
    command: str | None = None
    diffs: tuple[PermissionDiff, ...] = ()
    more_diffs: int = 0
    """Files whose diff is left out past ``MAX_DIFF``."""

    @property
    def diff(self) -> str | None:
        """The diffs as one text, None without any."""
        return "\n".join(d.diff for d in self.diffs) if self.diffs else None

    @property
    def outside(self) -> tuple[str, ...]:
        """The paths that lie outside the session's folder."""
        return tuple(p.path for p in self.paths if p.outside)

    def lines(self) -> list[str]:
        """The details as lines of text (what the question shows under its title)."""
        out: list[str] = []
        for p in self.paths:
            where = f"{p.path}:{p.line}" if p.line is not None else p.path
            out.append(f"Path: {where}" + (f"  [{OUTSIDE.upper()}]" if p.outside else ""))
        if self.more_paths:
            out.append(f"... and {self.more_paths} more paths{self._more_note()}")
        if self.command is not None:
            out.append(f"Command: {self.command}")
        if self.diff:
            out.append("Diff:")
            out.append(self.diff)
        if self.more_diffs:
            out.append(f"... and {self.more_diffs} more files' diffs")
        if self.outside or self.more_outside:
            out.insert(0, f"Warning: {len(self.outside) + self.more_outside} path(s) lie {OUTSIDE}.")
        return out

    def _more_note(self) -> str:
        notes = [f"{self.more_outside} {OUTSIDE}"] if self.more_outside else []
        notes += [f"{self.unchecked} not checked"] if self.unchecked else []
        return f" ({', '.join(notes)})" if notes else ""

    def to_json(self) -> dict[str, Any]:
        """The details as JSON for the prompts widget's card (already bounded, as ``lines()`` is)."""
        return {
            "paths": [{"path": p.path, "outside": p.outside, "line": p.line} for p in self.paths],
            "more_paths": self.more_paths,
            "more_outside": self.more_outside,
            "unchecked": self.unchecked,
            "command": self.command,
            "diffs": [{"path": d.path, "kind": d.kind, "diff": d.diff} for d in self.diffs],
            "more_diffs": self.more_diffs,
        }


def _get(value: Any, name: str, wire: str | None = None) -> Any:
    """A field of an ACP schema object, or of its JSON (``wire``: its camelCase name there), as a
    session keeps the calls it was sent (``ToolCallState``)."""
    if isinstance(value, dict):
        return value.get(wire or name)
    return getattr(value, name, None)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"


def _outside(path: str, cwd: str) -> bool:
    """True when ``path`` (relative paths are taken from ``cwd``) resolves outside ``cwd``."""
    try:
        root = os.path.realpath(cwd)
        full = os.path.realpath(os.path.join(root, os.path.expanduser(path)))
        return os.path.commonpath([root, full]) != root
    except ValueError:  # a NUL byte, another drive (Windows): not provably inside
        return True


def _raw_paths(raw: Any) -> Iterable[str]:
    if not isinstance(raw, dict):
        return ()
    found = [raw[k] for k in RAW_PATH_KEYS if isinstance(raw.get(k), str) and raw[k]]
    for key in ("paths", "files"):
        value = raw.get(key)
        if isinstance(value, list):
            found.extend(v for v in value[: MAX_PATHS + 1] if isinstance(v, str) and v)
    return found


def _command(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return None
    for key in RAW_COMMAND_KEYS:
        value = raw.get(key)
        if isinstance(value, str) and value:
            return _cut(value, MAX_PATH)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value[:100]):
            return _cut(" ".join(value[:100]), MAX_PATH)
    return None


def _diffs(content: Iterable[Any]) -> tuple[tuple[PermissionDiff, ...], int]:
    """Each diff block's unified diff, together at most ``MAX_DIFF`` characters, of at most
    ``MAX_PATHS`` blocks; and how many blocks were left out past that."""
    diffs: list[PermissionDiff] = []
    left, more, compared = MAX_DIFF, 0, 0
    for block in content:
        if _get(block, "type") != "diff":
            continue
        raw_old, new = _get(block, "old_text", "oldText"), _get(block, "new_text", "newText") or ""
        old = raw_old or ""
        if not isinstance(old, str) or not isinstance(new, str):
            continue
        if left <= 0 or compared >= MAX_PATHS:
            more += 1
            continue
        compared += 1
        path = _cut(str(_get(block, "path") or "?"), MAX_PATH)
        if len(old) > MAX_DIFF_INPUT or len(new) > MAX_DIFF_INPUT:
            text = f"{path}: {len(old)} characters -> {len(new)} characters (too long to compare)"
        else:
            after = path if path.startswith("/") else f"b/{path}"
            before = "/dev/null" if raw_old is None else path if path.startswith("/") else f"a/{path}"
            lines = difflib.unified_diff(
                old.splitlines(), new.splitlines(), fromfile=before, tofile=after, lineterm="", n=2
            )
            text = "\n".join(lines)
        if not text:
            continue  # the same text before and after: nothing to read
        diffs.append(PermissionDiff(path=path, kind="add" if raw_old is None else "update", diff=_cut(text, left)))
        left -= len(text)
    return tuple(diffs), more


def permission_details(tool_call: Any, cwd: str, known: Any = None) -> PermissionDetails:
    """The paths (each marked outside ``cwd`` or not), command and diff of an ACP ``tool_call``.

    A request's ``toolCall`` is an update of the call: a field it leaves out keeps what the agent
    sent before, read from ``known`` (the session's ``ToolCallState`` of the call). codex-acp sends
    an edit's diff in its ``tool_call`` and asks with its path alone."""

    def field(name: str) -> Any:
        value = getattr(tool_call, name, None)
        return value if value is not None else getattr(known, name, None)

    blocks = field("content")
    content = blocks if isinstance(blocks, list) else []  # every block: one past a cap is counted, never lost
    seen: dict[str, PermissionPath] = {}
    candidates: list[tuple[Any, int | None]] = []
    locations = field("locations")
    for location in locations if isinstance(locations, list) else []:
        line = _get(location, "line")
        candidates.append((_get(location, "path"), line if isinstance(line, int) else None))
    candidates += [(_get(block, "path"), None) for block in content if _get(block, "type") == "diff"]
    raw_input = field("raw_input")
    candidates += [(p, None) for p in _raw_paths(raw_input)]
    more, more_outside, unchecked = 0, 0, 0
    left_out: set[str] = set()
    for path, line in candidates:
        if not isinstance(path, str) or not path or path in seen or path in left_out:
            continue
        if len(seen) >= MAX_PATHS:
            # a path past the list is still checked: twenty harmless paths must not hide the 21st
            left_out.add(path)
            more += 1
            if len(seen) + more > MAX_CHECKED:
                unchecked += 1
            elif _outside(path, cwd):
                more_outside += 1
            continue
        seen[path] = PermissionPath(path=_cut(path, MAX_PATH), outside=_outside(path, cwd), line=line)
    diffs, more_diffs = _diffs(content)
    return PermissionDetails(
        paths=tuple(seen.values()),
        more_paths=more,
        more_outside=more_outside,
        unchecked=unchecked,
        command=_command(raw_input),
        diffs=diffs,
        more_diffs=more_diffs,
    )
