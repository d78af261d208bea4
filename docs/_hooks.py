"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks:``), run by ``bash .ci/docs``.

* The teaching notebooks in ``notebooks/`` become the site's tutorials from their stored outputs
  (nothing is executed at build time). A widget view needs a kernel that a static page does not
  have, so each widget output is shown by its stored ``text/html``: the widget updates that
  display in place when its turn ends, so it holds the final state (``.ci/execute_notebooks.py``
  re-executes a notebook and stores it; nbval checks it).
* ``CHANGELOG.md`` and ``CONTRIBUTING.md`` at the repository root are pages too, so each is kept
  in one place.
* The site works offline: a notebook page's scripts that nbconvert loads from a CDN (MathJax,
  Mermaid) are dropped, and the build fails on any other page that loads a script, style or font
  from the network.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ROOT_PAGES = {"changelog.md": "CHANGELOG.md", "contributing.md": "CONTRIBUTING.md"}
# nbconvert's lab template loads these from a CDN; the notebooks use neither.
CDN_SCRIPT = re.compile(r'<script[^>]*\bsrc="(?:https?://[^"]*(?:mathjax|mermaid)[^"]*)?"[^>]*>\s*</script>', re.I)
CDN_MERMAID_MODULE = re.compile(
    r"<script type=\"module\">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*?</script>", re.S
)
NETWORK_LOAD = re.compile(
    r'<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)="(?:https?:)?//[^"]+"'  # a tag loading a URL
    r"|\bimport\(\s*[\"']https?://[^\"']+"  # a module imported from a URL
    r"|\burl\(\s*[\"']?https?://[^)]+\)",  # a style loading a URL (fonts, images)
    re.I,
)


def static_notebook(notebook: dict[str, Any]) -> dict[str, Any]:
    """The notebook as a page shows it: every widget view replaced by its static HTML."""
    shown = copy.deepcopy(notebook)
    for cell in shown["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            del data[WIDGET_VIEW]
    return shown


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns .ipynb files into pages
def on_files(files: Files, config: Any) -> Files:
    # Plain files below a generated source folder: mkdocs-jupyter's wrapper cannot read a
    # File.generated() one.
    source = Path(config["site_dir"]).parent / "docs-generated"
    (source / "tutorials").mkdir(parents=True, exist_ok=True)
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        shown = static_notebook(json.loads(path.read_text(encoding="utf-8")))
        uri = f"tutorials/{path.name}"
        (source / uri).write_text(json.dumps(shown, ensure_ascii=False, indent=1), encoding="utf-8")
        files.append(_file(uri, source, config))
    for page, name in ROOT_PAGES.items():
        (source / page).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
        files.append(_file(page, source, config))
    return files


def _file(uri: str, source: Path, config: Any) -> File:
    return File(uri, str(source), config["site_dir"], config["use_directory_urls"])


def on_post_page(output: str, page: Any, config: Any) -> str:
    output = CDN_SCRIPT.sub("", output)
    output = CDN_MERMAID_MODULE.sub("", output)
    loads = NETWORK_LOAD.findall(output)
    if loads:
        raise PluginError(f"{page.file.src_uri} loads from the network, which the offline site must not: {loads[:3]}")
    return output
