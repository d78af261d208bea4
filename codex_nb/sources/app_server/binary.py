"""Find the native ``codex`` binary and check that it speaks the protocol we were built for.

Resolution order: ``$CODEX_BIN``; the project's pinned npm install (``.codex-ref/`` in the
checkout, the NATIVE binary inside ``@openai/codex-linux-x64``, not the node launcher, so
killing its process group really ends it); ``codex`` on ``PATH``. ``codex_nb.testing``
reuses this resolver.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

from ..._process import run_sync
from ...errors import CodexNbError

PROTOCOL_VERSION = "0.169.0"
"""The Codex version whose ``generate-json-schema --experimental`` output this client uses."""
NPM_PACKAGE = "@openai/codex"
INSTALL_HINT = (
    f"install it with `npm install {NPM_PACKAGE}@{PROTOCOL_VERSION}` and set CODEX_BIN to the native binary "
    f"(node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex on Linux x64), "
    f"or run .ci/setup in a codex_nb checkout to get the pinned install in .codex-ref/"
)
_VERSION_RE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class CodexBinaryError(CodexNbError):
    """No usable ``codex`` binary: missing, not executable, or older than the protocol."""


def _triple() -> tuple[str, str]:
    machine = platform.machine().lower()
    arch = "arm64" if machine in ("aarch64", "arm64") else "x64"
    rust = "aarch64" if arch == "arm64" else "x86_64"
    return f"@openai/codex-linux-{arch}", f"{rust}-unknown-linux-musl"


def pinned_install_roots() -> list[Path]:
    """Folders that may hold the pinned npm install (``node_modules`` inside)."""
    roots = []
    env = os.environ.get("CODEX_NB_CODEX_REF")
    if env:
        roots.append(Path(env))
    here = Path(__file__).resolve()
    for parent in here.parents:  # an editable checkout: <repo>/codex_nb/sources/app_server/binary.py
        if (parent / "pyproject.toml").exists():
            roots.append(parent / ".codex-ref")
            break
    return roots


def pinned_binary() -> Path | None:
    package, triple = _triple()
    for root in pinned_install_roots():
        candidate = root / "node_modules" / package / "vendor" / triple / "bin" / "codex"
        if candidate.is_file():
            return candidate
    return None


def codex_binary() -> Path:
    """The native Codex binary: ``$CODEX_BIN``, else the pinned install, else ``PATH``."""
    env = os.environ.get("CODEX_BIN")
    if env:
        path = Path(env).expanduser()
        if not path.is_file() or not os.access(path, os.X_OK):
            raise CodexBinaryError(
                f"CODEX_BIN={env!r} is not an executable file; fix the path or unset it. To get Codex: {INSTALL_HINT}"
            )
        return path
    pinned = pinned_binary()
    if pinned is not None:
        return pinned
    found = shutil.which("codex")
    if found:
        return Path(found)
    raise CodexBinaryError(
        f"no Codex binary found (CODEX_BIN is unset, no pinned install, no `codex` on PATH); {INSTALL_HINT}"
    )


def parse_version(text: str) -> tuple[int, int, int] | None:
    match = _VERSION_RE.search(text)
    return None if match is None else (int(match[1]), int(match[2]), int(match[3]))


@lru_cache(maxsize=16)
def binary_version(path: Path) -> str:
    """``codex --version`` -> ``0.169.0`` (raises ``CodexBinaryError`` if it cannot be read)."""
    try:
        done = run_sync([str(path), "--version"], timeout=30)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CodexBinaryError(f"cannot run {path} --version: {err}; {INSTALL_HINT}") from None
    version = parse_version(done.stdout)
    if done.returncode != 0 or version is None:
        raise CodexBinaryError(
            f"{path} --version did not print a version (exit {done.returncode}, "
            f"output {done.stdout.strip()!r} {done.stderr.strip()[:200]!r}); {INSTALL_HINT}"
        )
    return ".".join(map(str, version))


def check_version(path: Path) -> str:
    """The binary's version; older than ``PROTOCOL_VERSION`` is a ``CodexBinaryError``."""
    version = binary_version(path)
    if parse_version(version) < parse_version(PROTOCOL_VERSION):  # type: ignore[operator]  # both parse (not None)
        raise CodexBinaryError(
            f"{path} is Codex {version}, older than {PROTOCOL_VERSION}, the app-server protocol "
            f"codex_nb was built against; {INSTALL_HINT}"
        )
    return version
