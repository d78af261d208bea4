"""The one line format every benchmark reports a figure in, and the summary table ``.ci/bench`` prints.

A bench prints its own readable report, then one machine-readable line per figure:

    BENCH figure|value|baseline|goal|met

``value`` is what was measured, ``baseline`` what it is compared with in the same run (a bare
floor, a peer, the small case; ``-`` when the figure is absolute), ``goal`` the target and ``met``
``yes``, ``no`` or ``-`` (no goal). ``.ci/bench`` keeps every bench's output and pipes it through
``python tests/benchmarks/_report.py``, which prints the lines as one table at the end of the run.

A bench run as a script finds this module next to it (``sys.path[0]`` is tests/benchmarks):
``from _report import report_figure``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

PREFIX = "BENCH "
COLUMNS = ("figure", "value", "baseline", "goal", "met")


def _field(value: object) -> str:
    text = " ".join(str(value).split())  # one line
    return text.replace("|", "/") or "-"


def verdict(met: bool | str | None) -> str:
    if met is None:
        return "-"
    if isinstance(met, bool):
        return "yes" if met else "no"
    return met


def bench_line(figure: str, value: object, baseline: object, goal: object, met: bool | str | None) -> str:
    """The line for one figure (``met``: a bool, None for no goal, or a short text such as ``7 of 9 runs``)."""
    return PREFIX + "|".join(_field(part) for part in (figure, value, baseline, goal, verdict(met)))


def report_figure(figure: str, value: object, baseline: object, goal: object, met: bool | str | None) -> None:
    """Print the line for one figure (flushed, so it is in order with the bench's other output)."""
    print(bench_line(figure, value, baseline, goal, met), flush=True)


def parse(lines: Iterable[str]) -> list[tuple[str, ...]]:
    """The figures among ``lines``, in order, each as ``COLUMNS``."""
    rows = []
    for line in lines:
        if line.startswith(PREFIX):
            parts = line[len(PREFIX) :].rstrip("\n").split("|")
            rows.append(tuple((parts + ["-"] * len(COLUMNS))[: len(COLUMNS)]))
    return rows


def table(rows: list[tuple[str, ...]]) -> str:
    """``rows`` as an aligned text table with a header (also valid Markdown)."""
    header = tuple(COLUMNS)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(COLUMNS))]

    def line(row: tuple[str, ...]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + " |"

    rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([line(header), rule, *(line(row) for row in rows)])


def main() -> None:
    rows = parse(sys.stdin)
    print(f"\n== summary: {len(rows)} figures, each against its baseline from the same run")
    if rows:
        print(table(rows))
    missed = [row[0] for row in rows if row[4] == "no"]
    if missed:
        print(f"goals not met: {'; '.join(missed)}")


if __name__ == "__main__":
    main()
