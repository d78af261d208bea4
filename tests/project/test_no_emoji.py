"""No emoji in what the widgets draw: an emoji (a speech balloon, a paperclip) is an empty box on
a machine without an emoji font, so the widgets ship their icons as SVG (js/icons.js) and the
Python text fallbacks use plain text. Checks js/, codex_nb/widgets (its built bundle included),
codex_nb/extension (the panel and the Attachments block) and the notebooks' stored outputs."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.emoji import emoji_in

ROOT = Path(__file__).resolve().parents[2]


def _where(paths: list[Path]) -> dict[str, list[str]]:
    found = {}
    for path in paths:
        hits = emoji_in(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    return found


def test_emoji_in_finds_the_icons_that_were_boxes() -> None:
    assert emoji_in("💬 on step 📎 cell") == ["💬", "📎"]
    assert emoji_in("□ pending ■ running ✔ done • x") == []


def test_no_emoji_in_the_widgets_sources_or_bundle() -> None:
    js = [p for p in (ROOT / "js").rglob("*") if p.suffix in {".js", ".mjs", ".css"} and "node_modules" not in p.parts]
    widgets = [p for p in (ROOT / "codex_nb" / "widgets").rglob("*") if p.suffix in {".py", ".js", ".css"}]
    extension = list((ROOT / "codex_nb" / "extension").rglob("*.py"))
    found = _where(js + widgets + extension)
    assert not found, f"emoji draw as empty boxes without an emoji font; use js/icons.js or plain text: {found}"


def test_no_emoji_in_the_notebooks_stored_outputs() -> None:
    found = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        hits = emoji_in(json.dumps([c.get("outputs", []) for c in cells], ensure_ascii=False))
        if hits:
            found[path.name] = hits
    assert not found, f"notebook outputs show emoji (empty boxes without an emoji font): {found}"
