"""The README and notebooks ship alone: they cite upstream Codex paths or our own docs, never the
team's internal spec and design files, and the README shows the headline notebook usage."""

from __future__ import annotations

import json
import re
from helpers.paths import ROOT

INTERNAL = re.compile(r"\bspec 0\d|DESIGN §|DESIGN\.md|\.\./shared/spec")
ERROR_LINE = re.compile(r"\w*(Error|Exception): ")  # how IPython prints a magic's UsageError (no traceback)


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


def _committed_notebooks() -> dict[str, dict]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))}


def test_committed_notebooks_save_no_widget_state():
    """Saved widget state has no kernel behind it: JupyterLab would restore dead widgets from it
    (a "Codex plan" side panel that never updates, and follows the user into other notebooks)."""
    saved = {
        name: sorted(nb["metadata"]["widgets"])
        for name, nb in _committed_notebooks().items()
        if "widgets" in nb["metadata"]
    }
    assert saved == {}
    sidecars = {
        name
        for name, nb in _committed_notebooks().items()
        if "jupyterlab-sidecar" in json.dumps([c.get("outputs", []) for c in nb["cells"]])
    }
    assert sidecars == set()


def test_no_cell_stops_run_all():
    """A person's Run All stops at the first failing cell, whatever nbval's tags say: a deliberate
    error is caught (or captured) and shown, so every later cell still runs."""
    stopping = {}
    for name, nb in _committed_notebooks().items():
        for index, cell in enumerate(nb["cells"]):
            tags = set(cell.get("metadata", {}).get("tags", []))
            errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
            shown = "".join(cell["source"]).startswith("%%capture") or "except" in "".join(cell["source"])
            errors += [
                {"ename": o["text"][0].split(":")[0]}
                for o in cell.get("outputs", [])
                if o.get("name") == "stderr" and ERROR_LINE.match("".join(o["text"])) and not shown
            ]
            if errors or tags & {"raises-exception", "nbval-raises-exception"}:
                stopping[f"{name}[{index}]"] = [o.get("ename") for o in errors] or sorted(tags)
    assert stopping == {}


def test_every_notebook_with_live_widgets_says_what_they_show():
    """The browser test compares each live widget after Run All with what the notebook says beside
    it; a notebook that displays widgets must store that expectation (metadata.codex_nb.expect)."""
    from browser.notebook_expectations import CELL_WIDGETS, CHECK_KEYS, PAGE_WIDGETS, expectations, shows_widgets

    notebooks = _committed_notebooks()
    missing = [name for name, nb in notebooks.items() if shows_widgets(nb) and not expectations(nb)]
    assert missing == []
    bad = [
        (name, index, check)
        for name, nb in notebooks.items()
        for index, check in expectations(nb)
        if check.get("widget") not in {**CELL_WIDGETS, **PAGE_WIDGETS}
        or set(check) - CHECK_KEYS
        or not ("count" in check or check.get("text_contains") or check.get("text_absent"))
    ]
    assert bad == []
