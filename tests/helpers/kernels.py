"""A real ipykernel for a test (jupyter_client, no front end), and what a cell printed in it."""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any, NamedTuple

from jupyter_client.manager import KernelManager


def start_kernel(**start: Any) -> tuple[KernelManager, Any]:
    """A fresh python3 kernel (``start``: ``KernelManager.start_kernel``'s arguments, e.g. ``env``)
    and its ready client. It talks over IPC sockets, files jupyter_client removes at shutdown: over
    TCP jupyter_client picks free ports that the kernel binds only later, and a port another test's
    process took meanwhile killed the kernel at start ("Address already in use", a loaded CI run)."""
    ip = os.path.join(tempfile.gettempdir(), f"codex-nb-kernel-{uuid.uuid4().hex[:16]}")
    manager = KernelManager(kernel_name="python3", transport="ipc", ip=ip)
    manager.start_kernel(**start)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
    except BaseException:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
        raise
    return manager, client


@contextlib.contextmanager
def started_kernel() -> Iterator[Any]:
    """A fresh python3 kernel's client; the kernel is shut down on exit."""
    manager, client = start_kernel()
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


class CellOutput(NamedTuple):
    text: str  # the streams, and an error's traceback
    kinds: list[str]  # every iopub message type the cell sent


def run_cell(client: Any, code: str) -> CellOutput:
    """Run ``code``, which must succeed."""
    chunks: list[str] = []
    kinds: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        kinds.append(msg["msg_type"])
        if msg["msg_type"] == "stream":
            chunks.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            chunks.append("\n".join(msg["content"]["traceback"]))

    reply = client.execute_interactive(code, timeout=60, output_hook=hook)
    assert reply["content"]["status"] == "ok", reply["content"]
    return CellOutput("".join(chunks), kinds)
