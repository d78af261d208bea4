"""A JSON-RPC conversation as a cassette: every line both ways, in the order codex_nb saw them.

One interaction per message, so a mismatch names the file's line:

* ``{"meta": {...}}``: what the peer reported about itself once (the Codex version), first.
* ``{"send": message}``: a line codex_nb wrote to the peer's stdin (a request, a
  notification, an answer to a server request).
* ``{"recv": message}``: a line the peer wrote to its stdout; ``{"recv_raw": text}`` for one
  that was not a JSON object (replayed as it came, so codex_nb's report of it is too).
* ``{"file": {"path": ..., "text": ...}}``: a file the peer wrote that codex_nb reads back
  (a Codex thread's rollout), restored on replay.

A conversation is recorded whole: unlike HTTP requests, its messages are not independent
(the peer's state comes from every message before), so it is written once when the process
ends, atomically, and replayed from the start. ``new_episodes`` (replay what matches,
record the rest) cannot apply to it and is refused with that reason.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Any

from .._records import record
from ..errors import CassetteError
from . import format as fmt
from . import store
from .modes import check_record_mode

KIND = "jsonrpc"
DIRECTIONS = ("send", "recv", "recv_raw", "meta", "file")
MAX_MESSAGES = 200_000
"""Messages kept for one recording; a peer that sends more ends the recording with an error."""
MAX_FILE_CHARS = 8 * 1024 * 1024
"""The largest peer-written file (a rollout) kept in a cassette."""


def check_line(interaction: dict[str, Any]) -> str | None:
    """The problem with one interaction line, or None (run on every line at load)."""
    if len(interaction) != 1:
        return f"a JSON-RPC cassette line holds exactly one of {', '.join(DIRECTIONS)}, got keys {sorted(interaction)}"
    ((key, value),) = interaction.items()
    if key not in DIRECTIONS:
        return f"unknown entry {key!r} (a JSON-RPC cassette line is one of {', '.join(DIRECTIONS)})"
    if key == "recv_raw":
        return None if isinstance(value, str) else "recv_raw must be the text of the line"
    if not isinstance(value, dict):
        return f"{key} must be a JSON object, got {type(value).__name__}"
    if key == "file" and not (isinstance(value.get("path"), str) and isinstance(value.get("text"), str)):
        return "file needs a path and a text (both strings)"
    return None


@record(kw_only=True)
class Conversation:
    """A conversation read from a cassette, or the one being recorded."""

    path: Path
    record_mode: str
    replaying: bool
    entries: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    codex_nb_version: str = ""

    def line_of(self, index: int) -> int:
        """The file line of ``entries[index]`` (line 1 is the header)."""
        return index + 2


def open_conversation(path: str | os.PathLike[str], record_mode: Any, *, who: str) -> Conversation:
    """Read the cassette to replay, or prepare a recording, as ``record_mode`` says."""
    mode = check_record_mode(record_mode)
    where = Path(path).expanduser()
    if mode == "new_episodes":
        raise CassetteError(
            f"record_mode='new_episodes' replays what matches and records the rest, which a {who} conversation "
            f"cannot do (its state comes from every message before); use 'once' (record a missing cassette, "
            f"else replay), 'none' (replay only) or 'all' (record again)",
            path=where,
        )
    exists = store.check_path(where, mode, example="codex.cassette.jsonl")
    if mode == "all" or not exists:
        return Conversation(path=where, record_mode=mode, replaying=False)
    header, entries = fmt.read(where, kind=KIND, validate=check_line)
    conversation = Conversation(
        path=where, record_mode=mode, replaying=True, entries=entries, codex_nb_version=header.codex_nb_version
    )
    for entry in entries:
        if "meta" in entry:
            conversation.meta.update(entry["meta"])
    return conversation


def save(conversation: Conversation) -> None:
    """Write the recorded conversation, replacing the file atomically (a blocking call: run it in a thread)."""
    if len(conversation.entries) > MAX_MESSAGES:
        raise CassetteError(
            f"the conversation recorded for {conversation.path} has {len(conversation.entries)} messages, over "
            f"the {MAX_MESSAGES} one cassette keeps; record a shorter session",
            path=conversation.path,
        )
    data = fmt.dump(fmt.Header(kind=KIND), conversation.entries)
    if len(data) > fmt.MAX_FILE_BYTES:
        raise CassetteError(
            f"the conversation recorded for {conversation.path} is {len(data) // fmt.MIB} MiB, over the "
            f"{fmt.MAX_FILE_BYTES // fmt.MIB} MiB one cassette may hold; record a shorter session",
            path=conversation.path,
        )
    store.replace_file(conversation.path, data)
