"""The ``requires_codex`` / ``requires_acp_agent`` markers: tests that need a real binary.

On a laptop without the pinned installs such a test is skipped with a one-line reason
naming what is missing and how to get it. In CI (``CI=true``) a missing binary fails the
test instead: a skip there would hide that the real-binary tests never ran. The binaries
are found exactly as the tests find them (``codex_nb.testing``: ``CODEX_BIN`` /
``CODEX_ACP_BIN``, the pinned installs, ``PATH``), so pointing those variables at a missing
path simulates a machine without them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codex_nb.testing import codex_acp_binary, codex_binary

REQUIREMENTS: dict[str, Callable[[], Path]] = {
    "requires_codex": codex_binary,
    "requires_acp_agent": codex_acp_binary,
}
CI_VALUES = {"true", "1", "yes"}
NOTEBOOK_NEEDS = {
    "06_asking_the_user.ipynb": "requires_codex",
    "07_real_codex.ipynb": "requires_codex",
    "10_any_agent.ipynb": "requires_acp_agent",
    "11_docs_tests.ipynb": "requires_codex",
    "13_notebook_workspace.ipynb": "requires_codex",
    "14_many_agents.ipynb": "requires_codex",  # and codex-acp: both record, from one cassette each
}
"""The committed notebooks that start a real binary (nbval runs them, and so does a browser test)."""
NOTEBOOK_CASSETTES = {
    "07_real_codex.ipynb": "cassettes/07_real_codex.cassette.jsonl",
    "10_any_agent.ipynb": "cassettes/10_any_agent.cassette.jsonl",
    "11_docs_tests.ipynb": "cassettes/11_docs_tests.codex.cassette.jsonl",
    "13_notebook_workspace.ipynb": "cassettes/13_notebook_workspace.codex.cassette.jsonl",
    "14_many_agents.ipynb": "cassettes/14_many_agents.codex.cassette.jsonl",
}
"""The cassette each of them replays when it is there: then the notebook needs no binary."""
RECORD_MODE_VAR = "CODEX_NB_RECORD_MODE"


def needs_binary(notebook: Path) -> bool:
    """A notebook needs its binary unless it replays its cassette (present, and not re-recorded)."""
    cassette = NOTEBOOK_CASSETTES.get(notebook.name)
    if cassette is None or not (notebook.parent / cassette).is_file():
        return True
    return os.environ.get(RECORD_MODE_VAR, "once") == "all"


def snippet_case(block: str, *, id: str) -> Any:
    """A documentation snippet as a test case, marked with the binary it starts (the real Codex, codex-acp)."""
    marks = []
    if "CodexAppServer" in block:
        marks.append(pytest.mark.requires_codex)
    if "AcpAgent" in block or "codex_acp_binary" in block:
        marks.append(pytest.mark.requires_acp_agent)
    return pytest.param(block, marks=marks, id=id)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def missing_binary(item: pytest.Item) -> str | None:
    """Why a marked test cannot run here (one line), or None when every binary it needs is present."""
    for marker, find in REQUIREMENTS.items():
        if item.get_closest_marker(marker) is None:
            continue
        try:
            find()
        except FileNotFoundError as err:  # the resolvers' errors say what was looked for and the fix
            return f"{marker}: {err}"
    return None


def mark_notebooks(items: list[pytest.Item]) -> None:
    """Mark nbval's cells of the notebooks that need a binary, and skip them here where it is missing.

    A notebook that replays its committed cassette needs none and is not marked: it runs everywhere.

    Their items live under notebooks/, outside this conftest's ``pytest_runtest_setup``, so the
    skip is decided at collection; in CI nothing is skipped and a missing binary fails the cell.
    """
    for item in items:
        marker = NOTEBOOK_NEEDS.get(item.path.name) if item.path.suffix == ".ipynb" else None
        if marker is None or not needs_binary(item.path):
            continue
        item.add_marker(getattr(pytest.mark, marker))
        reason = missing_binary(item)
        if reason is not None and not in_ci():
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # tryfirst: before the item's fixtures, so a fixture that starts the binary never finds it missing.
    reason = missing_binary(item)
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"{reason} (CI is set: a missing binary fails the run instead of skipping)", pytrace=False)
    pytest.skip(reason)
