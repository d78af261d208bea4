"""Shared set-up for the notebook tools' unit tests: a session with the tools on, its own namespace
and (optionally) an in-memory notebook."""

from __future__ import annotations

from typing import Any

import codex_nb as cx
from codex_nb.testing import MemoryNotebook

ON = "[codex_nb.notebook_tools]\nenabled = true\n"


def session_with(
    toml: str = ON, *, namespace: dict[str, Any] | None = None, document: MemoryNotebook | None = None, **kw: Any
) -> tuple[cx.Session, dict[str, Any]]:
    session = cx.Session(config=cx.Config.from_toml(toml), **kw)
    ns: dict[str, Any] = {} if namespace is None else namespace
    session.workspace.namespace = lambda: ns
    session.workspace.set_document(document)
    return session, ns


def trusting(toml: str = ON) -> str:
    """The tools on, asking nothing (for tests of what a tool does, not of its approval)."""
    return (
        toml
        + "[codex_nb.notebook_tools.approve]\nrun_code = false\ninsert_cell = false\nedit_cell = false\nrun_cell = false\n"
    )
