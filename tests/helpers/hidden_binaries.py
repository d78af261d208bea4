"""A machine without the optional binaries, for real: codex_nb copied outside the checkout (so it
finds no pinned ``.codex-ref``/``.acp-agents`` folder beside it), the override variables unset and
every ``PATH`` folder holding one of the executables left out. What ``bash .ci/lab`` gives a
newcomer: the notebooks' extra and nothing else. The Run All test of the notebooks without cassettes
and the cassette replay test of the others both start their kernels in it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from helpers.paths import ROOT

EXECUTABLES = ("codex", "codex-acp", "claude-agent-acp", "claude", "gemini", "qwen")
OVERRIDES = ("CODEX_BIN", "CODEX_ACP_BIN", "CODEX_NB_CODEX_REF")


def copy_outside_checkout(site: Path) -> Path:
    """Copy codex_nb (and the MCP servers notebooks start) into ``site``; return it for ``PYTHONPATH``."""
    shutil.copytree(ROOT / "codex_nb", site / "codex_nb", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests" / "mcp_servers", site / "tests" / "mcp_servers")
    return site


def hidden_environ(site: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (the process's environment by default) with the binaries hidden and ``site`` as
    ``PYTHONPATH``. Raises ``AssertionError`` if one of the executables could still be found."""
    env = dict(os.environ if base is None else base)
    for name in OVERRIDES:
        env.pop(name, None)
    folders = [d for d in env.get("PATH", "").split(os.pathsep) if d]
    kept = os.pathsep.join(d for d in folders if not any((Path(d) / exe).exists() for exe in EXECUTABLES))
    env["PATH"] = kept
    env["PYTHONPATH"] = str(site)
    found = [exe for exe in EXECUTABLES if shutil.which(exe, path=kept) is not None]
    assert not found, f"still on PATH: {found}"
    return env
