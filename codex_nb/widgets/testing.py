"""A recording comm for widget tests without a kernel.

``with recording_comms() as comms:`` makes every widget created inside the block open a
:class:`RecordingComm` that keeps the messages the kernel would publish, in order.
``comm.updates()`` are the state-update payloads; ``comm.deliver(data)`` plays a message
from the browser into the widget, as the kernel would.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import comm as comm_module
from comm.base_comm import BaseComm


class RecordingComm(BaseComm):
    """A comm whose published messages are kept in ``self.messages`` as ``(msg_type, data)``."""

    kernel = True  # ipywidgets only sends when the comm claims a kernel

    def __init__(self, **kwargs: Any) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        super().__init__(**kwargs)

    def publish_msg(
        self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> None:
        self.messages.append((msg_type, data or {}))

    def updates(self) -> list[dict[str, Any]]:
        """The ``state`` of every ``update`` message, oldest first."""
        return [data["state"] for kind, data in self.messages if kind == "comm_msg" and data.get("method") == "update"]

    def customs(self) -> list[dict[str, Any]]:
        """The content of every custom message sent to the views."""
        return [
            data["content"] for kind, data in self.messages if kind == "comm_msg" and data.get("method") == "custom"
        ]

    def opened_state(self) -> dict[str, Any]:
        """The state sent with ``comm_open``."""
        return next(data["state"] for kind, data in self.messages if kind == "comm_open")

    def deliver(self, data: dict[str, Any]) -> None:
        """Play a browser -> kernel comm message (e.g. ``{"method": "custom", "content": {...}}``)."""
        self.handle_msg({"content": {"comm_id": self.comm_id, "data": data}, "buffers": []})

    def send_custom(self, content: Any) -> None:
        """Play a ``model.send(content)`` from a view."""
        self.deliver({"method": "custom", "content": content})

    def request_state(self) -> None:
        """Play what a newly created view does: ask for the full state."""
        self.deliver({"method": "request_state"})


@contextlib.contextmanager
def recording_comms(comm_class: type[RecordingComm] = RecordingComm) -> Iterator[list[RecordingComm]]:
    """Widgets created inside the block get recording comms, appended to the yielded list."""
    created: list[RecordingComm] = []
    original = comm_module.create_comm

    def create(*args: Any, **kwargs: Any) -> RecordingComm:
        kwargs.setdefault("comm_id", uuid.uuid4().hex)
        made = comm_class(*args, **kwargs)
        created.append(made)
        return made

    comm_module.create_comm = create
    try:
        yield created
    finally:
        comm_module.create_comm = original
