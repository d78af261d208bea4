"""Shared fixtures: a fresh session per test, and a check that no task is left behind."""

from __future__ import annotations

import asyncio

import pytest

import codex_nb as cx


@pytest.fixture
def session() -> cx.Session:
    return cx.Session()


@pytest.fixture
async def no_leaked_tasks():
    """Fails the test if it leaves asyncio tasks running."""
    before = asyncio.all_tasks()
    yield
    await asyncio.sleep(0)
    leaked = {t for t in asyncio.all_tasks() - before if not t.done() and t is not asyncio.current_task()}
    assert not leaked, f"tasks left running: {leaked}"
