"""What ``codex --version`` prints is a peer's output: bytes that are not UTF-8, a version with
thousands of digits or output without end get one clear ``CodexBinaryError`` naming the binary,
and the version is read again when the file at the path changes (an upgrade in place). The
binaries are real executables written to a temporary folder."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from codex_nb.app_server import binary as binaries
from codex_nb.app_server.process import live_process_groups


def executable(tmp_path: Path, name: str, script: str) -> Path:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_output_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    path = executable(tmp_path, "codex", r"printf 'codex-cli \377\376 0.171.0\n'")
    with pytest.raises(binaries.CodexBinaryError) as caught:
        binaries.binary_version(path)
    message = str(caught.value)
    assert f"{path} --version printed bytes that are not UTF-8 (at byte 10" in message
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_a_version_of_5000_digits_is_no_version(tmp_path: Path) -> None:
    path = executable(tmp_path, "codex", "printf 'codex-cli 0.%s.0\\n' \"$(printf '9%.0s' $(seq 5000))\"")
    with pytest.raises(binaries.CodexBinaryError) as caught:
        binaries.binary_version(path)
    message = str(caught.value)
    assert f"{path} --version did not print a version X.Y.Z (exit 0, output 'codex-cli 0.999" in message
    assert len(message) < 1000  # the output is shown cut, not whole
    assert binaries.parse_version("1." + "2" * 5000 + ".3") is None


@pytest.mark.slow
def test_output_without_end_is_stopped_and_its_group_ended(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    path = executable(tmp_path, "codex", f"echo $$ > {pid_file}\nwhile :; do echo codex-cli; done")
    before = live_process_groups()
    started = time.monotonic()
    with pytest.raises(binaries.CodexBinaryError) as caught:
        binaries.binary_version(path)
    assert time.monotonic() - started < 10  # not the 30-second timeout
    assert f"{path} --version printed more than 16384 bytes (it was stopped)" in str(caught.value)
    with pytest.raises(ProcessLookupError):
        os.killpg(int(pid_file.read_text()), 0)
    assert live_process_groups() == before


def test_an_upgrade_in_place_is_read_again(tmp_path: Path) -> None:
    path = executable(tmp_path, "codex", "echo 'codex-cli 0.160.0'")
    assert binaries.binary_version(path) == "0.160.0"
    assert binaries.binary_version(path) == "0.160.0"  # cached: the same file
    path.write_text("#!/bin/sh\necho 'codex-cli 0.171.0'\n")  # same size, same path
    os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns + 1_000_000))
    assert binaries.binary_version(path) == "0.171.0"
    replaced = executable(tmp_path, "codex.new", "echo 'codex-cli 0.172.0'")
    os.replace(replaced, path)  # npm's way: a new file (a new inode) at the same path
    assert binaries.binary_version(path) == "0.172.0"
