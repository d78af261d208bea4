"""Write the Compatibility page's release table from a smoke-suite run (``bash .ci/compat``).

    python -m compat.report JUNIT_XML RELEASES_FILE DOC [--dates NPM_TIME_JSON]

Reads the JUnit XML pytest wrote (one ``test_CHECK[VERSION]`` case per check and release), and
replaces the text between ``<!-- compat-table:start -->`` and ``<!-- compat-table:end -->`` in
``DOC`` with one row per release of ``RELEASES_FILE``: its npm publication date, then pass / FAIL /
skip per check (a release that did not run says so)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

START, END = "<!-- compat-table:start -->", "<!-- compat-table:end -->"
CHECKS = [
    "plan",
    "text",
    "approval",
    "question",
    "stop",
    "steer",
    "resume",
    "fork",
    "goal",
    "history",
    "rewind",
    "thread_verbs",
    "usage",
    "diff",
    "review",
]
"""The columns: the checks of ``test_release_smoke.CHECKS``, in order (a test there compares them)."""
_CASE = re.compile(r"test_(\w+)\[([\d.]+)\]")


def releases(path: Path) -> list[str]:
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


def results(junit: Path) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        match = _CASE.fullmatch(case.get("name", ""))
        if match is None:
            continue
        outcome = "pass"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "FAIL"
        elif case.find("skipped") is not None:
            outcome = "skip"
        out[(match[2], match[1])] = outcome
    return out


def table(versions: list[str], found: dict[tuple[str, str], str], dates: dict[str, str]) -> str:
    head = ["Release", "Published", *CHECKS, "Result"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for version in versions:
        cells = [found.get((version, check), "") for check in CHECKS]
        if not any(cells):
            verdict, cells = "not run", ["–"] * len(CHECKS)
        elif all(c == "pass" for c in cells):
            verdict = "**passed**"
        else:
            verdict = "**failed**" if "FAIL" in cells else "incomplete"
        lines.append("| " + " | ".join([version, dates.get(version, "?")[:10], *cells, verdict]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("junit", type=Path)
    parser.add_argument("releases", type=Path)
    parser.add_argument("doc", type=Path)
    parser.add_argument("--dates", type=Path, default=None, help="`npm view @openai/codex time --json` output")
    parser.add_argument("--run", default="", help="how the run is described under the table")
    args = parser.parse_args(argv)
    dates: dict[str, str] = {}
    if args.dates is not None and args.dates.is_file():
        try:
            dates = json.loads(args.dates.read_text())
        except ValueError:
            dates = {}
    text = args.doc.read_text()
    if START not in text or END not in text:
        sys.exit(f"{args.doc} has no {START} ... {END} markers for the table")
    body = table(releases(args.releases), results(args.junit), dates)
    if args.run:
        body += f"\n\n{args.run}"
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    args.doc.write_text(f"{before}{START}\n{body}\n{END}{after}")
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
