"""``ChangeTracker``: what a turn's own tools changed, as one unified diff of the whole turn.

Codex diffs a turn against each file as it was when the turn first touched it, and sends the
whole diff again after every change (``turn_diff``), so a person sees what the turn did, not
each step. codex_nb's runtime changes the open notebook through its tools (``insert_cell``,
``edit_cell``): each records the cell's source before and after here, and the tool sends the
turn's diff so far. A cell is named ``cell <id>`` in the diff (a notebook has no file per cell).
"""

from __future__ import annotations

import threading

from ..protocol.turn_diff import TurnDiff, bounded_diff


class ChangeTracker:
    """One turn's changed paths: each one's content before the turn first changed it, and now."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: dict[str, tuple[str | None, str | None]] = {}

    def record(self, path: str, *, before: str | None, after: str | None) -> None:
        """``path`` changed from ``before`` to ``after`` (None: it did not exist / no longer does);
        the first ``before`` of a path in the turn stays its baseline."""
        with self._lock:
            base = self._paths[path][0] if path in self._paths else before
            self._paths[path] = (base, after)

    def unified_diff(self) -> str:
        """The turn's changes as a git-style unified diff, paths in the order first changed."""
        import difflib  # here: a session that never changes a cell does not load it (import cost)

        with self._lock:
            paths = list(self._paths.items())
        parts: list[str] = []
        for path, (base, now) in paths:
            if base == now:
                continue  # changed and changed back: nothing to show
            parts.append(f"diff --git a/{path} b/{path}\n")
            if base is None:
                parts.append("new file mode 100644\n")
            elif now is None:
                parts.append("deleted file mode 100644\n")
            lines = difflib.unified_diff(
                (base or "").splitlines(keepends=True),
                (now or "").splitlines(keepends=True),
                fromfile="/dev/null" if base is None else f"a/{path}",
                tofile="/dev/null" if now is None else f"b/{path}",
            )
            for line in lines:
                parts.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(parts)

    def event(self, turn_id: str) -> TurnDiff:
        """The ``turn_diff`` of the turn so far, bounded as a peer's is."""
        kept, cut = bounded_diff(self.unified_diff())
        return TurnDiff(turn_id=turn_id, unified_diff=kept, cut_chars=cut)
