"""Find the native ``codex`` binary and check that it speaks the protocol we were built for.

Resolution order: ``$CODEX_BIN``; the project's pinned npm install (``.codex-ref/`` in the
checkout, or ``$CODEX_NB_CODEX_REF``); ``codex`` on ``PATH``. The checks and error texts are
``codex_nb._process.npm_binary``'s, shared with ``codex_nb.testing`` so tests resolve exactly
the binary the runtime would.

The protocol version is the ``codex_version`` recorded in ``schema/protocol.json``: that file is
generated from the binary, so the version it names is, by construction, the one whose protocol
this client speaks.
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from .._process.capped import run_capped
from ..errors import CodexNbError
from .._process.npm_binary import NpmBinary, checked, native_in, pinned_in, resolve

NPM_PACKAGE = "@openai/codex"
# a part longer than 9 digits is no release number (and int() refuses past 4,300 digits)
_VERSION_RE = re.compile(r"(?<!\d)(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?!\d)")
_VERSION_OUTPUT_LIMIT = 16 * 1024
"""Bytes read from ``codex --version`` (it prints one short line); past it the program is killed."""
# <checkout>/codex_nb/app_server/binary.py: the checkout holds the pinned install
_CHECKOUT = Path(__file__).resolve().parents[2]


class CodexBinaryError(CodexNbError):
    """No usable ``codex`` binary: missing, not executable, the launcher only, or older than the protocol."""


@lru_cache(maxsize=1)
def protocol_version() -> str:
    """The Codex version whose ``generate-json-schema --experimental`` output this client uses."""
    from .schema import protocol

    return str(protocol()["codex_version"])


def __getattr__(name: str) -> str:
    # A module attribute read lazily: the schema file is only opened when someone asks.
    if name == "PROTOCOL_VERSION":
        return protocol_version()
    if name == "INSTALL_HINT":  # the constant this function replaced
        return install_hint()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def codex_spec() -> NpmBinary:
    """How ``codex`` is found and how to tell a person to install it."""
    return NpmBinary(
        name="codex",
        package=NPM_PACKAGE,
        env_var="CODEX_BIN",
        version=protocol_version(),
        native_path=lambda triple: f"vendor/{triple}/bin/codex",
        error=CodexBinaryError,
        setup_folder=".codex-ref",
    )


def install_hint() -> str:
    """What to do when no usable binary is found (one sentence, with the pinned version)."""
    return codex_spec().hint()


def pinned_install_roots() -> list[Path]:
    """Folders that may hold the pinned npm install (``node_modules`` inside)."""
    roots = []
    env = os.environ.get("CODEX_NB_CODEX_REF")
    if env:
        roots.append(Path(env).expanduser())
    if (_CHECKOUT / "pyproject.toml").is_file():  # an editable checkout, not site-packages
        roots.append(_CHECKOUT / ".codex-ref")
    return roots


def pinned_native_path(install_dir: Path) -> Path:
    """Where this machine's platform package puts the native binary under an npm install folder."""
    return native_in(codex_spec(), install_dir / "node_modules")


def pinned_binary() -> Path | None:
    """The native binary of the first pinned install, or None when there is none."""
    for root in pinned_install_roots():
        found = pinned_in(codex_spec(), root)
        if found is not None:
            return found
    return None


def codex_binary() -> Path:
    """The native Codex binary: ``$CODEX_BIN``, else the pinned install, else ``PATH``."""
    return resolve(codex_spec(), pinned_install_roots())


def checked_binary(path: Path) -> Path:
    """An explicitly given binary, checked as ``CODEX_BIN`` is (a launcher becomes its native binary)."""
    return checked(codex_spec(), path.expanduser(), f"binary={path}")


def parse_version(text: str) -> tuple[int, int, int] | None:
    """The first ``X.Y.Z`` in ``text`` (each part at most 9 digits), or None."""
    match = _VERSION_RE.search(text)
    return None if match is None else (int(match[1]), int(match[2]), int(match[3]))


def binary_version(path: Path) -> str:
    """``codex --version`` -> ``X.Y.Z`` (raises ``CodexBinaryError`` if it cannot be read).

    Cached by the file's identity (path, inode, size, modification time), not its path alone:
    after the upgrade an error recommends, the same path reports the new release."""
    try:
        info = os.stat(path)
    except OSError as err:
        raise CodexBinaryError(f"cannot run {path} --version: {err}; {install_hint()}") from None
    return _version_of(path, (info.st_ino, info.st_size, info.st_mtime_ns))


def _shown(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return repr(text[:200] + ("..." if len(text) > 200 else ""))


@lru_cache(maxsize=16)
def _version_of(path: Path, identity: tuple[int, int, int]) -> str:
    try:
        done = run_capped([str(path), "--version"], timeout=30, limit=_VERSION_OUTPUT_LIMIT)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CodexBinaryError(f"cannot run {path} --version: {err}; {install_hint()}") from None
    if done.overflowed:
        raise CodexBinaryError(
            f"{path} --version printed more than {_VERSION_OUTPUT_LIMIT} bytes (it was stopped), "
            f"not a version: it is not a Codex binary; {install_hint()}"
        )
    try:
        stdout = done.stdout.decode("utf-8")
    except UnicodeDecodeError as err:
        bad_at: int | None = err.start
    else:
        bad_at = None
    if bad_at is not None:  # raised here, out of the except: the message says it all
        raise CodexBinaryError(
            f"{path} --version printed bytes that are not UTF-8 (at byte {bad_at}: {_shown(done.stdout)}), "
            f"not a version: it is not a Codex binary; {install_hint()}"
        )
    version = parse_version(stdout)
    if done.returncode != 0 or version is None:
        raise CodexBinaryError(
            f"{path} --version did not print a version X.Y.Z (exit {done.returncode}, "
            f"output {_shown(done.stdout)} {_shown(done.stderr)}); {install_hint()}"
        )
    return ".".join(map(str, version))


class CodexVersionError(CodexBinaryError):
    """The binary is a Codex release outside the supported range (``version``, ``oldest``,
    ``newest``), or its app-server refused a method codex_nb relies on."""

    def __init__(self, message: str, *, version: str | None, oldest: str, newest: str) -> None:
        self.version = version
        self.oldest = oldest
        self.newest = newest
        super().__init__(message)


def supported_range() -> tuple[str, str]:
    """``(oldest, newest)``: the first and last Codex release codex_nb is checked against (the
    ``range`` of ``schema/protocol.json``, merged from those releases' schemas)."""
    from .schema import protocol

    span = protocol()["range"]
    return str(span["oldest"]), str(span["newest"])


def upgrade_hint() -> str:
    """How to get the newest supported release (one sentence)."""
    newest = supported_range()[1]
    return (
        f"install a supported release with `npm install -g {NPM_PACKAGE}@{newest}` "
        f"(or point CODEX_BIN at one, or pass CodexAppServer(binary=...))"
    )


class CodexVersionWarning(UserWarning):
    """The binary is a Codex release newer than the newest codex_nb is checked against: it runs
    (Codex's app-server protocol grows by additions), and what codex_nb does not know of it gets a
    ``CodexVersionError`` or a protocol error that names it."""


def check_version(path: Path) -> str:
    """The binary's version if codex_nb can drive it: a release of the supported range
    (``supported_range()``), or a newer one (``newer_release_note`` says what that means). An
    older release gets a ``CodexVersionError`` (a ``CodexBinaryError``) saying what was found, the
    range, and how to upgrade: it lacks methods codex_nb relies on."""
    version = binary_version(path)
    oldest, newest = supported_range()
    if parse_version(version) >= parse_version(oldest):  # type: ignore[operator]  # both parse
        return version
    raise CodexVersionError(
        f"{path} is Codex {version}, older than the releases codex_nb supports ({oldest} .. {newest}); "
        f"{upgrade_hint()}",
        version=version,
        oldest=oldest,
        newest=newest,
    )


def newer_release_note(version: str | None) -> str | None:
    """What a release newer than the checked range means, or None for a checked one. Codex ships
    weekly: refusing the release a person just installed would stop them for a protocol that
    usually only grew, so it runs with this note (a ``CodexVersionWarning``)."""
    if version is None:
        return None
    oldest, newest = supported_range()
    if parse_version(version) <= parse_version(newest):  # type: ignore[operator]  # both parse
        return None
    return (
        f"Codex {version} is newer than the releases codex_nb is checked against ({oldest} .. {newest}); "
        f"it runs, and a method or field codex_nb does not know gets an error naming it. To stay on a "
        f"checked release: `npm install -g {NPM_PACKAGE}@{newest}`"
    )
