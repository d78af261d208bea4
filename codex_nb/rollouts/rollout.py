"""Read Codex's saved sessions: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Each line of a 0.169 rollout is ``{"timestamp", "ordinal", "type", "payload"}`` with
``type`` one of ``session_meta``, ``event_msg``, ``response_item``, ``turn_context``,
``world_state``, ``token_usage_record``, ``compacted``, ``retained_context``. Plan snapshots are rebuilt from
``update_plan`` function calls; a call counts only once its paired output says
``Plan updated`` (a rejected call changed nothing in Codex either). Unknown line types
are skipped and counted; a line that cannot be understood (not UTF-8, not JSON, nested
deeper than serde_json's limit, over the line cap, a field of the wrong type) is skipped
and reported with its line number and a short reason; a truncated last line (a session
still being written, or a crash) is reported. None of these is fatal: one bad line never
costs the rest of the session. Codex may later compress a rollout to ``.jsonl.zst``; those
are read too (with the ``zstandard`` package, the ``rollouts`` extra), as a stream with a
cap on the inflated size (``rollout_lines.py``).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..protocol.plan import UpdatePlanArgs
from ..protocol.serde import SerdeError, nesting_error, parse_strict
from ..protocol.serde_json import RECURSION_LIMIT
from .rollout_lines import MAX_BYTES, MAX_LINE_BYTES, MAX_LINES, RawLine, raw_lines, size_text
from .rollout_lines import RolloutError as RolloutError  # codex_nb.rollouts.RolloutError is exported from this module

KNOWN_TYPES = frozenset(
    {
        "session_meta",
        "event_msg",
        "response_item",
        "turn_context",
        "world_state",
        "token_usage_record",
        "compacted",
        "retained_context",
    }
)
_READ_TYPES = frozenset({"session_meta", "event_msg", "response_item"})
"""The line types whose payload this reader reads; the others are only counted."""
PLAN_UPDATED = "Plan updated"
_ALIASES = {"turn_started": "task_started", "turn_complete": "task_complete"}
"""Older names of the turn events, accepted on read as Codex does."""
MAX_LISTED = 1000
"""Malformed lines listed one by one; past this they are only counted (a hostile file can hold millions)."""
MAX_TYPE_NAMES = 100
"""Keys of a type counter at most: past the first ``MAX_TYPE_NAMES - 1`` names, the rest count as ``OTHER_TYPES``."""
OTHER_TYPES = "(other types)"
_NAME_CHARS = 80
_NAMES_SHOWN = 10


@dataclass(kw_only=True, frozen=True)
class PlanSnapshot:
    """One accepted ``update_plan`` call of a saved session."""

    index: int
    """Position in the session's plan history, from 0."""
    turn_id: str | None
    call_id: str
    timestamp: str | None
    line: int
    """1-based line of the call's output (where the plan took effect)."""
    args: UpdatePlanArgs


@dataclass(kw_only=True, frozen=True)
class RolloutTurn:
    turn_id: str
    status: str
    """``completed`` | ``interrupted`` | ``failed`` | ``running`` (no end recorded)."""
    last_agent_message: str | None = None
    error: str | None = None
    """The message of the ``error`` event that failed the turn."""


@dataclass(kw_only=True)
class Rollout:
    """A parsed rollout: metadata, turns, plan snapshots and what could not be read."""

    path: Path
    session_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    lines: int = 0
    line_types: Counter[str] = field(default_factory=Counter)
    unknown_types: Counter[str] = field(default_factory=Counter)
    """Line types this reader does not know; skipped."""
    malformed: list[tuple[int, str]] = field(default_factory=list)
    """(line number, reason) of lines skipped because they cannot be understood: not UTF-8, not
    JSON, too deep, too long, not an object with a string ``type``, or a field of the wrong type.
    The first ``MAX_LISTED``; ``malformed_count`` counts them all."""
    malformed_count: int = 0
    truncated: str | None = None
    """Set when the last line is cut off (no newline, and unreadable): what was found."""
    plans: list[PlanSnapshot] = field(default_factory=list)
    rejected_plan_calls: list[str] = field(default_factory=list)
    """call ids of ``update_plan`` calls whose output did not say ``Plan updated``."""
    turns: list[RolloutTurn] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    """Every ``response_item`` payload, in order."""

    @property
    def skipped(self) -> int:
        """Lines not read: unknown types, malformed lines (all of them, listed or not) and a truncated
        last line. 0 means every line of the file was understood."""
        return sum(self.unknown_types.values()) + self.malformed_count + (1 if self.truncated else 0)

    def summary(self) -> str:
        """One line on what was read and what was skipped and why (``Rollout rollout-....jsonl: 12 lines,
        2 turn(s), 3 plan snapshot(s)``, then any unknown, malformed or truncated lines); the repr."""
        parts = [f"{self.lines} lines", f"{len(self.turns)} turn(s)", f"{len(self.plans)} plan snapshot(s)"]
        if self.unknown_types:
            names = sorted(self.unknown_types)
            shown = ", ".join(names[:_NAMES_SHOWN]) + (
                f", and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else ""
            )
            parts.append(f"{sum(self.unknown_types.values())} unknown line(s) skipped ({shown})")
        if self.malformed_count:
            first = f"; first at line {self.malformed[0][0]}: {self.malformed[0][1]}" if self.malformed else ""
            parts.append(f"{self.malformed_count} malformed line(s) skipped{first}")
        if self.truncated:
            parts.append(f"truncated last line ({self.truncated})")
        return f"Rollout {self.path.name}: " + ", ".join(parts)

    def __repr__(self) -> str:
        return f"<{self.summary()}>"


class _BadLine(Exception):
    """A line whose fields cannot be understood; the message is the short reason."""


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _text(holder: dict[str, Any], key: str, where: str) -> str | None:
    """``holder[key]`` when it is a string or absent/null; any other type makes the line malformed."""
    value = holder.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _BadLine(f"{where}.{key} is {_json_type(value)}, expected a string")


def _object(holder: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = holder.get(key)
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise _BadLine(f"{where}.{key} is {_json_type(value)}, expected an object")


class _Reader:
    def __init__(self, rollout: Rollout) -> None:
        self.r = rollout
        self.turn: str | None = None
        self.calls: dict[str, tuple[UpdatePlanArgs | None, str | None]] = {}
        self.turns: dict[str, RolloutTurn] = {}
        self.meta_seen = False

    def report(self, number: int, reason: str) -> None:
        """Record line ``number`` as malformed (listed while fewer than ``MAX_LISTED`` are)."""
        self.r.malformed_count += 1
        if len(self.r.malformed) < MAX_LISTED:
            self.r.malformed.append((number, reason))

    def count_type(self, name: str) -> None:
        """Count a line type by a bounded name (a hostile file may send many, or long, names)."""
        if len(name) > _NAME_CHARS:
            name = name[:_NAME_CHARS] + "\u2026"
        counters = (self.r.line_types,) + (() if name in KNOWN_TYPES else (self.r.unknown_types,))
        for counter in counters:
            counter[name if name in counter or len(counter) < MAX_TYPE_NAMES - 1 else OTHER_TYPES] += 1

    def line(self, number: int, data: dict[str, Any]) -> None:
        kind = data["type"]
        payload = data.get("payload")
        self.count_type(kind)
        if kind not in _READ_TYPES:
            return
        if not isinstance(payload, dict):
            raise _BadLine(f"{kind} line's payload is {_json_type(payload)}, expected an object")
        if kind == "session_meta":
            session_id = _text(payload, "id", "payload") or _text(payload, "session_id", "payload")
            # The first readable one names the session, as in Codex's read_session_meta_line: a forked
            # or resumed rollout repeats its parent's session_meta after its own.
            if not self.meta_seen:
                self.meta_seen = True
                self.r.meta, self.r.session_id = payload, session_id
        elif kind == "event_msg":
            self.event(payload)
        elif kind == "response_item":
            self.item(number, data, payload)

    def event(self, payload: dict[str, Any]) -> None:
        kind = _text(payload, "type", "payload")
        turn_id = _text(payload, "turn_id", "payload")
        kind = _ALIASES.get(kind, kind) if kind is not None else None
        if kind == "task_started" and turn_id:
            self.turn = turn_id
            self.turns[turn_id] = RolloutTurn(turn_id=turn_id, status="running")
        elif kind == "task_complete" and turn_id:
            message = _text(payload, "last_agent_message", "payload")
            failed = self.turns.get(turn_id, None)
            if failed is not None and failed.status == "failed":
                self.turns[turn_id] = RolloutTurn(
                    turn_id=turn_id, status="failed", last_agent_message=message, error=failed.error
                )
            else:
                self.turns[turn_id] = RolloutTurn(turn_id=turn_id, status="completed", last_agent_message=message)
        elif kind == "turn_aborted":
            turn_id = turn_id or self.turn
            if turn_id:
                self.turns[turn_id] = RolloutTurn(turn_id=turn_id, status="interrupted")
        elif kind == "error" and self.turn:
            message = _text(payload, "message", "payload")
            self.turns[self.turn] = RolloutTurn(turn_id=self.turn, status="failed", error=message)

    def item(self, number: int, data: dict[str, Any], payload: dict[str, Any]) -> None:
        kind = _text(payload, "type", "payload")
        meta = _object(payload, "internal_chat_message_metadata_passthrough", "payload")
        meta_turn = _text(meta, "turn_id", "payload.internal_chat_message_metadata_passthrough")
        turn_id = meta_turn or self.turn
        call_id = _text(payload, "call_id", "payload") if kind in ("function_call", "function_call_output") else None
        timestamp = _text(data, "timestamp", "line") if kind == "function_call_output" else None
        self.r.items.append(payload)
        if kind == "function_call" and payload.get("name") == "update_plan":
            self.calls[str(call_id)] = (_plan_args(payload.get("arguments")), turn_id)
        elif kind == "function_call_output":
            if str(call_id) not in self.calls:
                return
            args, call_turn = self.calls.pop(str(call_id))
            if _output_text(payload.get("output")) == PLAN_UPDATED and args is not None:
                self.r.plans.append(
                    PlanSnapshot(
                        index=len(self.r.plans),
                        turn_id=call_turn,
                        call_id=str(call_id),
                        timestamp=timestamp,
                        line=number,
                        args=args,
                    )
                )
            else:
                self.r.rejected_plan_calls.append(str(call_id))

    def finish(self) -> None:
        self.r.turns = list(self.turns.values())


def _plan_args(arguments: Any) -> UpdatePlanArgs | None:
    """The call's arguments parsed as the live ``update_plan`` tool parses them (serde's rules and
    nesting limit), or None: such a call cannot have been accepted."""
    if not isinstance(arguments, str):
        return None
    try:
        return parse_strict(UpdatePlanArgs, arguments)
    except (SerdeError, ValueError):
        return None


def _output_text(output: Any) -> str | None:
    if isinstance(output, str):
        return output
    if isinstance(output, dict):  # {"content": ..., "success": ...} forms
        content = output.get("content")
        return content if isinstance(content, str) else None
    if isinstance(output, list):  # content items
        texts = [part.get("text") for part in output if isinstance(part, dict)]
        return "".join(t for t in texts if isinstance(t, str)) or None
    return None


def _deeper_than_limit(value: Any) -> bool:
    """Whether parsed JSON nests past serde_json's limit (Codex's own reader refuses such a line)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > RECURSION_LIMIT:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


_POSITION_SCAN_CHARS = 1 << 20
"""serde's position of the excess level is found by a scan in Python: only on lines up to this long."""


def _too_deep(text: str) -> str:
    found = nesting_error(text) if len(text) <= _POSITION_SCAN_CHARS else None
    return f"nested deeper than {RECURSION_LIMIT} levels" + (f": {found}" if found is not None else "")


def _decode(raw: RawLine, max_line_bytes: int) -> Any:
    """The line's JSON value; raises ``_BadLine`` with a short reason."""
    if raw.data is None:
        raise _BadLine(
            f"{size_text(raw.length)} long, over the {size_text(max_line_bytes)} line cap "
            f"(max_line_bytes={max_line_bytes}); cx.read_rollout(path, max_line_bytes=...) reads it"
        )
    try:
        text = raw.data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _BadLine(f"not UTF-8: byte 0x{raw.data[err.start]:02x} at column {err.start + 1}") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise _BadLine(_too_deep(text)) from None
    except ValueError as err:
        reason = f"{err.msg} at column {err.colno}" if isinstance(err, json.JSONDecodeError) else str(err)[:200]
        raise _BadLine(f"not JSON: {reason}") from None
    # The count is a cheap bound: a text with few brackets cannot nest deep, so only the
    # rare line with many is walked.
    if text.count("[") + text.count("{") > RECURSION_LIMIT and _deeper_than_limit(value):
        raise _BadLine(_too_deep(text))
    return value


def read_rollout(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = MAX_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_lines: int = MAX_LINES,
) -> Rollout:
    """Parse one rollout file; see ``Rollout`` for what is reported.

    ``max_bytes`` caps the file's size (inflated, for ``.jsonl.zst``) and ``max_lines`` its lines
    with text: past either a ``RolloutError`` is raised. ``max_line_bytes`` caps one line: a longer
    line is skipped and reported.
    """
    file = Path(path).expanduser()
    rollout = Rollout(path=file)
    reader = _Reader(rollout)
    for raw in raw_lines(file, max_bytes=max_bytes, max_line_bytes=max_line_bytes, max_lines=max_lines):
        if raw.data is not None and not raw.data.strip():
            continue
        rollout.lines += 1
        try:
            data = _decode(raw, max_line_bytes)
            if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                raise _BadLine("not an object with a string 'type'")
            reader.line(raw.number, data)
        except _BadLine as err:
            if not raw.ended and raw.data is not None:  # no newline and unreadable: the writer was cut off
                rollout.truncated = f"line {raw.number}: {raw.length} bytes without an end ({err})"
            else:
                reader.report(raw.number, str(err))
    reader.finish()
    return rollout


def codex_home(path: str | os.PathLike[str] | None = None) -> Path:
    """``path``, else ``$CODEX_HOME``, else ``~/.codex``."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


def list_rollouts(codex_home_dir: str | os.PathLike[str] | None = None, *, archived: bool = False) -> list[Path]:
    """Every ``rollout-*.jsonl`` (or ``.jsonl.zst``) under ``<codex home>/sessions`` (and
    ``archived_sessions`` with ``archived=True``), oldest first: the names carry the time."""
    home = codex_home(codex_home_dir)
    roots = [home / "sessions"] + ([home / "archived_sessions"] if archived else [])
    found = [
        p
        for root in roots
        if root.is_dir()
        for pattern in ("rollout-*.jsonl", "rollout-*.jsonl.zst")
        for p in root.rglob(pattern)
    ]
    return sorted(found, key=lambda p: (p.name, str(p)))
