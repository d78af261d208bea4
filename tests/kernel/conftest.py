"""One real kernel per module for the tests that ask for ``kernel``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from helpers.kernels import started_kernel


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    with started_kernel() as client:
        yield client
