"""Shared fixtures: a fresh session per test, a shell with the extension loaded, and a check
that no task is left behind.

Tests marked ``requires_codex`` / ``requires_acp_agent`` are skipped where the binary is
missing, and fail when ``CI=true`` (``binary_requirements``).

Tests marked ``slow`` (real Codex, agents, MCP servers and shells, long property runs) are left
out of a run over a folder, so ``pytest tests/unit`` stays the fast inner loop; ``--slow`` runs
them too (``.ci/test`` passes it), and a file or test named on the command line always runs.

Browser tests are run last when a session collects them with the others (`pytest tests`):
Playwright's sync API keeps an event loop running in the main thread until the session
ends, and every ``asyncio.run`` after it would fail. ``.ci/test`` runs them separately.
"""

from __future__ import annotations

import asyncio
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# The kernels, Jupyter servers and agents these tests start import this checkout's codex_nb, not
# whichever one the venv's editable install points at (a second git worktree shares the venv).
_CHECKOUT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_CHECKOUT, os.environ.get("PYTHONPATH", "")) if p)

import codex_nb as cx  # noqa: E402  (after PYTHONPATH: the same checkout in this process and its children)
from codex_nb.frontend.answer_policy import ENV_VAR

from helpers.binary_requirements import mark_notebooks, pytest_runtest_setup  # noqa: F401  (a hook: found by name)

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (.ci/test does)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_notebooks(items)
    if not config.getoption("--slow"):
        named = {Path(arg.split("::")[0]).resolve() for arg in config.args if not Path(arg).is_dir()}
        slow = [item for item in items if item.get_closest_marker("slow") and item.path not in named]
        if slow:
            config.hook.pytest_deselected(items=slow)
            left = set(map(id, slow))
            items[:] = [item for item in items if id(item) not in left]
    others: list[pytest.Item] = []
    browser: list[pytest.Item] = []
    for item in items:
        (browser if _is_browser_test(item) else others).append(item)
    items[:] = others + browser  # each group keeps its order


def _is_browser_test(item: pytest.Item) -> bool:
    parts = item.path.parts
    return "browser" in parts and parts[parts.index("browser") - 1] == "tests"


class RenderedFrontend:
    """Stands in for a prompts widget whose view has rendered (broker unit tests);
    the real widget is covered by tests/browser."""

    alive = True
    ready = True


@pytest.fixture(autouse=True)
def no_env_answer_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CODEX_NB_ANSWER_POLICY in the developer's shell must not change test outcomes."""
    monkeypatch.delenv(ENV_VAR, raising=False)


@pytest.fixture
def rendered_frontend() -> RenderedFrontend:
    return RenderedFrontend()


@pytest.fixture
def session() -> cx.Session:
    return cx.Session()


@pytest.fixture
def shell() -> Iterator[InteractiveShell]:
    """A fresh IPython shell with ``%load_ext codex_nb``; unloaded and cleared afterwards."""
    from IPython.core.interactiveshell import InteractiveShell  # only the tests that use it pay for IPython
    from traitlets.config import Config as TraitletsConfig

    config = TraitletsConfig()
    config.HistoryManager.enabled = False  # no history thread left behind per test
    ip = InteractiveShell.instance(config=config)
    ip.run_line_magic("load_ext", "codex_nb")
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "codex_nb")
        InteractiveShell.clear_instance()
        gc.collect()  # subprocess transports (the real Codex's app-server), here and not in a later module


@pytest.fixture
async def no_leaked_tasks():
    """Fails the test if it leaves asyncio tasks running."""
    before = asyncio.all_tasks()
    yield
    await asyncio.sleep(0)
    leaked = {t for t in asyncio.all_tasks() - before if not t.done() and t is not asyncio.current_task()}
    assert not leaked, f"tasks left running: {leaked}"


@pytest.fixture
def temp_dirs():
    """Folders as a notebook makes them (``tempfile.mkdtemp``): a new random name on every run, in the
    system's temporary folder, where a cassette names them by their place (so a replay matches)."""
    made: list[Path] = []

    def make(prefix: str) -> Path:
        made.append(Path(tempfile.mkdtemp(prefix=prefix)))
        return made[-1]

    yield make
    for path in made:
        shutil.rmtree(path, ignore_errors=True)
