"""The pinned ACP agent for tests and notebooks: npm ``@zed-industries/codex-acp``.

codex-acp is a native build of Codex with an ACP front (it links Codex itself and
needs no separate ``codex`` binary); it reads ``CODEX_HOME/config.toml``, so pointed
at a local ``ResponsesServer`` it runs whole prompts offline with no key. The version
lives in ``.ci/codex-acp-version``; ``.ci/setup`` installs it into ``.acp-agents/``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._process.npm_binary import NpmBinary, resolve
from .codex_ref import REPO_ROOT

if TYPE_CHECKING:
    from .responses_server import ResponsesServer

VERSION_FILE = REPO_ROOT / ".ci" / "codex-acp-version"
INSTALL_DIR = REPO_ROOT / ".acp-agents"
CODEX_ACP_MODEL = "gpt-5.4"
"""A model codex-acp 0.16.0 has metadata for (others make it print a fallback warning)."""


class CodexAcpNotFound(FileNotFoundError):
    """No usable codex-acp: set CODEX_ACP_BIN or run ``bash .ci/setup``."""


def pinned_codex_acp_version() -> str:
    """The pinned ``@zed-industries/codex-acp`` version (``.ci/codex-acp-version``)."""
    try:
        return VERSION_FILE.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise CodexAcpNotFound(f"{VERSION_FILE} is missing; it holds the pinned codex-acp version") from None


@lru_cache(maxsize=1)
def codex_acp_spec() -> NpmBinary:
    """How codex-acp is found: the same checks and error texts as the Codex binary's."""
    return NpmBinary(
        name="codex-acp",
        package="@zed-industries/codex-acp",
        env_var="CODEX_ACP_BIN",
        version=pinned_codex_acp_version(),
        native_path=lambda _triple: "bin/codex-acp",
        error=CodexAcpNotFound,
        setup_folder=".acp-agents",
    )


def codex_acp_binary() -> Path:
    """``$CODEX_ACP_BIN``, else the native binary of the pinned install, else ``codex-acp`` on PATH."""
    return resolve(codex_acp_spec(), [INSTALL_DIR])


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
