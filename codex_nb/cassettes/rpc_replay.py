"""Replay a recorded conversation in place of the process: no binary is started or needed.

``ReplayedProcess`` stands where ``codex_nb._process.ChildProcess`` stands (stdin, stdout,
``returncode``, ``wait``, ``end``...), so the app-server client and the ACP client run their
real readers, parsers and handlers on the recorded lines. Its peer plays the recorded
messages up to the next line codex_nb sent when recording, then waits until codex_nb sends
it again: the order of the recording is kept, and everything a message caused comes after
it. What codex_nb sends is compared with the recording after normalisation (request ids,
the client's version, temp paths, uuids, timestamps); an answer to a server request (an
approval, a question) is answered by the same policy or widget as live and must equal the
recorded answer. The first difference ends the replay with a ``CassetteMismatch`` that
names the cassette line, what was recorded and what was sent, and how to re-record.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, cast

from .._process import StderrTail
from ..errors import CassetteError
from .mismatch_diff import short_diff
from .normalise import normaliser
from .conversation import Conversation
from .places import Places

log = logging.getLogger("codex_nb.cassette.replay")

VOLATILE_KEYS = frozenset({"clientInfo", "client_info", "clientCapabilities"})
"""Keys whose values are codex_nb's own version facts: a newer codex_nb replays an older cassette.
``clientCapabilities`` is what codex_nb offers an ACP agent (a newer one offers more, e.g. form
elicitation): the recorded agent's side is replayed as recorded, and what codex_nb answers it is
still compared line by line."""
_PREVIEW = 300


class CassetteMismatch(CassetteError):
    """What codex_nb sent during a replay differs from the recorded conversation."""


def _key(message: dict[str, Any]) -> tuple[str, Any]:
    if "method" in message:
        return ("request" if "id" in message else "notification", message["method"])
    return ("response", message.get("id"))


def _preview(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "..."


class ReplayPeer:
    """The recorded side of one conversation, fed to a reader and checked against a writer."""

    def __init__(self, conversation: Conversation, places: Places, *, who: str, limit: int) -> None:
        self.conversation = conversation
        self.places = places
        self.who = who
        self.reader = asyncio.StreamReader(limit=limit)
        self.failure: CassetteMismatch | None = None
        self.on_failure: Callable[[CassetteMismatch], None] = lambda _err: None
        self._entries = [(i, e) for i, e in enumerate(conversation.entries) if not ({"meta", "file"} & e.keys())]
        self._cursor = 0
        self._block: list[tuple[int, dict[str, Any]]] = []
        self._ids: dict[Any, Any] = {}
        self._normal = normaliser(keys=())
        self._loop: asyncio.AbstractEventLoop
        self._scheduled = False
        self._ended = False
        self.replayed = 0
        """Recorded messages played or matched so far."""

    @property
    def finished(self) -> bool:
        return self._cursor >= len(self._entries) and not self._block

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._pump()

    # -- the peer's lines ---------------------------------------------------------------------
    def _pump(self) -> None:
        """Play the recorded lines up to codex_nb's next one, one line per loop turn.

        One at a time, as a live peer's lines arrive: what a line wakes (the coroutine
        awaiting a response) runs before the next line is read, so a replay does not take
        the client down paths the live run never took."""
        if self._scheduled or self._ended:
            return
        self._scheduled = True
        self._loop.call_soon(self._play_one)

    def _play_one(self) -> None:
        self._scheduled = False
        if self._step():
            self._pump()

    def _step(self) -> bool:
        """Play one recorded line, or gather codex_nb's next lines; True if there may be more to play."""
        if self._ended or self._block or self._cursor >= len(self._entries):
            return False
        _index, entry = self._entries[self._cursor]
        if "send" in entry:
            while self._cursor < len(self._entries) and "send" in self._entries[self._cursor][1]:
                self._block.append((self._entries[self._cursor][0], self._entries[self._cursor][1]["send"]))
                self._cursor += 1
            return False
        self._cursor += 1
        self.replayed += 1
        if "recv_raw" in entry:
            self.reader.feed_data(entry["recv_raw"].encode("utf-8") + b"\n")
        else:
            message = self.places.from_cassette(entry["recv"])
            rpc_id = message.get("id")
            if "method" not in message and isinstance(rpc_id, (int, str)) and rpc_id in self._ids:
                message = {**message, "id": self._ids[rpc_id]}
            self.reader.feed_data(json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n")
        return True

    # -- codex_nb's lines ---------------------------------------------------------------------
    def sent(self, line: bytes) -> None:
        """One line codex_nb wrote; raises ``CassetteMismatch`` if the recording has another there."""
        if self.failure is not None:
            return  # the replay already ended; later lines have no peer
        try:
            message = json.loads(line)
        except ValueError:
            message = line.decode("utf-8", "replace")
        if not isinstance(message, dict):
            self._fail(None, message, f"codex_nb sent a line that is not a JSON-RPC object: {_preview(message)}")
        while not self._block and self._step():
            pass  # codex_nb is ahead of the recorded lines before its own: they come first, at once
        if not self._block:
            self._fail(
                None,
                message,
                f"the recording ends here (all {len(self._entries)} recorded messages were replayed), but "
                f"codex_nb sent {self._describe(message)}: {_preview(message)}",
            )
        wanted = _key(message)
        chosen = next((pos for pos, (_i, rec) in enumerate(self._block) if _key(rec) == wanted), 0)
        index, recorded = self._block[chosen]
        self.places.learn(recorded, message)
        if self._comparable(recorded) != self._comparable(self.places.normalise(message)):
            self._fail(index, message, self._difference(index, recorded, message))
        del self._block[chosen]
        self.replayed += 1
        if wanted[0] == "request" and isinstance(recorded.get("id"), (int, str)):
            self._ids[recorded["id"]] = message.get("id")
        if not self._block:
            self._pump()

    def _comparable(self, message: dict[str, Any]) -> Any:
        body = {k: v for k, v in message.items() if not (k == "id" and "method" in message)}
        return self._normal(_without(body, VOLATILE_KEYS))

    def _describe(self, message: Any) -> str:
        if not isinstance(message, dict):
            return "a line"
        kind, name = _key(message)
        if kind != "response":
            return f"the {name} {kind}"
        request = self._server_request(name)
        what = f"the server request {request} (JSON-RPC id {name})" if request else f"JSON-RPC id {name}"
        return f"an answer to {what}"

    def _server_request(self, rpc_id: Any) -> str | None:
        for entry in self.conversation.entries:
            recv = entry.get("recv")
            if isinstance(recv, dict) and recv.get("id") == rpc_id and "method" in recv:
                return str(recv["method"])
        return None

    def _difference(self, index: int, recorded: dict[str, Any], message: dict[str, Any]) -> str:
        kind, name = _key(recorded)
        if kind == "response":
            request = self._server_request(name) or "?"
            head = (
                f"codex_nb's answer to the server request {request} (JSON-RPC id {name}) is not the recorded one: "
                f"recorded {_preview(recorded.get('result', recorded.get('error')))}, answered now "
                f"{_preview(message.get('result', message.get('error')))}"
            )
            if _key(message) != _key(recorded):
                head = (
                    f"the recording has codex_nb's answer to the server request {request} (JSON-RPC id {name}) "
                    f"here, but codex_nb sent {self._describe(message)}"
                )
        elif _key(message) != _key(recorded):
            head = f"the recording has codex_nb's {name} {kind} here, but codex_nb sent {self._describe(message)}"
        else:
            head = f"codex_nb's {name} {kind} differs from the recorded one"
        diff = short_diff(self._comparable(recorded), self._comparable(self.places.normalise(message)))
        return f"{head}\n{diff}"

    def _fail(self, index: int | None, message: Any, what: str) -> None:
        conversation = self.conversation
        line = None if index is None else conversation.line_of(index)
        where = f"cassette {conversation.path}" + ("" if line is None else f", line {line}")
        error = CassetteMismatch(
            f"{where}: {what}\nThe replay stopped there (record_mode={conversation.record_mode!r} replays only: "
            f"nothing reaches {self.who}). If the notebook changed on purpose, re-record the cassette with "
            f"record_mode='all'.",
            path=conversation.path,
            line=line,
        )
        self.failure = error
        log.info("%s", error)  # the caller, or the turn that fails with it, shows it
        self.end()
        self.on_failure(error)
        raise error

    def end(self) -> None:
        if not self._ended:
            self._ended = True
            self.reader.feed_eof()


def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


class _ReplayWriter:
    """The stdin of a replayed process: every complete line goes to the peer."""

    def __init__(self, peer: ReplayPeer) -> None:
        self._peer = peer
        self._buffer = bytearray()
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionResetError("the replayed process's stdin is closed")
        self._buffer += data
        while (end := self._buffer.find(b"\n")) >= 0:
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if line.strip():
                self._peer.sent(line)

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True

    async def wait_closed(self) -> None:
        return None


class ReplayedProcess:
    """Stands in for ``ChildProcess``: the recorded conversation instead of a program.

    ``pid`` is None (no process exists, so nothing can be signalled); ``returncode`` is 0
    once ended, 1 when the replay stopped at a mismatch (``replay_failure`` says why)."""

    pid = None
    supervised = False

    def __init__(self, conversation: Conversation, places: Places, *, who: str, limit: int) -> None:
        self.argv = [f"(replay of {conversation.path})"]
        self.peer = ReplayPeer(conversation, places, who=who, limit=limit)
        self.peer.on_failure = self._failed
        self.stdout: asyncio.StreamReader | None = self.peer.reader
        self.stdin: asyncio.StreamWriter | None = cast(asyncio.StreamWriter, _ReplayWriter(self.peer))
        self.stderr = StderrTail()
        self._returncode: int | None = None
        self._exited = asyncio.Event()
        self.peer.start()

    @property
    def replay_failure(self) -> CassetteMismatch | None:
        return self.peer.failure

    @property
    def returncode(self) -> int | None:
        return self._returncode

    def _failed(self, error: CassetteMismatch) -> None:
        self.stderr.add(str(error).encode("utf-8"))
        self._finish(1)

    def _finish(self, code: int) -> None:
        if self._returncode is None:
            self._returncode = code
        self.peer.end()
        if self.stdin is not None:
            self.stdin.close()
        self._exited.set()

    async def wait(self, timeout: float | None = None) -> int | None:
        try:
            await asyncio.wait_for(self._exited.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        return self._returncode

    async def stderr_drained(self, timeout: float = 2.0) -> None:
        return None

    def close_stdin(self) -> None:
        self._finish(0)

    def terminate(self) -> None:
        self._finish(0)

    def kill_now(self) -> None:
        self._finish(0)

    async def end(self, *, grace: float = 2.0, stdin_grace: float | None = None, gentle: bool = True) -> int | None:
        self._finish(0)
        return self._returncode

    def __repr__(self) -> str:
        return f"<ReplayedProcess {self.peer.conversation.path} replayed={self.peer.replayed}>"


def restore_files(conversation: Conversation, places: Places, *, inside: str) -> list[str]:
    """Write the peer's recorded files (a thread's rollout) that fall under ``inside`` and are missing."""
    import os

    root = os.path.abspath(inside)
    written = []
    for entry in conversation.entries:
        recorded = entry.get("file")
        if not isinstance(recorded, dict):
            continue
        path = os.path.abspath(places.from_cassette(recorded["path"]))
        if os.path.commonpath([root, path]) != root or os.path.lexists(path):
            continue  # never outside the folder the caller gave, never over a file
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "x", encoding="utf-8") as out:
            out.write(places.from_cassette(recorded["text"]))
        written.append(path)
    return written
