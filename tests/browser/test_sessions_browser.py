"""The sessions browser in a real JupyterLab: a person filters the table, sorts it by a header and
selects a row, and the kernel shows that session's plan timeline and transcript (the shipped
sample Codex home; no binary). Resume and Fork are hidden without a server. No sleeps: every wait
is an auto-waiting expect."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import JupyterServer, open_notebook

pytestmark = pytest.mark.browser

CELL = """\
import codex_nb as cx
from codex_nb.testing import SAMPLE_CODEX_HOME

browser = cx.SessionsBrowser(codex_home=SAMPLE_CODEX_HOME)
browser
"""


def test_filter_sort_and_select_in_the_table(page: Any, jupyter_server: JupyterServer) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, "sessions_lab.ipynb", [CELL])
    notebook.run_all()

    rows = page.locator(".cx-sessions-table tr[data-id]")
    expect(rows).to_have_count(4, timeout=60_000)
    expect(page.locator(".cx-sessions-bar button", has_text="Resume")).to_be_hidden()  # no server
    expect(page.locator(".cx-sessions-bar button", has_text="Fork")).to_be_hidden()

    page.locator(".cx-sessions-bar input").fill("csv")
    expect(rows).to_have_count(1)
    page.locator(".cx-sessions-bar input").fill("")
    expect(rows).to_have_count(4)
    page.locator(".cx-sessions-table th", has_text="Turns").click()  # ascending
    page.locator(".cx-sessions-table th", has_text="Turns").click()  # descending: the 2-turn one first
    expect(rows.first).to_contain_text("/home/ada/work/parser")

    rows.first.click()
    expect(rows.first).to_have_class("cx-selected")
    expect(page.locator(".codex-timeline")).to_contain_text("3/3", timeout=30_000)
    expect(page.locator(".cx-transcript")).to_contain_text("All 42 tests pass.")
    notebook.screenshot("sessions_browser_selected.png")
    assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
