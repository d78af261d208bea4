"""Fixtures for the app-server tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def collect_garbage_here() -> Iterator[None]:
    """Collect these modules' cyclic garbage (subprocess transports, closed loops' futures) right
    after each test, not at a random allocation in a later module."""
    yield
    gc.collect()
