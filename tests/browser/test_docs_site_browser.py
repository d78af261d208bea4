"""The built documentation site in headless Chromium: every tutorial page shows its notebook's widgets
in their final state (the steps of each checklist, never "Loading widget..."), and no page asks the
network for anything.

The site comes from ``bash .ci/docs`` (``build/site``, used when that build finished: ``.ci/test``
builds it first) or is built here into a temporary folder (also with ``CODEX_NB_REBUILD_DOCS=1``, for
a ``build/site`` older than the notebooks). It is served over HTTP on 127.0.0.1, as a reader's browser would get
it; every request the pages make is recorded, and any that leaves that origin fails the test.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import NOTEBOOKS, ROOT

from .notebook_expectations import expectations

pytestmark = pytest.mark.browser

PAGES = ["index.html", "getting-started.html", "concepts.html", "api/codex_nb.html"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = ROOT / "build" / "site"
    if (built / ".built").is_file() and os.environ.get("CODEX_NB_REBUILD_DOCS") != "1":
        return built
    target = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(target)]
    out = subprocess.run(mkdocs, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    return target


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def site_url(site: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, name="docs-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def site_page(chromium: Any, site_url: str) -> Iterator[tuple[Any, list[str], list[str]]]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page, requests, errors
    finally:
        context.close()


# A checklist's static HTML shows the plan, not the turn's status (the Stop control shows that).
LIVE_ONLY = {"running", "completed", "interrupted", "failed"}


def checklist_checks(name: str) -> list[tuple[int, int, list[str], list[str]]]:
    """(cell, index, text_contains, text_absent) of every checklist the notebook says what it shows
    after Run All (``metadata.codex_nb.expect``, which the JupyterLab browser test holds live)."""
    notebook = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    return [
        (
            cell,
            check["index"],
            [t for t in check.get("text_contains", []) if t not in LIVE_ONLY],
            check.get("text_absent", []),
        )
        for cell, check in expectations(notebook)
        if check["widget"] == "checklist" and "index" in check
    ]


def notebooks_with_checklists() -> list[str]:
    return [path.name for path in sorted(NOTEBOOKS.glob("*.ipynb")) if checklist_checks(path.name)]


def test_the_checked_notebooks_include_the_live_checklist_tutorial() -> None:
    assert "02_live_checklist.ipynb" in notebooks_with_checklists()


@pytest.mark.parametrize("name", notebooks_with_checklists())
def test_tutorial_pages_show_each_checklist_in_its_final_state(site_page: Any, site_url: str, name: str) -> None:
    from playwright.sync_api import expect

    page, requests, errors = site_page
    page.goto(f"{site_url}/tutorials/{Path(name).stem}.html")
    cells = page.locator(".jp-Notebook > .jp-Cell")
    expect(cells).to_have_count(len(json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]))
    for cell, index, shown, absent in checklist_checks(name):
        checklist = cells.nth(cell).locator(".codex-plan-static").nth(index)
        for text in shown:
            expect(checklist).to_contain_text(text)
        for text in absent:
            expect(checklist).not_to_contain_text(text)
    expect(page.get_by_text("Loading widget")).to_have_count(0)
    assert [url for url in requests if not url.startswith(site_url)] == []
    assert errors == []


@pytest.mark.parametrize("path", PAGES)
def test_pages_load_nothing_from_the_network(site_page: Any, site_url: str, path: str) -> None:
    page, requests, errors = site_page
    page.goto(f"{site_url}/{path}", wait_until="networkidle")
    assert page.locator("h1").first.inner_text().strip()
    assert [url for url in requests if not url.startswith(site_url)] == []
    assert errors == []
