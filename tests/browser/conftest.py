"""Fixtures for browser tests: one JupyterLab server and one Chromium per session, a page per test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .harness import JupyterServer, chromium_missing_reason, launch_chromium


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    reason = chromium_missing_reason()  # raises in CI
    if reason is not None:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def jupyter_server(chromium: Any) -> Iterator[JupyterServer]:
    server = JupyterServer.create()
    with server:
        yield server


@pytest.fixture
def page(chromium: Any, jupyter_server: JupyterServer) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        yield page
    finally:
        context.close()
        jupyter_server.shutdown_kernels()
