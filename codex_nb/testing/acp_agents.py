"""The pinned ACP agent for tests and notebooks: npm ``@zed-industries/codex-acp``.

codex-acp is a native build of Codex with an ACP front (it links Codex itself and
needs no separate ``codex`` binary); it reads ``CODEX_HOME/config.toml``, so pointed
at a local ``ResponsesServer`` it runs whole prompts offline with no key. The version
lives in ``.ci/codex-acp-version``; ``.ci/setup`` installs it into ``.acp-agents/``.
"""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .codex_ref import REPO_ROOT

if TYPE_CHECKING:
    from .responses_server import ResponsesServer

VERSION_FILE = REPO_ROOT / ".ci" / "codex-acp-version"
INSTALL_DIR = REPO_ROOT / ".acp-agents"
CODEX_ACP_MODEL = "gpt-5.4"
"""A model codex-acp 0.16.0 has metadata for (others make it print a fallback warning)."""

_PACKAGES = {
    ("Linux", "x86_64"): "linux-x64",
    ("Linux", "aarch64"): "linux-arm64",
    ("Darwin", "x86_64"): "darwin-x64",
    ("Darwin", "arm64"): "darwin-arm64",
}


class CodexAcpNotFound(FileNotFoundError):
    """No codex-acp: set CODEX_ACP_BIN or run ``bash .ci/setup``."""


def pinned_codex_acp_version() -> str:
    return VERSION_FILE.read_text(encoding="utf-8").strip()


def codex_acp_binary() -> Path:
    """``$CODEX_ACP_BIN``, else the native binary of the pinned install, else ``codex-acp`` on PATH."""
    override = os.environ.get("CODEX_ACP_BIN")
    if override:
        if not Path(override).is_file():
            raise CodexAcpNotFound(f"CODEX_ACP_BIN={override} is not a file")
        return Path(override)
    package = _PACKAGES.get((platform.system(), platform.machine()))
    if package is not None:
        native = INSTALL_DIR / "node_modules" / "@zed-industries" / f"codex-acp-{package}" / "bin" / "codex-acp"
        if native.is_file():
            return native
    found = shutil.which("codex-acp")
    if found:
        return Path(found)
    raise CodexAcpNotFound(
        "no codex-acp: run `bash .ci/setup` (installs the pinned @zed-industries/codex-acp into "
        ".acp-agents/) or set CODEX_ACP_BIN to a codex-acp executable"
    )


def write_codex_acp_home(server: ResponsesServer, path: str | Path, **overrides: Any) -> Path:
    """A ``CODEX_HOME`` for codex-acp on ``server``: approvals on request, ``update_plan`` on."""
    settings: dict[str, Any] = {
        "model": CODEX_ACP_MODEL,
        "approval_policy": "on-request",
        "tools": {"update_plan": {"enabled": True}},
    }
    settings.update(overrides)
    return server.write_codex_home(path, **settings)


__all__ = ["CodexAcpNotFound", "codex_acp_binary", "pinned_codex_acp_version", "write_codex_acp_home"]
