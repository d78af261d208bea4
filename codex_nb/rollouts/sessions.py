"""List a Codex home's saved sessions fast: ``cx.codex_sessions()``.

A person's ``~/.codex/sessions`` holds thousands of rollouts, some hundreds of MiB, so the list
reads only what its columns need: the head of each file (the ``session_meta`` line, the first
``turn_context`` and the first prompt) and a bounded tail (the last model, the last accepted
``update_plan``, how the last turn ended). A file small enough to fit both windows is read whole,
and its turn count is exact; for a larger one the turns seen in the windows are a lower bound
(``turns_exact`` is False). Compressed rollouts (``.jsonl.zst``, ``.jsonl.gz``) are inflated as a
stream up to ``MAX_INFLATED``. Lines are picked by cheap byte tests before any JSON is parsed.

Nothing makes the list fail: a half-written, unreadable, oversized or foreign file is listed with
what could be read and ``problem``, a one-line reason. ``CodexSession.read()`` parses the whole
rollout (``cx.read_rollout``) for the plan timeline and transcript.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, BinaryIO

from dataclasses import dataclass
from .rollout import KNOWN_TYPES, Rollout, _output_text, _plan_args, read_rollout
from .rollout import codex_home as _codex_home
from .rollout_lines import RolloutError, _inflating, open_regular, open_regular_fd, size_text

HEAD_BYTES = 64 << 10
"""Bytes read from a rollout's start (more when its first line, ``session_meta``, is longer)."""
TAIL_BYTES = 64 << 10
"""Bytes read from a rollout's end."""
MAX_META_LINE = 4 << 20
"""How far the head may grow to finish the ``session_meta`` line (it carries the instructions)."""
MAX_INFLATED = 64 << 20
"""Inflated bytes read from a compressed rollout for its listing; past it the tail is not seen."""
_PROMPT_CHARS = 200
_INFLATE_BLOCK = 64 << 10  # small: what inflated before a broken spot is kept
_SUFFIXES = (".jsonl", ".jsonl.zst", ".jsonl.gz")


@dataclass(kw_only=True)
class CodexSession:
    """One saved session of a Codex home, as the list shows it."""

    path: Path
    session_id: str | None = None
    started: str | None = None
    """ISO time the session started (``session_meta.timestamp``, else the file name's time)."""
    cwd: str | None = None
    first_prompt: str | None = None
    """The person's first message (cut at 200 characters)."""
    model: str | None = None
    """The model of the last turn seen."""
    cli_version: str | None = None
    turns: int = 0
    turns_exact: bool = True
    """False when the file was larger than the windows read: ``turns`` is then a lower bound."""
    plan_done: int | None = None
    """Steps ``completed`` in the last accepted plan (None: no plan seen)."""
    plan_total: int | None = None
    last_status: str | None = None
    """How the last turn seen ended: ``completed``, ``interrupted``, or ``running`` (no end yet)."""
    size: int = 0
    """Bytes on disk."""
    problem: str | None = None
    """Why some of the row could not be read (one line), or None."""
    earlier: tuple[Path, ...] = ()
    """Older rollout files of the same thread, newest first: Codex writes a new one when a thread is
    rewound (``thread/revert``) or its history rewritten, under the same id. The list shows one row
    per thread, this (the newest) file's."""

    @property
    def thread_id(self) -> str | None:
        """The id ``thread/resume`` and ``thread/fork`` take (the session id)."""
        return self.session_id

    @property
    def plan_progress(self) -> str:
        """``"2/3"`` for the last plan, ``""`` when none was seen."""
        return "" if self.plan_total is None else f"{self.plan_done}/{self.plan_total}"

    def read(self) -> Rollout:
        """The whole rollout, parsed (``cx.read_rollout``): plans, turns and items."""
        return read_rollout(self.path)

    def row(self) -> dict[str, Any]:
        """The session as a JSON-ready table row (the sessions widget's)."""
        return {
            "id": self.session_id or self.path.name,
            "path": str(self.path),
            "started": self.started or "",
            "cwd": self.cwd or "",
            "prompt": self.first_prompt or "",
            "model": self.model or "",
            "turns": self.turns,
            "turns_exact": self.turns_exact,
            "plan": self.plan_progress,
            "status": self.last_status or "",
            "size": self.size,
            "problem": self.problem or "",
            "rollouts": 1 + len(self.earlier),
        }

    def __repr__(self) -> str:
        turns = f"{self.turns}" if self.turns_exact else f">={self.turns}"
        note = f" ({self.problem})" if self.problem else ""
        prompt = (self.first_prompt or "")[:40]
        return f"<CodexSession {self.started or '?'} {self.cwd or '?'} {turns} turn(s) {prompt!r}{note}>"


class SessionList(list[CodexSession]):
    """``cx.codex_sessions()``'s answer: the sessions, newest first, and where they came from."""

    def __init__(self, sessions: list[CodexSession], *, home: Path, seconds: float) -> None:
        super().__init__(sessions)
        self.home = home
        self.seconds = seconds
        """How long the listing took."""

    def summary(self) -> str:
        """One line: how many sessions, how many with a problem, or that there are none."""
        if not self:
            return (
                f"No saved Codex sessions in {self.home / 'sessions'} (Codex writes one rollout per "
                f"thread there; pass codex_home= or set CODEX_HOME for another home)"
            )
        problems = sum(1 for s in self if s.problem)
        extra = f", {problems} with a problem (see .problem)" if problems else ""
        return f"{len(self)} saved Codex session(s) in {self.home}{extra}"

    def by_id(self, session_id: str) -> CodexSession:
        """The session with this id; ``KeyError`` saying so otherwise."""
        for session in self:
            if session.session_id == session_id:
                return session
        raise KeyError(f"no session {session_id!r} in {self.home}")

    def __repr__(self) -> str:
        return f"<SessionList: {self.summary()}>"


def _rollout_files(home: Path) -> list[Path]:
    """Every rollout file under ``home/sessions`` (named so; what each is, is found out on reading it)."""
    found: list[Path] = []
    stack = [home / "sessions"]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(directory / name)
                elif name.startswith("rollout-") and name.endswith(_SUFFIXES):
                    found.append(directory / name)  # cheaper than Path(entry.path), the same path
            except OSError:
                continue
    return found


_CACHE: dict[str, tuple[tuple[int, int], CodexSession]] = {}
"""Rows already read, by path, kept while the file's size and modification time stay the same (a
running session's file grows, so it is read again); a browser's refresh lists a big home at once."""
MAX_CACHED = 100_000


def _copy(session: CodexSession) -> CodexSession:
    """A shallow copy (what ``copy.copy`` makes, without its generic protocol: a cold list makes 10,000)."""
    twin = object.__new__(CodexSession)
    twin.__dict__.update(session.__dict__)
    return twin


def _row(path: Path) -> CodexSession:
    key = str(path)  # a str hashes once; a Path hashes its parts each time
    cached = _CACHE.get(key)
    if cached is not None:
        try:
            info = os.stat(key)
        except OSError:
            pass
        else:
            if cached[0] == (info.st_size, info.st_mtime_ns):
                return _copy(cached[1])
    session, stamp = _describe(path)
    if stamp is not None:
        if len(_CACHE) >= MAX_CACHED:
            _CACHE.clear()
        _CACHE[key] = (stamp, _copy(session))
    return session


def forget_cached() -> None:
    """Drop every cached row: the next ``codex_sessions()`` reads each file again."""
    _CACHE.clear()


class _Window:
    """The bytes of a rollout the list reads: ``head`` (the file's start; all of it when ``whole``),
    ``tail`` (its last ``TAIL_BYTES``, cut anywhere), and a note on why not all of it could be seen."""

    def __init__(self) -> None:
        self.head = b""
        self.tail = b""
        self.whole = True
        self.note: str | None = None


def _read(fd: int, count: int) -> bytes:
    """One ``read`` of the descriptor (the list's only way of reading a plain rollout)."""
    return os.read(fd, count)


def _read_plain(fd: int, size: int, win: _Window) -> None:
    if size <= HEAD_BYTES + TAIL_BYTES:
        data = _read(fd, size + 1)  # one read, as a rule: exactly the size fstat gave
        if len(data) != size:  # grown since (a running session), or read in parts: read on to its end
            parts = [data]
            while more := _read(fd, _INFLATE_BLOCK):
                parts.append(more)
            data = b"".join(parts)
        win.head = data
        return
    head = _read(fd, HEAD_BYTES)
    while b"\n" not in head and len(head) < MAX_META_LINE:  # finish the session_meta line
        more = _read(fd, HEAD_BYTES)
        if not more:
            break
        head += more
    os.lseek(fd, max(size - TAIL_BYTES, len(head)), os.SEEK_SET)
    win.head, win.tail, win.whole = head, _read(fd, TAIL_BYTES), False


class _Gunzip:
    """``.gz`` inflated in bounded blocks (zlib's own stream: what came before a broken or missing
    end is kept, where ``gzip.GzipFile`` raises before returning it)."""

    def __init__(self, stream: BinaryIO) -> None:
        import zlib

        self.stream = stream
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.pending = b""

    def read(self, size: int) -> bytes:
        while True:
            if not self.pending:
                if self.inflater.eof:
                    return b""
                self.pending = self.stream.read(_INFLATE_BLOCK)
                if not self.pending:
                    raise EOFError("the file ends before the gzip stream does")
            out = self.inflater.decompress(self.pending, size)
            self.pending = self.inflater.unconsumed_tail
            if out:
                return out


def _read_compressed(path: Path, stream: BinaryIO, win: _Window) -> None:
    if path.name.endswith(".gz"):
        import zlib

        reader: Any = _Gunzip(stream)
        bad: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error)
    else:
        reader, zstd_error = _inflating(path, stream)
        bad = (zstd_error, OSError)
    buf, head, tail, total = bytearray(), b"", b"", 0
    try:
        while True:
            block = reader.read(_INFLATE_BLOCK)
            if not block:
                break
            total += len(block)
            if not head:  # the whole file so far: split once it outgrows both windows
                buf += block
                if len(buf) > HEAD_BYTES + TAIL_BYTES and (b"\n" in buf or len(buf) > MAX_META_LINE):
                    split = max(HEAD_BYTES, buf.find(b"\n") + 1)
                    head, tail, buf = bytes(buf[:split]), bytes(buf[split:])[-TAIL_BYTES:], bytearray()
            else:
                tail = (tail + block)[-TAIL_BYTES:]
            if total >= MAX_INFLATED:
                win.note = f"compressed; only the first {size_text(MAX_INFLATED)} inflated were read"
                break
    except bad as err:
        win.note = f"compressed data broken after {size_text(total)}: {str(err)[:80]}"
    if head:
        win.head, win.tail, win.whole = head, tail, False
    else:
        win.head = bytes(buf)
        win.whole = win.note is None


def _window(path: Path) -> tuple[_Window, os.stat_result]:
    """The windows of ``path`` and its ``fstat`` as it was opened."""
    win = _Window()
    if path.name.endswith((".zst", ".gz")):
        with open_regular(path) as stream:
            info = os.fstat(stream.fileno())
            _read_compressed(path, stream, win)
        return win, info
    fd, info = open_regular_fd(path)  # plain: read with the descriptor, no file object for each of thousands
    try:
        _read_plain(fd, info.st_size, win)
    finally:
        os.close(fd)
    return win, info


_DECODE = json.JSONDecoder().raw_decode
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _load(line: bytes) -> dict[str, Any] | None:
    try:
        if line[:2] == b'{"':  # json.loads reads such bytes as UTF-8 from the start: do that without its checks
            text = line.decode("utf-8", "surrogatepass")
            value, end = _DECODE(text)
            if end != len(text) and _JSON_SPACE.match(text, end).end() != len(text):  # type: ignore[union-attr]
                return None  # more than space after the object: json.loads refuses it ("Extra data")
        else:
            value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _payload(line: bytes) -> dict[str, Any]:
    data = _load(line)
    payload = None if data is None else data.get("payload")
    return payload if isinstance(payload, dict) else {}


def _prompt_text(payload: dict[str, Any]) -> str | None:
    """The text a person typed, from a user message in any of the shapes Codex wrote it."""
    if payload.get("type") == "user_message":
        text = payload.get("message")
    elif payload.get("type") == "item_completed":
        item = payload.get("item") or {}
        if not isinstance(item, dict) or item.get("type") != "UserMessage":
            return None
        parts = item.get("content") or []
        text = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
    elif payload.get("type") == "message" and payload.get("role") == "user":
        parts = payload.get("content") or []
        text = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
    else:
        return None
    if not isinstance(text, str):
        return None
    text = text.strip()
    # context Codex adds as user messages: <environment_context>, <user_instructions>, AGENTS.md
    if not text or text.startswith(("<", "# AGENTS.md")):
        return None
    return " ".join(text.split())[:_PROMPT_CHARS]


# Codex writes each line as {"timestamp":..,"ordinal":..,"type":..,"payload":{"type":..,..}} with no
# spaces, and JSON escapes every quote inside a string, so one regex pass over a window finds every
# line's start, kind and payload kind; only the few lines the list shows are parsed. The pattern
# matches at every newline, with empty kinds where the line is laid out otherwise (another Codex, or
# not JSON, or blank): such a line sends that window down the slow path, one line at a time.
_TEXT = rb"[\x00-\t\x0b-!#-\xff]"
"""``[^"\\n]`` (a byte inside a JSON string, on one line) spelled as ranges: ``re`` compiles it to one
bitmap test a byte, where the negated pair costs two; the line-kinds pass takes a fifth less time."""
_LINE = re.compile(
    rb'\n(?:\{"timestamp":"' + _TEXT + rb'*",(?:"ordinal":\d+,)?"type":"(' + _TEXT + rb"{1,80})"
    rb'"(?:,"payload":\{"type":"(' + _TEXT + rb'{1,80})")?)?'
)
_OTHER = (b"", b"")
"""What ``_LINE`` finds at a newline whose line is not laid out as Codex writes it (or at the end)."""
_META = re.compile(rb'\{"timestamp":"[^"\n]*",(?:"ordinal":\d+,)?"type":"session_meta","payload":\{')
_FIELDS = {
    name: re.compile(rb'"' + name.encode() + rb'":"((?:[^"\\\n]|\\.){0,4096})"')
    for name in ("id", "timestamp", "cwd", "cli_version")
}
_PLAIN_FIELDS = {
    name: re.compile(rb'"' + name.encode() + rb'":"([\x00-\t\x0b-!#-\[\]-\xff]{0,4096})"') for name in _FIELDS
}
"""The same for strings without escapes (any byte but a quote, a backslash or a newline, as ranges),
a third of the cost: its first match is ``_FIELDS``' when no backslash comes before it (an earlier
string with an escape, which only ``_FIELDS`` matches, holds one)."""
_STARTS = frozenset({b"task_started", b"turn_started"})
_ENDS = frozenset({b"task_complete", b"turn_complete", b"turn_aborted"})
_TASK_STARTED, _TURN_STARTED = (b"event_msg", b"task_started"), (b"event_msg", b"turn_started")
_USER_ITEM, _USER_EVENT = b'"type":"UserMessage"', b'"type":"user_message"'
_MAX_TRIES = 20

Chunk = tuple[bytes, int, int]
"""Whole lines of a window without copying them: ``buf[lo:hi]``, which starts at a newline and ends
with one (or is empty)."""


def _line_at(buf: bytes, pos: int, lo: int, hi: int) -> bytes:
    """The line of the chunk ``buf[lo:hi]`` that holds ``pos``, without its newline."""
    start = max(lo, buf.rfind(b"\n", lo, pos) + 1)
    end = buf.find(b"\n", pos, hi)
    return buf[start : end if end >= 0 else hi]


class _Scan:
    """Fills a ``CodexSession`` from the whole-line chunks of a rollout's windows."""

    def __init__(self, session: CodexSession) -> None:
        self.s = session
        self.unknown: set[str] = set()
        self.bad = 0

    def meta(self, head: bytes, end: int) -> str | None:
        """Read the ``session_meta`` line (``head[:end]``); the reason when the file does not start with one."""
        fields = (("id", "session_id"), ("timestamp", "started"), ("cwd", "cwd"), ("cli_version", "cli_version"))
        match = _META.match(head, 0, end)
        if match is not None:
            start = match.end()
            for name, attr in fields:
                found = _PLAIN_FIELDS[name].search(head, start, end)
                if found is None or head.find(b"\\", start, found.start()) >= 0:
                    found = _FIELDS[name].search(head, start, end)
                if found is not None:
                    raw = found[1]
                    try:
                        value = json.loads(b'"' + raw + b'"') if b"\\" in raw else raw.decode("utf-8")
                    except ValueError:
                        continue
                    setattr(self.s, attr, value)
            return None
        data = _load(head[:end])  # another layout (an older or newer Codex): parse it
        if data is None:
            return "not a Codex rollout: the first line is not a JSON object"
        if data.get("type") != "session_meta" or not isinstance(data.get("payload"), dict):
            return f"not a Codex rollout: the first line is {str(data.get('type'))[:40]!r}, not session_meta"
        payload = data["payload"]
        for key, attr in fields:
            if isinstance(payload.get(key), str):
                setattr(self.s, attr, payload[key])
        if self.s.session_id is None and isinstance(payload.get("session_id"), str):
            self.s.session_id = payload["session_id"]
        return None

    def kinds(self, buf: bytes, lo: int, hi: int) -> list[tuple[bytes, bytes]]:
        """``(kind, payload kind)`` of every line of the chunk ``buf[lo:hi]``."""
        found: list[tuple[bytes, bytes]] = _LINE.findall(buf, lo, hi)
        if found:
            found.pop()  # the chunk's last newline, which ends it: no line after it
        distinct = set(found)
        if _OTHER in distinct:
            found = self._slow(buf[lo:hi])
            distinct = set(found)
        unknown = {kind for kind, _ in distinct} - _KNOWN
        if unknown:
            self.unknown.update(kind.decode("utf-8", "replace")[:40] for kind in unknown)
        return found

    def _slow(self, chunk: bytes) -> list[tuple[bytes, bytes]]:
        out = []
        for text in chunk.split(b"\n"):
            if not text.strip():
                continue
            data = _load(text)
            kind = None if data is None else data.get("type")
            if not isinstance(kind, str):
                self.bad += 1
                continue
            payload = data.get("payload") if data is not None else None
            sub = payload.get("type") if isinstance(payload, dict) else None
            out.append((kind.encode(), sub.encode() if isinstance(sub, str) else b""))
        return out

    def fill(self, chunks: list[Chunk], found: list[list[tuple[bytes, bytes]]]) -> None:
        """Turns, the last turn's end, model, first prompt and last plan (``found``: each chunk's kinds)."""
        self.s.turns = sum(kinds.count(_TASK_STARTED) + kinds.count(_TURN_STARTED) for kinds in found)
        for kind, sub in reversed(found[-1]):
            if kind == b"event_msg" and sub in _STARTS:
                self.s.last_status = "running"
                break
            if kind == b"event_msg" and sub in _ENDS:
                self.s.last_status = "interrupted" if sub == b"turn_aborted" else "completed"
                break
        for buf, lo, hi in reversed(chunks):
            pos = buf.rfind(b'"type":"turn_context"', lo, hi)
            if pos >= 0:
                payload = _payload(_line_at(buf, pos, lo, hi))
                model, cwd = payload.get("model"), payload.get("cwd")
                self.s.model = model if isinstance(model, str) else None
                if self.s.cwd is None and isinstance(cwd, str):
                    self.s.cwd = cwd
                break
        self._prompt(*chunks[0])
        self._plan(*chunks[-1])

    def _prompt(self, buf: bytes, lo: int, hi: int) -> None:
        pos = buf.find(_USER_ITEM, lo, hi)
        event = buf.find(_USER_EVENT, lo, hi if pos < 0 else min(hi, pos + len(_USER_EVENT) - 1))  # only before it
        if event >= 0:
            pos = event
        if pos >= 0:
            self.s.first_prompt = _prompt_text(_payload(_line_at(buf, pos, lo, hi)))
            return
        pos = lo
        for _ in range(_MAX_TRIES):  # no prompt event (an older Codex): the user messages themselves
            pos = buf.find(b'"role":"user"', pos, hi) + 1
            if pos <= 0:
                return
            text = _prompt_text(_payload(_line_at(buf, pos, lo, hi)))
            if text is not None:
                self.s.first_prompt = text
                return

    def _plan(self, buf: bytes, lo: int, hi: int) -> None:
        """The last ``update_plan`` call in the chunk whose output said ``Plan updated``."""
        end = hi
        for _ in range(_MAX_TRIES):
            pos = buf.rfind(b'"name":"update_plan"', lo, end)
            if pos < 0:
                return
            line = _line_at(buf, pos, lo, hi)
            end = buf.rfind(b"\n", lo, pos)  # the newline before this line: search before it next
            payload = _payload(line)
            call_id = payload.get("call_id")
            if payload.get("type") != "function_call" or not isinstance(call_id, str):
                continue
            tag = b'"call_id":' + json.dumps(call_id).encode()
            after = buf.find(tag, end + len(line) + 1, hi)
            while after >= 0:
                output = _payload(_line_at(buf, after, lo, hi))
                if output.get("type") == "function_call_output":
                    args = _plan_args(payload.get("arguments"))
                    if args is not None and _output_text(output.get("output")) == "Plan updated":
                        self.s.plan_total = len(args.plan)
                        self.s.plan_done = sum(1 for step in args.plan if str(step.status) == "completed")
                        return
                    break
                after = buf.find(tag, after + 1, hi)


_KNOWN = frozenset(kind.encode() for kind in KNOWN_TYPES)
_NAME_TIME = re.compile(r"rollout-(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)")


def _name_time(path: Path) -> str | None:
    match = _NAME_TIME.match(path.name)
    return None if match is None else f"{match[1]}T{match[2]}:{match[3]}:{match[4]}"


def describe(path: Path) -> CodexSession:
    """One rollout as a list row; never raises for what the file holds (``problem`` says it)."""
    return _describe(path)[0]


def _describe(path: Path) -> tuple[CodexSession, tuple[int, int] | None]:
    """The row, and the ``(size, mtime_ns)`` of the file it was read from (None: it could not be opened)."""
    session = CodexSession(path=path, started=_name_time(path))
    try:
        win, info = _window(path)
    except RolloutError as err:
        session.problem = str(err).split(";")[0]
        return session, None
    except OSError as err:
        session.problem = f"cannot read it: {err.strerror or err}"
        return session, None
    session.size = info.st_size
    return _fill(session, win), (info.st_size, info.st_mtime_ns)


def _fill(session: CodexSession, win: _Window) -> CodexSession:
    problems: list[str] = []
    first_end = win.head.find(b"\n")
    scan = _Scan(session)
    if first_end < 0:
        cut = win.head
        if not cut.strip():
            session.problem = win.note or "empty: Codex has not written its first line yet"
        elif _META.match(cut) is not None:
            session.problem = "half written: its first line has no end yet (a session starting?)"
        else:
            session.problem = "not a Codex rollout: the first line is not a JSON object"
        return session
    reason = scan.meta(win.head, first_end)
    if reason is not None:
        session.problem = reason if win.note is None else f"{reason}; {win.note}"
        return session
    # each window as whole lines from a newline: the head's cut last line and the tail's cut first line dropped
    end = win.head.rfind(b"\n") + 1
    chunks: list[Chunk] = [(win.head, first_end, end)]
    cut = win.head[end:] if win.whole else b""
    if not win.whole:
        start = win.tail.find(b"\n")
        end = win.tail.rfind(b"\n") + 1
        chunks.append((win.tail, start, end) if start >= 0 else (b"", 0, 0))
        cut = win.tail[end:] if start >= 0 else b""
    if cut and _load(cut) is not None:  # complete, only its newline not written yet
        buf, lo, hi = chunks[-1]
        whole = buf[lo:hi] + cut + b"\n"
        chunks[-1] = (whole, 0, len(whole))
        cut = b""
    scan.fill(chunks, [scan.kinds(*chunk) for chunk in chunks])
    session.turns_exact = win.whole
    if cut:
        problems.append("half written: the last line has no end yet (a session still running?)")
        if b'"type":"task_started"' in cut or b'"type":"turn_started"' in cut or session.last_status == "completed":
            session.last_status = "running"
    if scan.unknown:
        names = ", ".join(sorted(scan.unknown)[:3])
        problems.append(f"line kinds this codex_nb does not know were skipped ({names}): a newer Codex?")
    if scan.bad:
        problems.append(f"{scan.bad} line(s) are not JSON objects")
    if win.note:
        problems.append(win.note)
    elif not win.whole and session.size > 4 * (HEAD_BYTES + TAIL_BYTES):
        problems.append(
            f"large ({size_text(session.size)}): turns counted and the plan read in its first and last "
            f"{size_text(TAIL_BYTES)}"
        )
    session.problem = "; ".join(problems) or None
    return session


def codex_sessions(codex_home: str | os.PathLike[str] | None = None) -> SessionList:
    """The saved sessions of a Codex home (``codex_home``, else ``$CODEX_HOME``, else ``~/.codex``),
    newest first: when each started, its cwd, first prompt, model, how many turns and the last
    plan's progress. A file that cannot be read fully is still listed, with ``problem`` saying why;
    a home without sessions gives an empty list whose ``summary()`` says so. A file unchanged
    since an earlier call in this process (same size and modification time) is not read again."""
    started = time.perf_counter()
    home = _codex_home(codex_home)
    sessions = [_row(path) for path in _rollout_files(home)]
    sessions.sort(key=lambda s: (s.started or "", s.path.name), reverse=True)
    return SessionList(one_per_thread(sessions), home=home, seconds=time.perf_counter() - started)


_INHERITED = ("cwd", "first_prompt", "model", "cli_version")
"""Columns a thread's newest rollout may lack (a rewound thread's new file starts from its old
one's history, not its words) and its older files of the same thread still say."""


def one_per_thread(sessions: list[CodexSession]) -> list[CodexSession]:
    """One session per thread id, newest first: the first of each id in ``sessions`` (sorted newest
    first), with the older files of that id in its ``earlier`` and the columns it lacks taken from
    them. A fork has its own id and keeps its own row; a file with no id is listed as it is."""
    kept: list[CodexSession] = []
    by_id: dict[str, CodexSession] = {}
    for session in sessions:
        first = by_id.get(session.session_id) if session.session_id else None
        if first is None:
            if session.session_id:
                by_id[session.session_id] = session
            kept.append(session)
            continue
        first.earlier = (*first.earlier, session.path)
        for name in _INHERITED:
            if getattr(first, name) is None and getattr(session, name) is not None:
                setattr(first, name, getattr(session, name))
    return kept


__all__ = ["CodexSession", "SessionList", "codex_sessions", "describe", "forget_cached", "one_per_thread"]
