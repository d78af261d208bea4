"""Start ``codex app-server`` through codex_nb's one child-process path (``codex_nb._process``).

The server and every command a turn runs (Codex starts each in its own session) end on
``close()``, when the server dies, at interpreter exit, at Jupyter kernel shutdown, and
when the kernel is killed outright; the server also exits on EOF of its stdin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .._process import ChildProcess, live_children, spawn

STREAM_LIMIT = 64 * 1024 * 1024
"""Largest single JSON-RPC line accepted from the server (a turn with huge items)."""


async def spawn_app_server(
    binary: Path, args: Sequence[str] = (), *, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> ChildProcess:
    return await spawn([str(binary), "app-server", *args], env=env, cwd=cwd, limit=STREAM_LIMIT)


def live_process_groups() -> list[int]:
    """Process groups of children this interpreter started and has not ended yet."""
    return sorted(child.pid for child in live_children())
