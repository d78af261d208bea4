"""The release smoke suite's binaries: ``CODEX_NB_COMPAT_BINARIES`` lists native Codex executables
(``os.pathsep``-separated, as ``bash .ci/compat`` passes them); every test runs once per binary, its
id the release (``codex --version``). Without the variable the suite is skipped: ``bash .ci/compat``
installs the releases and runs it (``.ci/test`` does so for the oldest release and the pin)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_nb.app_server.binary import binary_version

BINARIES_VAR = "CODEX_NB_COMPAT_BINARIES"


def compat_binaries() -> list[Path]:
    return [Path(p) for p in os.environ.get(BINARIES_VAR, "").split(os.pathsep) if p.strip()]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "release_binary" not in metafunc.fixturenames:
        return
    binaries = compat_binaries()
    if not binaries:
        metafunc.parametrize(
            "release_binary",
            [pytest.param(None, marks=pytest.mark.skip(reason=f"{BINARIES_VAR} is not set: run bash .ci/compat"))],
            ids=["no-release"],
        )
        return
    metafunc.parametrize("release_binary", binaries, ids=[binary_version(b) for b in binaries])


@pytest.fixture(autouse=True)
def collect_garbage_here() -> Iterator[None]:
    yield
    gc.collect()
