"""Page errors in a real JupyterLab and Notebook 7: each is placed, ours or the front end's.

Notebook 7 raises ``Cannot read properties of undefined (reading 'schema')`` from its own bundle at
every page load, with any notebook (no upstream issue found; it names no codex_nb code, see the
test below): a test that only looked for "codex_nb" in the console let it
pass unexplained, and would equally let one of our widgets' exceptions pass (a widget's stack need
not name codex_nb). The harness names the front end's own errors (``UPSTREAM_PAGE_ERRORS``); any
other page error fails the test that saw it.
"""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, NotebookPage, notebook_json, upstream_error

pytestmark = pytest.mark.browser

SCHEMA = "Cannot read properties of undefined (reading 'schema')"
CORE = "    at http://127.0.0.1:1/static/notebook/notebook_core.c9a6d9df5de5df84.js?v=c9:501:207"


def test_only_the_front_ends_own_error_is_placed() -> None:
    assert upstream_error("notebook", SCHEMA, f"TypeError: {SCHEMA}\n{CORE}")
    assert upstream_error("lab", SCHEMA, f"TypeError: {SCHEMA}\n{CORE}") is None  # JupyterLab does not raise it
    widget = "    at render (blob:http://127.0.0.1:1/5b1c-anywidget-esm:12:3)"
    assert upstream_error("notebook", SCHEMA, f"TypeError: {SCHEMA}\n{widget}\n{CORE}") is None
    assert upstream_error("notebook", "Cannot read properties of null (reading 'x')", f"x\n{CORE}") is None


def test_notebook_7_raises_its_schema_error_by_itself_and_it_is_placed(
    page: Any, jupyter_server: JupyterServer
) -> None:
    """A notebook without codex_nb: the error is the front end's, and the harness says so."""
    name = jupyter_server.write_notebook("plain.ipynb", notebook_json(["1 + 1"]))
    notebook = NotebookPage(page, jupyter_server, name, ui="notebook")
    with page.expect_event("pageerror", timeout=60_000):
        notebook.open()
    # Notebook 7's file-browser restore sometimes adds its own "not registered" error: also placed
    assert SCHEMA in [message for message, _ in notebook.page_errors]
    assert notebook.unplaced_page_errors() == []


ANYWIDGET_CLOSED_WHILE_LOADING = """
import anywidget, traitlets
from IPython.display import display

class Slow(anywidget.AnyWidget):
    # the module takes a second to load, as a big one does on a loaded machine
    _esm = "await new Promise((r) => setTimeout(r, 1000)); export default { render({ el }) { el.textContent = 'slow'; } };"

slow = Slow()
display(slow)
slow.close()  # before its module has loaded in the page
"""


def test_anywidget_raises_failed_to_initialize_for_a_model_closed_while_loading(
    page: Any, jupyter_server: JupyterServer
) -> None:
    """The mechanism behind the quickstart's old page error, with no codex_nb code: anywidget's own.
    If a new anywidget stops raising it, this test fails, and the note above can go."""
    name = jupyter_server.write_notebook("closed_early.ipynb", notebook_json([ANYWIDGET_CLOSED_WHILE_LOADING]))
    notebook = NotebookPage(page, jupyter_server, name, ui="lab").open()
    with page.expect_event("pageerror", timeout=30_000) as caught:
        notebook.run_all()
    assert "[anywidget] Failed to initialize model." in str(caught.value)
    assert "/anywidget/" in (caught.value.stack or "")
