"""The README and notebooks ship alone: they cite upstream Codex paths or our own docs, never the
team's internal spec and design files, and the README shows the headline notebook usage."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INTERNAL = re.compile(r"\bspec 0\d|DESIGN §|DESIGN\.md|\.\./shared/spec")


def shipped_texts() -> dict[str, str]:
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts[path.name] = "\n".join("".join(c["source"]) for c in cells)  # what a reader sees, not outputs
    return texts


def test_no_internal_references():
    found = {name: INTERNAL.findall(text) for name, text in shipped_texts().items()}
    assert {name: refs for name, refs in found.items() if refs} == {}


def test_readme_shows_the_checklist_with_a_background_turn():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "session.checklist()" in readme and "session.start_turn(" in readme
