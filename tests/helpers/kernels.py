"""A real ipykernel for a test (jupyter_client, no front end), and what a cell printed in it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, NamedTuple

from jupyter_client.manager import start_new_kernel


@contextlib.contextmanager
def started_kernel() -> Iterator[Any]:
    """A fresh python3 kernel's client; the kernel is shut down on exit."""
    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=120)
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
