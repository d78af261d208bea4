"""A turn's diff as static HTML: the "what changed" block of a saved notebook, read without a kernel.

A saved transcript's ``text/html`` is what nbconvert, GitHub and the docs show, where no widget view
runs and no stylesheet of ours loads: so each file is a ``<details>`` (collapsible everywhere) and
its lines are coloured with inline styles, as the live view colours an approval's diff. A diff can
be long, so at most ``MAX_STATIC_LINES`` of its lines are written; the summary lines say the rest.
"""

from __future__ import annotations

import html

from ..protocol.turn_diff import DiffSummary

MAX_STATIC_LINES = 400
"""Diff lines written into the static HTML in all (the first); the file list is always whole."""

_STYLES = {
    "add": "background:rgba(46,160,67,.15)",
    "del": "background:rgba(248,81,73,.15)",
    "hunk": "color:#6f42c1",
    "meta": "opacity:.7;font-weight:600",
    "ctx": "",
}


def line_class(line: str) -> str:
    """add | del | hunk | meta | ctx, as the view's ``diffLines`` classifies a line."""
    if line.startswith("@@"):
        return "hunk"
    if line.startswith(("+++", "---", "diff --git", "index ", "new file", "deleted file")):
        return "meta"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return "ctx"


def diff_html(summary: DiffSummary, *, note: str = "") -> str:
    """The files of ``summary``, each a collapsed ``<details>`` with its coloured lines."""
    esc = html.escape
    parts = [f'<details class="cx-turn-diff-static"><summary><b>What changed</b>: {esc(summary.headline())}</summary>']
    budget = MAX_STATIC_LINES
    for f in summary.files:
        parts.append(
            f'<details style="margin-left:1em"><summary><code>{esc(f.path)}</code> ({f.kind}) '
            f'<span style="color:#1b5e20">+{f.added}</span> <span style="color:#b71c1c">-{f.removed}</span></summary>'
            '<pre style="margin:0">'
        )
        lines = f.diff.split("\n")
        for line in lines[:budget]:
            style = _STYLES[line_class(line)]
            parts.append(f'<span style="{style}">{esc(line)}</span>\n' if style else f"{esc(line)}\n")
        if len(lines) > budget:
            parts.append(f"<em>... {len(lines) - budget} more line(s) not shown here</em>\n")
        budget = max(budget - len(lines), 0)
        parts.append("</pre></details>")
    if summary.more_files:
        parts.append(f"<p><em>{summary.more_files} more file(s) not listed</em></p>")
    if note:
        parts.append(f"<p><em>{esc(note)}</em></p>")
    parts.append("</details>")
    return "".join(parts)
