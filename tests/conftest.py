"""Shared fixtures: a fresh session per test, and a check that no task is left behind.

Tests marked ``requires_codex`` / ``requires_acp_agent`` are skipped where the binary is
missing, and fail when ``CI=true`` (``binary_requirements``).

Browser tests are run last when a session collects them with the others (`pytest tests`):
Playwright's sync API keeps an event loop running in the main thread until the session
ends, and every ``asyncio.run`` after it would fail. ``.ci/test`` runs them separately.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.frontend.answer_policy import ENV_VAR

from helpers.binary_requirements import mark_notebooks, pytest_runtest_setup  # noqa: F401  (a hook: found by name)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_notebooks(items)
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
