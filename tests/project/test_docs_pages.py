"""The documentation site's pages are executable and complete: every ```python block of every page
runs, the nav lists every page and notebook, every file a page names ships, and every widget output
of a committed notebook carries the HTML of its final state (what the site's tutorials show)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.binary_requirements import snippet_case
from helpers.paths import NOTEBOOKS, README, ROOT

DOCS = ROOT / "docs"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# The pages the hooks add from the repository root (docs/_hooks.py).
ROOT_PAGES = {"changelog.md": ROOT / "CHANGELOG.md", "contributing.md": ROOT / "CONTRIBUTING.md"}


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def python_blocks() -> list[Any]:
    cases = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for index, block in enumerate(re.findall(r"```python\n(.*?)```", text, flags=re.S)):
            cases.append(snippet_case(block, id=f"{page.relative_to(DOCS)}-block{index}"))
    return cases


def test_the_pages_have_python_blocks() -> None:
    assert len(python_blocks()) >= 10


@pytest.mark.parametrize("block", python_blocks())
def test_page_python_blocks_run(block: str, tmp_path: Path) -> None:
    # In a folder of its own: a block may write files (a cassette, a config), never into the checkout.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run(
        [sys.executable, "-c", block], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr


def _nav_paths(entries: Any) -> list[str]:
    found = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found += _nav_paths(value) if isinstance(value, list) else [value]
    return found


def test_the_nav_lists_every_page_and_notebook() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!!python", "#"))
    listed = _nav_paths(config["nav"])
    on_disk = [str(p.relative_to(DOCS)) for p in pages()]
    on_disk += [f"tutorials/{p.name}" for p in sorted(NOTEBOOKS.glob("*.ipynb"))] + sorted(ROOT_PAGES)
    assert sorted(set(on_disk) - set(listed)) == []  # a page nobody can reach: add one line to mkdocs.yml's nav
    assert sorted(set(listed) - set(on_disk)) == []
    assert len(listed) == len(set(listed))


# A path into the repository named in backticks: `tests/unit/x.py`, `tests/x.py::test_name`, `.ci/setup`.
REPO_PATH = re.compile(r"`((?:codex_nb|tests|js|notebooks|docs|\.ci)/[^`\s]*)`")


def named_paths(text: str) -> list[str]:
    named = [match.split("::")[0].rstrip(".,;:") for match in REPO_PATH.findall(text)]
    return [path for path in named if "<" not in path]  # `tests/unit/<package>/` is a pattern, not a path


def test_the_docs_name_only_files_that_ship() -> None:
    """Every file the README, CHANGELOG, CONTRIBUTING or a page names exists in the checkout."""
    texts = [README, *ROOT_PAGES.values(), *pages()]
    missing = []
    for path in texts:
        for named in named_paths(path.read_text(encoding="utf-8")):
            target = named.rstrip("/")
            if not (list(ROOT.glob(target)) if "*" in target else (ROOT / target).exists()):
                missing.append(f"{path.relative_to(ROOT)}: {named}")
    assert missing == []


def test_the_readme_links_only_to_files_that_ship() -> None:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [t for t in targets if "://" not in t]
    assert "docs/concepts.md" in local
    assert [t for t in local if not (ROOT / t).exists()] == []


def test_the_path_check_finds_what_it_names() -> None:
    text = "see `tests/project/test_docs_pages.py::test_x`, `codex_nb/nothing.py`, `tests/<pkg>/` and `cx.Session`"
    assert named_paths(text) == ["tests/project/test_docs_pages.py", "codex_nb/nothing.py"]


def _hooks() -> Any:
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_page_shows_a_widget_by_its_stored_html() -> None:
    output = {
        "output_type": "display_data",
        "data": {WIDGET_VIEW: {"model_id": "m"}, "text/html": "<p>All done</p>", "text/plain": "x"},
        "metadata": {},
    }
    button = {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": "b"}, "text/plain": "Button()"}}
    notebook = {"cells": [{"cell_type": "code", "outputs": [output, button]}]}
    shown = _hooks().static_notebook(notebook)
    assert [o["data"] for o in shown["cells"][0]["outputs"]] == [
        {"text/html": "<p>All done</p>", "text/plain": "x"},
        {"text/plain": "Button()"},
    ]
    assert WIDGET_VIEW in notebook["cells"][0]["outputs"][0]["data"]  # the notebook itself is untouched


def test_the_offline_check_catches_network_loads() -> None:
    hooks = _hooks()
    assert hooks.NETWORK_LOAD.search('<script src="https://cdn.example/x.js"></script>')
    assert hooks.NETWORK_LOAD.search('<link rel="stylesheet" href="//fonts.googleapis.com/css">')
    assert hooks.NETWORK_LOAD.search('await import("https://cdn.example/m.mjs")')
    assert hooks.NETWORK_LOAD.search("src: url(https://fonts.gstatic.com/a.woff2)")
    assert not hooks.NETWORK_LOAD.search('<a href="https://github.com/openai/codex">Codex</a>')
    assert not hooks.NETWORK_LOAD.search('<script src="../assets/bundle.js"></script>')
    stripped = hooks.CDN_SCRIPT.sub("", '<script src=""> </script><script src="https://x/mathjax/latest.js"></script>')
    assert stripped == ""


def test_the_docs_build_runs_in_ci() -> None:
    steps = (ROOT / ".ci" / "test").read_text(encoding="utf-8")
    assert 'step "docs: mkdocs build --strict (.ci/docs)" bash .ci/docs' in steps
    assert "mkdocs build --strict" in (ROOT / ".ci" / "docs").read_text(encoding="utf-8")
    assert Path(ROOT / "mkdocs.yml").read_text(encoding="utf-8").count("strict: true") == 1


PUBLIC = (
    "codex_nb acp agent_server app_server config errors events extension hooks render rollouts testing timeline tools"
).split()


def undocumented_public_names() -> list[str]:
    """Classes and functions of ``codex_nb.__all__`` and every public submodule's ``__all__`` without a
    docstring of their own: the API reference is made from them."""
    import importlib
    import inspect

    missing = []
    for short in PUBLIC:
        name = short if short == "codex_nb" else f"codex_nb.{short}"
        module = importlib.import_module(name)
        for attr in module.__all__:
            value = getattr(module, attr)
            if inspect.isclass(value):
                doc = value.__dict__.get("__doc__")
            elif inspect.isfunction(value) or inspect.iscoroutinefunction(value):
                doc = value.__doc__
            else:
                continue  # constants and submodules
            if not (doc or "").strip():
                missing.append(f"{name}.{attr}")
    return sorted(set(missing))


def test_every_public_name_has_a_docstring() -> None:
    assert undocumented_public_names() == []


def test_the_examples_in_public_docstrings_run() -> None:
    """The ``>>>`` examples of the public names' docstrings (shown in the API reference) are doctests."""
    import doctest
    import importlib
    import inspect

    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    seen: set[int] = set()
    examples = 0
    for short in PUBLIC:
        module = importlib.import_module(short if short == "codex_nb" else f"codex_nb.{short}")
        for attr in module.__all__:
            value = getattr(module, attr)
            if id(value) in seen or not (inspect.isclass(value) or inspect.isfunction(value)):
                continue
            seen.add(id(value))
            for test in finder.find(value, f"{module.__name__}.{attr}", globs={}):
                examples += len(test.examples)
                runner.run(test)
    assert runner.failures == 0
    assert examples >= 10


# Names a row's reason quotes that are not tests: a compared field, an older Codex key.
NOT_PINS = {"server_requests", "index_gated_web_access"}


def compatibility_pins() -> list[tuple[str, str]]:
    """(row, name) for each test or conformance scenario a Compatibility row names in its last column."""
    text = (DOCS / "compatibility.md").read_text(encoding="utf-8")
    pins = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) < 3 or set(cells[0]) <= {"-"} or cells[0] in ("Area", "Case"):
            continue
        for name in re.findall(r"`([A-Za-z0-9_*]+)`", cells[-1]):
            if name in NOT_PINS:
                continue
            if name.startswith("test_") or re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+)+\*?", name):
                pins.append((cells[0], name))
    return pins


def test_every_compatibility_row_names_a_test_that_exists() -> None:
    pins = compatibility_pins()
    assert len({row for row, _ in pins}) >= 40
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    scenarios = {p.stem for p in (ROOT / "tests" / "conformance" / "expected").glob("*.json")}
    missing = []
    for row, name in pins:
        if name.startswith("test_"):
            pattern = re.escape(name[:-1]) if name.endswith("*") else re.escape(name) + r"\b"
            found = re.search(rf"def {pattern}", tests)
        else:
            found = any(s == name or (name.endswith("*") and s.startswith(name[:-1])) for s in scenarios)
        if not found:
            missing.append(f"{row}: {name}")
    assert missing == [], "\n".join(missing)
