"""Record a live conversation: every line both ways, scrubbed, in the order codex_nb saw them.

The client calls ``sent(message)`` as it writes a line and ``received(line)`` as it reads
one; nothing touches the disk until ``save()`` (when the process ends), which writes the
whole conversation atomically. Secrets are masked and run-dependent paths made
placeholders as each message is kept (``Places.to_cassette``), so no secret is ever held
for the file.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from ..errors import CassetteError
from . import format as fmt
from .conversation import MAX_FILE_CHARS, MAX_MESSAGES, Conversation, save
from .places import Places

log = logging.getLogger("codex_nb.cassette.record")


class Recorder:
    """Keeps one conversation as it happens and writes it once."""

    def __init__(self, conversation: Conversation, places: Places) -> None:
        self.conversation = conversation
        self.places = places
        self.overflow = False
        self.saved = False
        self._received_bytes = 0
        self._files: dict[str, Path] = {}

    def meta(self, **facts: Any) -> None:
        self.conversation.entries.append({"meta": self.places.to_cassette(facts)})

    def sent(self, message: dict[str, Any]) -> None:
        self._keep({"send": self.places.to_cassette(message)})

    def received(self, line: bytes | str) -> None:
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        text = text.rstrip("\r\n")
        self._received_bytes += len(text)
        if self._received_bytes > fmt.MAX_FILE_BYTES:  # a peer's flood is not kept in memory for a file too big
            self._overflowed(f"over {fmt.MAX_FILE_BYTES // fmt.MIB} MiB")
            return
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        if isinstance(message, dict):
            self._keep({"recv": self.places.to_cassette(message)})
        else:
            self._keep({"recv_raw": self.places.to_cassette(text)})

    def keep_file(self, path: str | Path) -> None:
        """A file the peer writes that codex_nb reads back later (a rollout): kept at ``save()``."""
        self._files[str(path)] = Path(path)

    def _keep(self, entry: dict[str, Any]) -> None:
        if self.overflow:
            return
        if len(self.conversation.entries) >= MAX_MESSAGES:
            self._overflowed(f"over {MAX_MESSAGES} messages")
            return
        self.conversation.entries.append(entry)

    def _overflowed(self, what: str) -> None:
        if not self.overflow:
            log.warning("the recording for %s is %s; it will not be written", self.path, what)
            self.overflow = True
            self.conversation.entries.clear()

    @property
    def path(self) -> Path:
        return self.conversation.path

    def _file_entries(self) -> list[dict[str, Any]]:
        entries = []
        for name, path in self._files.items():
            try:
                with path.open(encoding="utf-8", errors="replace") as f:
                    text = f.read(MAX_FILE_CHARS + 1)
            except OSError as err:
                log.info("not keeping %s in the cassette: %s", name, err)
                continue
            if len(text) > MAX_FILE_CHARS:
                log.warning("not keeping %s in the cassette: over %d characters", name, MAX_FILE_CHARS)
                continue
            entries.append({"file": {"path": self.places.to_cassette(name), "text": self.places.to_cassette(text)}})
        return entries

    def _write(self) -> None:
        if self.overflow:
            raise CassetteError(
                f"the recording for cassette {self.path} went over {MAX_MESSAGES} messages or "
                f"{fmt.MAX_FILE_BYTES // fmt.MIB} MiB, so it was not written (the old file, if any, is unchanged); "
                f"record a shorter session",
                path=self.path,
            )
        self.conversation.entries.extend(self._file_entries())
        save(self.conversation)

    async def save(self) -> None:
        """Write the cassette (once; off the event loop)."""
        if self.saved:
            return
        self.saved = True
        await asyncio.to_thread(self._write)
