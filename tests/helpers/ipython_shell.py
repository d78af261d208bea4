"""A real IPython shell with the codex_nb extension loaded, for the magics tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config as TraitletsConfig


def codex_shell() -> Iterator[InteractiveShell]:
    """Yield a fresh shell with ``%load_ext codex_nb``; unload and clear it afterwards."""
    config = TraitletsConfig()
    config.HistoryManager.enabled = False  # no history thread left behind per test
    ip = InteractiveShell.instance(config=config)
    ip.run_line_magic("load_ext", "codex_nb")
    try:
        yield ip
    finally:
        ip.run_line_magic("unload_ext", "codex_nb")
        InteractiveShell.clear_instance()
        gc.collect()  # subprocess transports (the real Codex's app-server), here and not in a later module
