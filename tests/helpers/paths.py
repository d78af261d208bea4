"""The places in the checkout that tests read, so a test module can move without changing them."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
PACKAGE = ROOT / "codex_nb"
JS = ROOT / "js"
NOTEBOOKS = ROOT / "notebooks"
README = ROOT / "README.md"
FIXTURES = TESTS / "fixtures"
ACP_AGENTS = TESTS / "acp_agents"
MCP_SERVERS = TESTS / "mcp_servers"
CODEX_0169_TOOLS = FIXTURES / "codex_0169" / "mcp_and_tools.json"
BUILD = ROOT / "build"


@contextlib.contextmanager
def outside_codex_sandbox() -> Iterator[Path]:
    """A new folder outside any session folder that Codex's workspace-write sandbox may not write
    without asking, removed afterwards. Codex (0.166 on) lets it write the session folder, /tmp and
    $TMPDIR (its permission profile's ``:slash_tmp`` and ``:tmpdir``): the checkout's build/ is no
    such folder when the checkout itself lies under /tmp (a clean clone), /var/tmp is one unless
    $TMPDIR points there. Raises ``RuntimeError`` when neither is."""
    sandboxed = [Path(p).resolve() for p in ("/tmp", tempfile.gettempdir(), os.environ.get("TMPDIR") or "/tmp")]
    for base in (Path("/var/tmp"), BUILD):
        where = base.resolve()
        if not any(where == root or root in where.parents for root in sandboxed):
            break
    else:
        raise RuntimeError(f"/var/tmp and {BUILD} both lie in /tmp or $TMPDIR, which Codex writes without asking")
    base.mkdir(exist_ok=True)
    made = Path(tempfile.mkdtemp(prefix="codex-nb-outside-", dir=base))
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)
