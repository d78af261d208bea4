"""Cassettes for the real agents: a JSON-RPC conversation over stdio recorded once, replayed offline.

``cx.CodexAppServer(cassette=...)`` and ``cx.AcpAgent(cassette=...)`` use this module; it
builds on the cassette core (``codex_nb.cassettes``: file format, record modes, scrubbing,
atomic writes) with the ``jsonrpc`` kind.

It stands on these modules of the package:

* ``conversation``: the kind's lines (``send``, ``recv``, ``meta``, ``file``) and opening a cassette.
* ``places``: run-dependent paths as placeholders, secrets masked.
* ``rpc_recorder``: keeping a live conversation and writing it once.
* ``rpc_replay``: ``ReplayedProcess``, which stands in for the process and checks what codex_nb sends.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .scrub import Scrubber, check_filters
from .conversation import Conversation, open_conversation
from .places import Places
from .rpc_recorder import Recorder
from .rpc_replay import CassetteMismatch, ReplayedProcess, restore_files

__all__ = ["CassetteMismatch", "RpcCassette", "ReplayedProcess"]


class RpcCassette:
    """One client's cassette: replay it (``replaying``) or record into it (``recorder``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        record_mode: Any,
        *,
        who: str,
        env: Mapping[str, str],
        named: Mapping[str, str | None],
        filters: Any = None,
    ) -> None:
        self.who = who
        self.conversation: Conversation = open_conversation(path, record_mode, who=who)
        scrubber = Scrubber(env=env, filters=check_filters(filters))
        self.places = Places(named=named, scrubber=scrubber)
        self.recorder: Recorder | None = None if self.replaying else Recorder(self.conversation, self.places)

    @property
    def replaying(self) -> bool:
        return self.conversation.replaying

    @property
    def meta(self) -> dict[str, Any]:
        return self.conversation.meta

    def recorded(self, method: str) -> bool:
        """Whether the recording has codex_nb sending ``method`` (a cassette recorded before codex_nb
        sent it replays without it)."""
        return any(
            isinstance(entry.get("send"), dict) and entry["send"].get("method") == method
            for entry in self.conversation.entries
        )

    def process(self, *, limit: int) -> ReplayedProcess:
        return ReplayedProcess(self.conversation, self.places, who=self.who, limit=limit)

    def restore_files(self, inside: str) -> list[str]:
        return restore_files(self.conversation, self.places, inside=inside)

    def __repr__(self) -> str:
        state = "replaying" if self.replaying else "recording"
        return f"<RpcCassette {self.conversation.path} {state}>"
