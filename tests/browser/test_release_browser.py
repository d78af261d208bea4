"""The release candidate in JupyterLab: a JupyterLab and kernel from the venv that holds only the
built wheel (tests/helpers/release.py, shared with tests/project/test_release.py) draw the
checklist of a scripted turn from the wheel's own widget bundle.

The notebook is written here rather than the quickstart, whose last cell (``%unload_ext``) closes
its widgets; what it checks is what the quickstart shows: a plan drawn and the turn completed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.release import build_dist, release_venv, venv_python

from .harness import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.release]

CELLS = [
    """\
import codex_nb as cx
from codex_nb.widgets.checklist import PlanChecklist

session = cx.Session()
checklist = PlanChecklist(session)
display(checklist)""",
    """\
plan = [{"step": "Build the wheel", "status": "completed"}, {"step": "Install it", "status": "completed"}]
model = cx.ScriptedModel([[cx.function_call("update_plan", {"plan": plan})], [cx.assistant_message("Released.")]])
result = await session.run_turn("Release it", model=model)
print(result.status, "|", cx.__file__)""",
]


@pytest.fixture(scope="module")
def release_server(tmp_path_factory: pytest.TempPathFactory, chromium: Any) -> Iterator[tuple[JupyterServer, Path]]:
    wheel, _ = build_dist(tmp_path_factory.mktemp("release") / "dist")
    venv = release_venv(wheel)
    assert shutil.which("jupyter-lab", path=str(venv / "bin")), "the [lab] extra installed no JupyterLab"
    server = JupyterServer.create(python=str(venv_python(venv)))
    with server:
        yield server, venv


# its setup builds the wheel, waits for the release venv (made once, under a lock, by whichever
# lane of .ci/test gets there first) and starts a JupyterLab from it: on a 2-core machine at load
# 15 that alone took over the default 300 s
@pytest.mark.timeout(900)
def test_jupyterlab_from_the_installed_wheel_draws_the_checklist(
    chromium: Any, release_server: tuple[JupyterServer, Path]
) -> None:
    from playwright.sync_api import expect

    server, venv = release_server
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        notebook = open_notebook(page, server, "release.ipynb", CELLS)
        notebook.run_all()
        output = page.locator(".jp-OutputArea-output").filter(has_text="completed |")
        expect(output).to_be_visible(timeout=60_000)
        assert str(venv / "lib") in output.inner_text(), output.inner_text()  # the kernel runs the wheel's codex_nb
        plan = page.locator(".codex-plan")
        expect(plan.get_by_role("listitem")).to_have_count(2)
        expect(plan.locator(".codex-plan-counter")).to_have_text("2/2 done")
        expect(plan.locator(".codex-plan-turn")).to_have_text("Turn completed")
        assert not notebook.unplaced_page_errors()
        assert not [line for line in notebook.console if "codex_nb" in line], notebook.console
    finally:
        context.close()
        server.shutdown_kernels()
