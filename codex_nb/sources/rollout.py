"""Read Codex's saved sessions: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Each line of a 0.169 rollout is ``{"timestamp", "ordinal", "type", "payload"}`` with
``type`` one of ``session_meta``, ``event_msg``, ``response_item``, ``turn_context``,
``world_state``, ``token_usage_record``, ``compacted``, ``retained_context``. Plan snapshots are rebuilt from
``update_plan`` function calls; a call counts only once its paired output says
``Plan updated`` (a rejected call changed nothing in Codex either). Unknown line types
are skipped and counted, malformed lines are reported with their line number, and a
truncated last line (a session still being written, or a crash) is reported, never fatal.
Codex may later compress a rollout to ``.jsonl.zst``; those are read too (with the
``zstandard`` package, the ``rollouts`` extra).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CodexNbError
from ..protocol.plan import UpdatePlanArgs

KNOWN_TYPES = frozenset({"session_meta", "event_msg", "response_item", "turn_context", "world_state",
                         "token_usage_record", "compacted", "retained_context"})
PLAN_UPDATED = "Plan updated"
_ALIASES = {"turn_started": "task_started", "turn_complete": "task_complete"}
"""Older names of the turn events, accepted on read as Codex does."""


class RolloutError(CodexNbError):
    """A rollout file cannot be read at all (missing, a directory, not UTF-8 JSON lines)."""


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
    """(line number, reason) of lines that are not a JSON object with a ``type``."""
    truncated: str | None = None
    """Set when the last line is cut off (no newline, not valid JSON): what was found."""
    plans: list[PlanSnapshot] = field(default_factory=list)
    rejected_plan_calls: list[str] = field(default_factory=list)
    """call ids of ``update_plan`` calls whose output did not say ``Plan updated``."""
    turns: list[RolloutTurn] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    """Every ``response_item`` payload, in order."""

    @property
    def skipped(self) -> int:
        return sum(self.unknown_types.values()) + len(self.malformed) + (1 if self.truncated else 0)

    def summary(self) -> str:
        parts = [f"{self.lines} lines", f"{len(self.turns)} turn(s)", f"{len(self.plans)} plan snapshot(s)"]
        if self.unknown_types:
            parts.append(f"{sum(self.unknown_types.values())} unknown line(s) skipped "
                         f"({', '.join(sorted(self.unknown_types))})")
        if self.malformed:
            parts.append(f"{len(self.malformed)} malformed line(s) skipped")
        if self.truncated:
            parts.append(f"truncated last line ({self.truncated})")
        return f"Rollout {self.path.name}: " + ", ".join(parts)

    def __repr__(self) -> str:
        return f"<{self.summary()}>"


class _Reader:
    def __init__(self, rollout: Rollout) -> None:
        self.r = rollout
        self.turn: str | None = None
        self.calls: dict[str, tuple[UpdatePlanArgs | None, str | None]] = {}
        self.turns: dict[str, RolloutTurn] = {}

    def line(self, number: int, data: dict[str, Any]) -> None:
        kind = data["type"]
        payload = data.get("payload")
        self.r.line_types[kind] += 1
        if kind not in KNOWN_TYPES:
            self.r.unknown_types[kind] += 1
            return
        if not isinstance(payload, dict):
            return
        if kind == "session_meta":
            self.r.meta = payload
            self.r.session_id = payload.get("id") or payload.get("session_id")
        elif kind == "event_msg":
            self.event(payload)
        elif kind == "response_item":
            self.r.items.append(payload)
            self.item(number, data, payload)

    def event(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        turn_id = payload.get("turn_id")
        kind = _ALIASES.get(kind, kind)
        if kind == "task_started" and turn_id:
            self.turn = turn_id
            self.turns[turn_id] = RolloutTurn(turn_id=turn_id, status="running")
        elif kind == "task_complete" and turn_id:
            failed = self.turns.get(turn_id, None)
            status = "failed" if failed is not None and failed.status == "failed" else "completed"
            self.turns[turn_id] = RolloutTurn(turn_id=turn_id, status=status,
                                              last_agent_message=payload.get("last_agent_message"))
        elif kind == "turn_aborted":
            turn_id = turn_id or self.turn
            if turn_id:
                self.turns[turn_id] = RolloutTurn(turn_id=turn_id, status="interrupted")
        elif kind == "error" and self.turn:
            self.turns[self.turn] = RolloutTurn(turn_id=self.turn, status="failed")

    def item(self, number: int, data: dict[str, Any], payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        meta = payload.get("internal_chat_message_metadata_passthrough") or {}
        turn_id = meta.get("turn_id") or self.turn
        if kind == "function_call" and payload.get("name") == "update_plan":
            try:
                args: UpdatePlanArgs | None = UpdatePlanArgs.model_validate(json.loads(payload.get("arguments") or ""))
            except (ValueError, TypeError):
                args = None
            self.calls[str(payload.get("call_id"))] = (args, turn_id)
        elif kind == "function_call_output":
            call_id = str(payload.get("call_id"))
            if call_id not in self.calls:
                return
            args, call_turn = self.calls.pop(call_id)
            if _output_text(payload.get("output")) == PLAN_UPDATED and args is not None:
                self.r.plans.append(PlanSnapshot(index=len(self.r.plans), turn_id=call_turn, call_id=call_id,
                                                 timestamp=data.get("timestamp"), line=number, args=args))
            else:
                self.r.rejected_plan_calls.append(call_id)

    def finish(self) -> None:
        self.r.turns = list(self.turns.values())


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


def read_rollout(path: str | os.PathLike[str]) -> Rollout:
    """Parse one rollout file; see ``Rollout`` for what is reported."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise RolloutError(f"{file} is not a rollout file (it does not exist or is a directory); find saved "
                           f"sessions with cx.list_rollouts()")
    try:
        raw = file.read_bytes()
    except OSError as err:
        raise RolloutError(f"cannot read {file}: {err}") from None
    if file.name.endswith(".zst"):
        raw = _unzstd(file, raw)
    rollout = Rollout(path=file)
    reader = _Reader(rollout)
    chunks = raw.split(b"\n")
    last = len(chunks) - 1
    for index, chunk in enumerate(chunks):
        if not chunk.strip():
            continue
        number = index + 1
        rollout.lines += 1
        try:
            data = json.loads(chunk)
        except ValueError as err:
            if index == last:  # no trailing newline and not JSON: the writer was cut off
                rollout.truncated = f"line {number}: {len(chunk)} bytes without an end ({err.msg})"
            else:
                rollout.malformed.append((number, f"not JSON: {err.msg}"))
            continue
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            rollout.malformed.append((number, "not an object with a string 'type'"))
            continue
        reader.line(number, data)
    reader.finish()
    return rollout


def _unzstd(file: Path, raw: bytes) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise RolloutError(f"{file.name} is zstd-compressed; install the zstandard package "
                           f"(pip install 'codex_nb[rollouts]' or pip install zstandard) to read it") from None
    try:
        return zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    except zstandard.ZstdError as err:
        raise RolloutError(f"{file.name} is not a valid zstd file: {err}") from None


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
    found = [p for root in roots if root.is_dir() for pattern in ("rollout-*.jsonl", "rollout-*.jsonl.zst")
             for p in root.rglob(pattern)]
    return sorted(found, key=lambda p: (p.name, str(p)))
