"""What ships explains itself: the README, the notebooks and every tracked source, test and CI file say
the reason or link an upstream Codex file, never the team's internal spec, design or style notes or issue
numbers (a reader has none of them). The README also shows the headline notebook usage."""

from __future__ import annotations

import ast
import json
import re
import subprocess

from helpers.paths import PACKAGE, ROOT

# A citation of a document that does not ship: a spec chapter number, any section sign, the spec's names
# for Codex versions, the design or style notes, an issue number, or the shared folder they live in.
# Upstream Codex paths such as ``codex-rs/core/src/tools/spec.rs`` do not match (no number follows the
# word). Written so that this file does not match itself.
INTERNAL = re.compile(
    r"\b[Ss]pec \d{1,2}\b|\u00a7|\bDESIGN\b|\bSTYLE(?:\.md| practice| rule)|\b[Ii]ssues? #?\d+|\bV-(?:Aug|Jul|New)\b"
    r"|\.\./shared\b|/work/share[d]/"
)
SCANNED = ("codex_nb/", "js/", "tests/", ".ci/", "docs/", "mkdocs.yml", "CHANGELOG.md", "CONTRIBUTING.md")
# Legitimate text that looks like a citation, allowed file by file and snippet by snippet.
ALLOWED: dict[str, tuple[str, ...]] = {
    "tests/unit/render/test_render_text.py": ('"\u00a7"',),  # a wide-character case of the wrap emulation
}
ERROR_LINE = re.compile(r"\w*(Error|Exception): ")  # how IPython prints a magic's UsageError (no traceback)


def shipped_texts() -> dict[str, str]:
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts[path.name] = "\n".join("".join(c["source"]) for c in cells)  # what a reader sees, not outputs
    return texts


def tracked_texts() -> dict[str, str]:
    """Every text file git tracks under the scanned folders (binary and non-UTF-8 files skipped)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *SCANNED], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    texts = {}
    for name in filter(None, listed.split("\0")):
        if "node_modules/" in name or not (ROOT / name).is_file():
            continue
        data = (ROOT / name).read_bytes()
        if b"\0" in data:
            continue
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def citations(name: str, text: str) -> list[str]:
    for snippet in ALLOWED.get(name, ()):
        text = text.replace(snippet, "")
    return [
        f"{name}:{number}: {line.strip()[:100]}"
        for number, line in enumerate(text.splitlines(), 1)
        if INTERNAL.search(line)
    ]


def test_no_internal_references():
    found = {name: INTERNAL.findall(text) for name, text in shipped_texts().items()}
    assert {name: refs for name, refs in found.items() if refs} == {}


def test_tracked_files_cite_no_internal_documents():
    texts = tracked_texts()
    assert "codex_nb/__init__.py" in texts and "js/plan_view.js" in texts  # the listing found the tree
    assert "docs/concepts.md" in texts and "CHANGELOG.md" in texts  # and the site's pages
    stale = [
        (name, snippet) for name, snippets in ALLOWED.items() for snippet in snippets if snippet not in texts[name]
    ]
    assert stale == []  # an allowance outlives its text: drop it
    found = [hit for name, text in sorted(texts.items()) for hit in citations(name, text)]
    assert found == [], f"{len(found)} citations of documents that do not ship:\n" + "\n".join(found)


def test_every_module_says_why_it_exists():
    """Every module has a docstring; every package's names each of its modules and says its layer."""
    silent = [str(p.relative_to(ROOT)) for p in sorted(PACKAGE.rglob("*.py")) if not ast.get_docstring(_tree(p))]
    assert silent == []
    unlisted = {}
    for init in sorted(PACKAGE.rglob("__init__.py")):
        if init.parent == PACKAGE:
            continue  # the public API's docstring maps the layers instead
        doc = ast.get_docstring(_tree(init)) or ""
        here = [p.stem for p in init.parent.glob("*.py") if p.name != "__init__.py"]
        here += [p.name + "/" for p in init.parent.iterdir() if (p / "__init__.py").is_file()]
        missing = sorted(name for name in here if f"``{name}``" not in doc)
        if missing or "Layer:" not in doc:
            unlisted[str(init.relative_to(ROOT))] = missing or ["Layer:"]
    assert unlisted == {}


def _tree(path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_readme_shows_the_checklist_with_a_background_turn():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "cx.PlanChecklist(session)" in readme and "session.start_turn(" in readme


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
