"""The heartbeat seen live in a real JupyterLab and Notebook 7: a ``%%codex`` turn whose (scripted)
model holds its answer until the person clicks a button shows "waiting for the model N s" in its
turn view, the seconds counting up while it waits; once released the turn completes and the line
goes away. It does so on codex_nb's runtime and on the REAL Codex (``%%codex --source thread``, the
pinned ``codex app-server`` sampling from a local scripted Responses server that holds its answer
until the click). No sleeps: every wait is an auto-waiting ``expect``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .harness import JupyterServer, open_notebook
from .real_codex import STEERED

pytestmark = pytest.mark.browser

SETUP = """\
%load_ext codex_nb
import asyncio
import ipywidgets as widgets
import codex_nb as cx

release = asyncio.Event()
button = widgets.Button(description="Let the model answer")
button.on_click(lambda _button: release.set())


async def slow(request):
    await release.wait()
    return [cx.assistant_message("Answered after the wait.")]


slow_model = cx.ScriptedModel([slow])
%codex_config --model slow_model
display(button)
"""
CODEX_SETUP = (
    STEERED
    + """\
srv, thread = await codex_on([gated([cx.assistant_message("Answered after the wait.")])])
%load_ext codex_nb
display(next_button)
"""
)
SOURCES = {
    "runtime": (SETUP, "%%codex\nTake your time."),
    "codex": (CODEX_SETUP, "%%codex --source thread\nTake your time."),
}
"""Each source's first cell and its prompt."""


@pytest.mark.parametrize("ui", ["lab", "notebook"])
@pytest.mark.parametrize("source", ["runtime", pytest.param("codex", marks=pytest.mark.requires_codex)])
def test_the_heartbeat_counts_while_the_model_waits(
    page: Any, jupyter_server: JupyterServer, ui: str, source: str
) -> None:
    from playwright.sync_api import expect

    notebook = open_notebook(page, jupyter_server, f"heartbeat_{source}_{ui}.ipynb", list(SOURCES[source]), ui=ui)
    notebook.run_all()

    turn = page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".jp-OutputArea")
    beat = turn.locator(".cx-heartbeat")
    expect(beat).to_have_text(re.compile(r"^waiting for the model \d+ s$"), timeout=90_000)
    # the clock redraws the seconds while nothing else happens
    expect(beat).to_have_text(re.compile(r"^waiting for the model ([2-9]|\d\d+) s$"), timeout=15_000)
    notebook.screenshot_of(turn, f"heartbeat_{source}_{ui}.png")

    page.get_by_role("button", name="Let the model answer").click()
    expect(turn.locator(".cx-transcript")).to_contain_text("Answered after the wait.", timeout=30_000)
    expect(beat.locator(".cx-heartbeat-line")).to_have_count(0)
    expect(beat).to_have_text("")
    assert notebook.unplaced_page_errors() == []
