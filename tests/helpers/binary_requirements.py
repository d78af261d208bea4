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
from codex_nb.testing.acp_agents import ACP_AGENTS, acp_agent

REQUIREMENTS: dict[str, Callable[[], Path]] = {
    "requires_codex": codex_binary,
    "requires_acp_agent": codex_acp_binary,
}
CI_VALUES = {"true", "1", "yes"}
NOTEBOOK_NEEDS: dict[str, list[pytest.MarkDecorator]] = {
    "06_asking_the_user.ipynb": [pytest.mark.requires_codex],
    "07_real_codex.ipynb": [pytest.mark.requires_codex],
    "10_any_agent.ipynb": [pytest.mark.requires_acp_agent("codex-acp")],
    "11_docs_tests.ipynb": [pytest.mark.requires_codex],
    "13_notebook_workspace.ipynb": [pytest.mark.requires_codex],
    "14_many_agents.ipynb": [
        pytest.mark.requires_acp_agent(name) for name in ("codex-acp", "claude-agent-acp", "gemini-cli")
    ],
    "16_rewind_and_threads.ipynb": [pytest.mark.requires_codex],
}
"""The committed notebooks that start a real binary, with the marks of what they start (nbval runs
them, and so does a browser test): ``requires_acp_agent(name)`` is one agent of ``.ci/acp-agents``,
bare ``requires_acp_agent`` the legacy codex-acp of ``.ci/codex-acp-version``."""
NOTEBOOK_CASSETTES = {
    "07_real_codex.ipynb": "cassettes/07_real_codex.cassette.jsonl",
    "10_any_agent.ipynb": "cassettes/10_any_agent.cassette.jsonl",
    "11_docs_tests.ipynb": "cassettes/11_docs_tests.codex.cassette.jsonl",
    "13_notebook_workspace.ipynb": "cassettes/13_notebook_workspace.codex.cassette.jsonl",
    "14_many_agents.ipynb": "cassettes/14_many_agents.codex-acp.cassette.jsonl",
    "16_rewind_and_threads.ipynb": "cassettes/16_rewind_and_threads.cassette.jsonl",
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
    """A documentation snippet as a test case, marked with the binary it starts (the real Codex, an
    agent of ``.ci/acp-agents`` named in ``acp_agent("...")``, or the legacy codex-acp)."""
    marks = []
    if "CodexAppServer" in block:
        marks.append(pytest.mark.requires_codex)
    named = [name for name in ACP_AGENTS if f'acp_agent("{name}")' in block]
    marks += [pytest.mark.requires_acp_agent(name) for name in named]
    if "codex_acp_binary" in block or ("AcpAgent" in block and not named):
        marks.append(pytest.mark.requires_acp_agent)
    return pytest.param(block, marks=marks, id=id)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def missing_binary(item: pytest.Item) -> str | None:
    """Why a marked test cannot run here (one line), or None when every binary it needs is present."""
    for marker, find in REQUIREMENTS.items():
        for mark in item.iter_markers(marker):  # every one: a test may need several agents
            try:
                if marker == "requires_acp_agent" and mark.args:  # one agent of the agent suite, by name
                    acp_agent(mark.args[0]).command()
                else:
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
        marks = NOTEBOOK_NEEDS.get(item.path.name, []) if item.path.suffix == ".ipynb" else []
        if not marks or not needs_binary(item.path):
            continue
        for mark in marks:
            item.add_marker(mark)
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
