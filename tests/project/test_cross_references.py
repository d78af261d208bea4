"""Every cross reference in the notebooks and the docs leads somewhere that exists.

A link (``[text](path#anchor)``) must name a file of the checkout and, with an anchor, a heading
of that file (a Markdown page or a notebook's Markdown cells). A reference in words to a section
("see the README, "A first look"") cannot be followed by a reader of a notebook page, and one
pointed at a section that no longer held the rule it cited: it must be a link. The test checks
that a reference resolves; whether the section says what the reference claims is for review.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.paths import NOTEBOOKS, ROOT

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
SEE_SECTION = re.compile(r"\bsee (?:the )?([\w./-]+(?:\.md|\.ipynb)?|README)\s*,\s*[\"“]([^\"”]+)[\"”]", re.I)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
FENCED = re.compile(r"```.*?```", re.S)
DOCS = ROOT / "docs"
SITE_PAGES = {"contributing.md": ROOT / "CONTRIBUTING.md", "changelog.md": ROOT / "CHANGELOG.md"}
"""Pages the site build adds to docs/ from the repository root (docs/_hooks.py); tutorials/ is notebooks/."""


def _markdown(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def _slug(title: str) -> str:
    title = re.sub(r"[`*_]", "", title.strip().lower())
    return re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", title))


def headings(path: Path) -> set[str]:
    text = FENCED.sub("", _markdown(path))
    found = {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}
    # an API page's ids are its mkdocstrings targets (::: codex_nb.hooks) and their members
    return found | {m.group(1) for m in re.finditer(r"^:::\s*([\w.]+)", text, re.M)}


def _resolve(page: Path, file: str) -> Path:
    """The file a link names, as the site resolves it (docs/tutorials/ is notebooks/)."""
    goal = (page.parent / file).resolve()
    if goal.is_relative_to(DOCS) and not goal.exists():
        relative = goal.relative_to(DOCS).as_posix()
        if relative.startswith("tutorials/"):
            return NOTEBOOKS / relative.removeprefix("tutorials/")
        return SITE_PAGES.get(relative, goal)
    return goal


def _has_anchor(path: Path, anchor: str) -> bool:
    known = headings(path)
    return anchor in known or any(anchor.startswith(f"{target}.") for target in known if "." in target)


def pages() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted(NOTEBOOKS.glob("*.ipynb")),
    ]


def broken_references(path: Path) -> list[str]:
    text = CODE.sub("", _markdown(path))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        goal = _resolve(path, file) if file else path
        if not goal.exists():
            broken.append(f"{target}: no such file")
        elif anchor and goal.suffix in (".md", ".ipynb") and not _has_anchor(goal, anchor):
            broken.append(f"{target}: {goal.name} has no heading #{anchor}")
    for name, section in SEE_SECTION.findall(text):
        broken.append(f'"see {name}, "{section}"": make it a link ([…]({name}#{_slug(section)})) a reader can follow')
    return broken


@pytest.mark.parametrize("path", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_reference_resolves(path: Path) -> None:
    assert broken_references(path) == []


def test_the_check_finds_a_section_named_in_words_and_a_missing_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A first look\n", encoding="utf-8")
    page.write_text(
        'Text (see the README, "A first look".) [ok](other.md#a-first-look) [bad](other.md#gone) [no](nope.md)\n',
        encoding="utf-8",
    )
    found = broken_references(page)
    assert len(found) == 3
    assert "other.md#gone: other.md has no heading #gone" in found and "nope.md: no such file" in found
