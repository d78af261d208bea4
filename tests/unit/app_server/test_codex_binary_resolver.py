"""One resolver for the Codex and codex-acp binaries: the runtime (``cx.CodexAppServer``) and the
test helpers (``codex_nb.testing``) accept and refuse the same paths with the same texts.

Every bad path is a real file-system object in ``tmp_path`` (a file without the executable bit,
a directory, a dangling symlink, an npm install laid out for another platform, a launcher whose
platform package is missing); the good cases include the real pinned binary.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import codex_nb as cx
import codex_nb.app_server as app_server
from codex_nb._process import npm_binary
from codex_nb.app_server import binary
from codex_nb.testing import CodexAcpNotFound, CodexNotFound, codex_acp_binary, pinned_codex_version
from codex_nb.testing import codex_binary as helpers_codex_binary
from codex_nb.testing.acp_agents import pinned_codex_acp_version
from helpers.paths import ROOT as REPO

VERSION = binary.protocol_version()
SUFFIX, TRIPLE = npm_binary.current_platform() or ("linux-x64", "x86_64-unknown-linux-musl")
OTHER_SUFFIX = "darwin-arm64" if SUFFIX != "darwin-arm64" else "linux-x64"


@pytest.fixture(autouse=True)
def no_outside_binaries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's CODEX_BIN / CODEX_NB_CODEX_REF must not decide these outcomes."""
    for name in ("CODEX_BIN", "CODEX_NB_CODEX_REF", "CODEX_ACP_BIN"):
        monkeypatch.delenv(name, raising=False)


def executable(path: Path, text: str = "#!/bin/sh\necho 'codex-cli 9.9.9'\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def npm_install(root: Path, *, suffix: str = SUFFIX, native: bool = True) -> tuple[Path, Path]:
    """An npm install of @openai/codex as npm lays it out: (the .bin launcher link, the native binary)."""
    node_modules = root / "node_modules"
    launcher = executable(node_modules / "@openai" / "codex" / "bin" / "codex.js", "#!/usr/bin/env node\n")
    link = node_modules / ".bin" / "codex"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path("..") / "@openai" / "codex" / "bin" / "codex.js")
    assert link.resolve() == launcher.resolve()
    triple = dict(npm_binary.PLATFORMS.values())[suffix]
    native_path = node_modules / "@openai" / f"codex-{suffix}" / "vendor" / triple / "bin" / "codex"
    if native:
        executable(native_path)
    else:
        (node_modules / "@openai" / f"codex-{suffix}").mkdir()
    return link, native_path


def both_refuse(match: str) -> str:
    """The runtime's and the testing resolver's errors: the same text, each its own class."""
    with pytest.raises(cx.app_server.CodexBinaryError) as runtime:
        binary.codex_binary()
    with pytest.raises(CodexNotFound) as testing:
        helpers_codex_binary()
    message = str(runtime.value)
    assert str(testing.value) == message
    assert isinstance(testing.value, FileNotFoundError) and isinstance(testing.value, cx.app_server.CodexBinaryError)
    assert re.search(match, message), message
    assert "\n" not in message  # one line: it is also a skip reason
    # what to do, every time: the override, the checkout's setup, the exact npm package and version
    assert "set CODEX_BIN to the native codex executable" in message
    assert f"`npm install @openai/codex@{VERSION}`" in message and "bash .ci/setup" in message
    return message


# -- CODEX_BIN: each way a path can be wrong -------------------------------------------------


def test_a_file_without_the_executable_bit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "codex"
    plain.write_text("#!/bin/sh\n")
    monkeypatch.setenv("CODEX_BIN", str(plain))
    both_refuse(rf"^CODEX_BIN={re.escape(str(plain))} is not executable \(chmod \+x {re.escape(str(plain))}\)")


def test_a_directory_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    folder.chmod(0o755)  # a directory is "executable" too: the check must not stop at os.access
    monkeypatch.setenv("CODEX_BIN", str(folder))
    both_refuse(r"is a directory, not an executable file")


def test_a_broken_symlink_is_refused_naming_its_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = tmp_path / "codex"
    link.symlink_to(tmp_path / "gone" / "codex")
    monkeypatch.setenv("CODEX_BIN", str(link))
    both_refuse(rf"is a broken symlink \(to {re.escape(str(tmp_path / 'gone' / 'codex'))}\)")


def test_a_missing_path_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_BIN", str(tmp_path / "missing"))
    both_refuse(r"CODEX_BIN=.*missing does not exist")


def test_an_executable_file_is_used_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = executable(tmp_path / "codex")
    monkeypatch.setenv("CODEX_BIN", str(fake))
    assert binary.codex_binary() == helpers_codex_binary() == fake


# -- the launcher and the native binary ------------------------------------------------------


def test_the_npm_launcher_is_followed_to_its_native_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link, native = npm_install(tmp_path)
    monkeypatch.setenv("CODEX_BIN", str(link))
    assert binary.codex_binary() == helpers_codex_binary() == native
    # codex on PATH that is the launcher (a global npm install): the same
    monkeypatch.delenv("CODEX_BIN")
    monkeypatch.setattr(binary, "_CHECKOUT", tmp_path / "no-checkout")  # no pinned install either
    monkeypatch.setenv("PATH", str(link.parent))
    assert binary.codex_binary() == helpers_codex_binary() == native


def test_a_launcher_without_its_platform_package_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link, _native = npm_install(tmp_path, native=False)
    monkeypatch.setenv("CODEX_BIN", str(link))
    both_refuse(
        rf"is the node launcher of @openai/codex, not the native codex, and its platform package "
        rf"@openai/codex-{SUFFIX} is not installed beside it \(looked in {re.escape(str(tmp_path / 'node_modules'))}\)"
    )


# -- the pinned install ----------------------------------------------------------------------


def test_a_pinned_install_for_another_platform_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    npm_install(tmp_path / "ref", suffix=OTHER_SUFFIX)
    monkeypatch.setenv("CODEX_NB_CODEX_REF", str(tmp_path / "ref"))
    both_refuse(
        rf"the pinned install in {re.escape(str(tmp_path / 'ref'))} has @openai/codex-{OTHER_SUFFIX}, "
        rf"not @openai/codex-{SUFFIX} that this machine \({platform.system()} {platform.machine()}\) needs"
    )


def test_a_pinned_install_is_used_before_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _link, native = npm_install(tmp_path / "ref")
    executable(tmp_path / "path" / "codex")
    monkeypatch.setenv("CODEX_NB_CODEX_REF", str(tmp_path / "ref"))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    assert binary.codex_binary() == helpers_codex_binary() == native == binary.pinned_binary()


def test_nothing_anywhere_lists_what_was_looked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(binary, "_CHECKOUT", tmp_path / "no-checkout")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    both_refuse(r"^no codex executable found \(CODEX_BIN is unset, no pinned install in none, no `codex` on PATH\)")


def test_a_machine_npm_has_no_build_for_is_told_to_set_codex_bin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    npm_install(tmp_path / "ref")
    monkeypatch.setenv("CODEX_NB_CODEX_REF", str(tmp_path / "ref"))
    monkeypatch.setattr(platform, "system", lambda: "SunOS")
    message = both_refuse(r"^@openai/codex has no native build for SunOS .* \(it has Linux x64, Linux arm64")
    assert "Darwin arm64" in message


# -- codex-acp: the same checks and texts ----------------------------------------------------


@pytest.mark.parametrize(
    "make, problem",
    [
        (lambda p: p.write_text("#!/bin/sh\n"), "is not executable"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.symlink_to(p.parent / "gone"), "is a broken symlink"),
    ],
)
def test_codex_acp_is_checked_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], object], problem: str
) -> None:
    path = tmp_path / "codex-acp"
    make(path)
    monkeypatch.setenv("CODEX_ACP_BIN", str(path))
    with pytest.raises(CodexAcpNotFound) as err:
        codex_acp_binary()
    message = str(err.value)
    assert message.startswith(f"CODEX_ACP_BIN={path} {problem}"), message
    assert f"`npm install @zed-industries/codex-acp@{pinned_codex_acp_version()}`" in message
    assert "set CODEX_ACP_BIN to the native codex-acp executable" in message and ".acp-agents/" in message


# -- the real pinned binary, and the version in one place ------------------------------------


@pytest.mark.requires_codex
def test_the_pinned_binary_is_the_native_one_and_speaks_the_protocol() -> None:
    found = binary.codex_binary()
    assert found == helpers_codex_binary() == binary.pinned_native_path(REPO / ".codex-ref")
    assert found.read_bytes()[:4] in (b"\x7fELF", b"\xcf\xfa\xed\xfe")  # a native executable, not codex.js
    assert binary.check_version(found) == VERSION
    out = subprocess.run([str(found), "--version"], capture_output=True, text=True, timeout=60).stdout
    assert VERSION in out


@pytest.mark.requires_acp_agent
def test_the_pinned_codex_acp_is_the_native_one() -> None:
    found = codex_acp_binary()
    assert found.parent.parent.name == f"codex-acp-{SUFFIX}"
    assert found.read_bytes()[:4] in (b"\x7fELF", b"\xcf\xfa\xed\xfe")


def test_the_protocol_version_has_one_source() -> None:
    schema = json.loads((REPO / "codex_nb/app_server/schema/protocol.json").read_text(encoding="utf-8"))
    assert VERSION == schema["codex_version"] == app_server.PROTOCOL_VERSION == binary.PROTOCOL_VERSION
    # the pinned reference install must be the version the protocol was generated from
    assert pinned_codex_version() == VERSION, "bump .ci/codex-version and regenerate the schema together"
    written = [p for p in (REPO / "codex_nb").rglob("*.py") if VERSION in p.read_text(encoding="utf-8")]
    assert not written, f"{VERSION} written out in {written}: read binary.protocol_version() instead"


def test_the_env_var_hint_is_one_line_for_every_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    for (system, arch), (suffix, triple) in npm_binary.PLATFORMS.items():
        monkeypatch.setattr(platform, "system", lambda system=system: system)
        monkeypatch.setattr(platform, "machine", lambda arch=arch: {"x64": "x86_64"}.get(arch, arch))
        assert f"node_modules/@openai/codex-{suffix}/vendor/{triple}/bin/codex" in binary.install_hint()
    assert os.linesep not in binary.install_hint()


# -- an explicit binary= gets the same checks ------------------------------------------------


async def test_an_explicit_binary_is_checked_like_codex_bin(tmp_path: Path) -> None:
    plain = tmp_path / "codex"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(
        cx.app_server.CodexBinaryError, match=rf"^binary={re.escape(str(plain))} is not executable \(chmod"
    ):
        await cx.CodexAppServer(binary=plain, codex_home=tmp_path).start()
    link, _native = npm_install(tmp_path / "npm", native=False)
    with pytest.raises(
        cx.app_server.CodexBinaryError, match=r"is the node launcher of @openai/codex, not the native codex"
    ):
        await cx.CodexAppServer(binary=link, codex_home=tmp_path).start()


@pytest.mark.requires_codex
def test_an_explicit_launcher_becomes_its_native_binary(tmp_path: Path) -> None:
    launcher = REPO / ".codex-ref" / "node_modules" / ".bin" / "codex"
    assert binary.checked_binary(launcher).resolve() == binary.pinned_native_path(REPO / ".codex-ref").resolve()


def test_a_folder_that_cannot_be_read_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    executable(locked / "codex")
    locked.chmod(0o000)
    try:
        monkeypatch.setenv("CODEX_BIN", str(locked / "codex"))
        if os.access(locked / "codex", os.F_OK):  # root reads through any mode: nothing to report
            assert binary.codex_binary() == locked / "codex"
        else:
            both_refuse(r"(cannot be inspected \(Permission denied\)|does not exist)")
    finally:
        locked.chmod(0o755)
