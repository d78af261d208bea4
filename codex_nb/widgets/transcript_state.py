"""The running turn as a list of transcript entries, folded from events alone.

Any event source works (a ``Session``, a real Codex app-server thread, an ACP session,
a replay): the person's words are ``user_message`` rows ("You"); assistant text grows with ``agent_message_delta`` and is settled by
``agent_message``; reasoning summaries with ``agent_reasoning_delta`` / ``agent_reasoning``;
tool calls appear with ``item_started`` and settle with ``item_completed`` (app-server v2
``dynamicToolCall``, ``mcpToolCall`` or ``commandExecution`` items); ``stream_error`` drops
the text of the abandoned attempt and notes the retry; ``error`` and the turn events set
the status. Deltas are appended to a string buffer and copied out only when a snapshot is
taken, so a 10,000-delta answer costs linear time and memory of about its text.

A turn can hold thousands of tool calls, so the view is sent a window: the last ``rows``
entries (``snapshot(last=rows)``), each entry's text cut to its head and tail past
``MAX_SHOWN_CHARS``. The state keeps at most ``MAX_ENTRIES`` entries of a turn; the oldest
settled ones go first, counted in ``dropped``.

The turn's diff (``turn_diff``, the whole turn's changes so far) is one ``diff`` entry after the
turn's other entries, replaced by each newer diff: the view lists its files with their added and
removed lines, and the plain text says the same, one line per file.

Codex's automatic review of an approval (``auto_approval_review``) is a ``review`` entry keyed by
its review id: the action in ``title``, the verdict in ``status`` (``overridden`` once the person
overrode a denial), risk and authorization in ``detail``, the reviewer's rationale as its text. It
is never drawn as the person's answer.

A rewind (``thread_rewound``) is a ``note`` entry saying how many turns were undone, and every
entry of those turns is marked ``rewound`` (shown, struck through); the shown turn, when it is one
of them, ends ``rewound``.

A context compaction is one ``compaction`` entry, updated in place, whoever compacts: Codex (a turn
holding one ``contextCompaction`` item) or an ACP agent (``acp_compaction``, with the model's summary
where the agent sends one).

An ACP agent's notices (``acp_notice``) and subagents (``acp_subagent``, one entry per subagent: its name,
state and what it did) are entries too; its session title (``acp_session_title``) is the
transcript's ``title``, shown in the header line.

A resumed or forked thread starts with its saved conversation (``load_saved``): those turns'
entries stay above the live turn's, which a new turn does not clear.
"""

from __future__ import annotations

import io
import itertools
import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..protocol.auto_review import review_line
from ..protocol.events import Event
from ..protocol.rewind import rewound_line
from ..protocol.goal import STATUS_TEXT
from ..protocol.turn_diff import diff_files, summary_lines
from ..rollouts.rollout_replay import SavedTurn
from .hook_runs import hook_outcome, hook_title, seconds

MAX_DETAIL_CHARS = 4000
MAX_SHOWN_CHARS = 100_000
"""An entry's text beyond this is shown as its first and last half (the whole text stays in ``text()``)."""
MAX_ENTRIES = 10_000
"""Entries one turn keeps (a cap on the kernel's memory: about 10,000 x 8 KB of tool details)."""
COMPACTED = "Codex replaced the thread's earlier turns with a summary"
TOOL_ITEM_TYPES = frozenset({"dynamicToolCall", "mcpToolCall", "commandExecution"})


@dataclass
class _Entry:
    # user (the person's words) | assistant | reasoning | tool | notice | note | error | hook | saved | diff | review
    # | agent_notice | compaction | subagent
    kind: str
    id: str
    value: str = ""
    status: str = ""
    title: str = ""
    detail: str = ""
    line: str = ""
    """The entry's own line of plain text, when its kind writes one (a review)."""
    turn: str = ""
    """The turn the entry belongs to ("" when not known): a rewind marks that turn's entries."""
    rewound: bool = False
    """A rewind undid the entry's turn: it stays shown, marked."""
    buffer: io.StringIO | None = field(default=None, repr=False)
    """Streaming text: amortised O(1) appends, one copy per snapshot, no per-delta objects kept."""

    def append(self, delta: str) -> None:
        if self.buffer is None:
            self.buffer = io.StringIO(self.value)
            self.buffer.seek(0, io.SEEK_END)
        self.buffer.write(delta)

    def set(self, text: str) -> None:
        self.buffer = None
        self.value = text

    def text(self) -> str:
        if self.buffer is not None:
            self.value = self.buffer.getvalue()
        return self.value

    def snapshot(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "rewound": self.rewound,
            "kind": self.kind,
            "id": self.id,
            "text": _shown(self.text()),
            "status": self.status,
            "title": self.title,
            "detail": self.detail,
        }


class TranscriptState:
    """Folds events into entries; ``snapshot()`` is the JSON the widget view renders."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES) -> None:
        self.entries: deque[_Entry] = deque()
        self.max_entries = max_entries
        self.dropped = 0
        """Entries of this turn dropped to keep ``max_entries`` (the oldest first)."""
        self.status = "idle"
        self.error = ""
        self.turn_id: str | None = None
        self.title = ""
        """The session's title as its source last set it (an ACP agent's ``session_info_update``)."""
        self.saved: list[_Entry] = []
        """The saved conversation's entries (``load_saved``), shown before the live turn's."""
        self.saved_dropped = 0
        self._streaming: dict[str, _Entry] = {}  # kind -> the entry still receiving deltas
        self._tools: dict[str, _Entry] = {}
        self._early: list[_Entry] = []
        """The person's words that came before their turn's ``turn_started`` (an app-server answers
        ``turn/start`` before it says the turn started): they open that turn."""
        self._counter = 0
        self.diff: _Entry | None = None
        """The turn's latest diff (a ``diff`` entry, shown after the turn's other entries)."""
        self._goal_said: tuple[str, str] | None = None
        """The goal's objective and status the last ``goal`` notice said (usage updates add none)."""

    def _live(self) -> list[_Entry]:
        return [*self.entries, self.diff] if self.diff is not None else list(self.entries)

    def apply(self, event: Event) -> bool:
        """Fold one event in; True if the transcript changed."""
        handler = _HANDLERS.get(event.msg.type)
        return False if handler is None else handler(self, event)

    def snapshot(self, last: int | None = None) -> list[dict[str, Any]]:
        """The entries as the view renders them (saved ones first); ``last``: only the newest ``last``."""
        live = self._live()
        if last is None or last >= len(self.saved) + len(live):
            return [entry.snapshot() for entry in itertools.chain(self.saved, live)]
        newest = list(itertools.islice(itertools.chain(reversed(live), reversed(self.saved)), max(last, 0)))
        return [entry.snapshot() for entry in reversed(newest)]

    def earlier(self, shown: int) -> int:
        """How many entries come before the newest ``shown`` (dropped ones included)."""
        return self.dropped + self.saved_dropped + max(len(self.saved) + len(self._live()) - shown, 0)

    def load_saved(self, turns: Sequence[SavedTurn], *, earlier_turns: int = 0, head: str | None = None) -> None:
        """Show a saved conversation above the live turn: each turn's prompt (a ``user`` entry), its
                entries, and how it ended when that was not a completion; a ``saved`` entry first says how
                many turns are shown and how many earlier ones are not, a last one where it ends (live turns
        follow). Keeps the newest ``max_entries``. ``head`` replaces the first entry's words (a paged
        history says how much of it is loaded)."""
        shown = f"Saved conversation: {len(turns)} turn(s)"
        if earlier_turns:
            shown += f"; {earlier_turns} earlier turn(s) not shown"
        if head is not None:
            shown = head
        saved = [_Entry(kind="saved", id="saved-head", value=shown, status="done")]
        for n, turn in enumerate(turns):
            scratch = TranscriptState(max_entries=self.max_entries)
            for event in turn.events:
                scratch.apply(event)
            if turn.prompt and not any(entry.kind == "user" for entry in scratch.entries):
                saved.append(
                    _Entry(kind="user", id=f"saved{n}-user", value=turn.prompt, status="done", turn=turn.turn_id or "")
                )
            for entry in scratch._live():
                entry.id = f"saved{n}-{entry.id}"
                entry.turn = turn.turn_id or ""
                if entry.status in ("streaming", "running"):
                    entry.status = "aborted" if entry.kind == "tool" else "done"
                saved.append(entry)
            end = {"interrupted": "this turn was interrupted", "running": "this turn has no saved end"}
            if scratch.status in end:
                saved.append(_Entry(kind="saved", id=f"saved{n}-end", value=end[scratch.status], status="done"))
        saved.append(_Entry(kind="saved", id="saved-tail", value="End of the saved conversation", status="done"))
        self.saved_dropped = max(len(saved) - self.max_entries, 0)
        self.saved = saved[self.saved_dropped :]

    # -- turn ------------------------------------------------------------------------------
    def _turn_started(self, event: Event) -> bool:
        self.entries.clear()
        self.diff = None
        self.dropped = 0
        self._streaming.clear()
        self._tools.clear()
        self.turn_id = getattr(event.msg, "turn_id", None) or event.turn_id
        for entry in self._early:
            entry.turn = self.turn_id or ""
            self.entries.append(entry)
        self._early.clear()
        self.status, self.error = "running", ""
        return True

    def _turn_complete(self, event: Event) -> bool:
        self._settle_streaming()
        if self.status != "failed":
            self.status = "completed"
        return True

    def _turn_aborted(self, event: Event) -> bool:
        self._settle_streaming()
        for entry in self._tools.values():
            if entry.status == "running":
                entry.status = "aborted"
        self.status = "interrupted"
        return True

    def _error(self, event: Event) -> bool:
        message = getattr(event.msg, "message", "error")
        self.status, self.error = "failed", message
        self._add("error", message)
        return True

    # -- text --------------------------------------------------------------------------
    def _user(self, event: Event) -> bool:
        """The person's words: a row of their own, after what the agent said so far (a streamed
        answer is settled first, so the agent's next words open a new row below)."""
        self._settle_streaming()
        entry = self._add("user", getattr(event.msg, "message", ""), status="done")
        if self.status != "running":
            self._early.append(entry)
        return True

    def _delta(self, kind: str, delta: str) -> bool:
        entry = self._streaming.get(kind)
        if entry is None:
            entry = self._streaming[kind] = self._add(kind, "", status="streaming")
        entry.append(delta)
        return True

    def _final(self, kind: str, text: str) -> bool:
        entry = self._streaming.pop(kind, None)
        if entry is None:
            entry = self._add(kind, "")
        entry.set(text)
        entry.status = "done"
        return True

    def _stream_error(self, event: Event) -> bool:
        for kind in list(self._streaming):  # text of the abandoned attempt is not the answer
            entry = self._streaming.pop(kind)
            self.entries.remove(entry)
        msg: Any = event.msg
        detail = getattr(msg, "additional_details", None) or ""
        self._add("notice", msg.message, detail=detail)
        return True

    def _settle_streaming(self) -> None:
        for entry in self._streaming.values():
            entry.status = "done"
        self._streaming.clear()

    # -- the turn's diff ------------------------------------------------------------------
    def _turn_diff(self, event: Event) -> bool:
        msg: Any = event.msg
        text = msg.unified_diff
        summary = diff_files(text)
        if self.diff is None:
            self.diff = _Entry(kind="diff", id=f"diff-{msg.turn_id or event.turn_id or ''}", status="done")
        self.diff.set(text)
        self.diff.title = summary.headline()
        self.diff.detail = (
            f"cut: {msg.cut_chars} characters past the first {len(text)} not kept" if msg.cut_chars else ""
        )
        return True

    # -- Codex's automatic reviews ---------------------------------------------------------
    def _review(self, event: Event) -> bool:
        msg: Any = event.msg
        entry_id = f"review-{msg.review_id}"
        entry = self._keyed("review", entry_id)
        entry.title = msg.action
        entry.status = "overridden" if msg.overridden else msg.status
        facts = [f"risk {msg.risk_level}"] if msg.risk_level else []
        if msg.user_authorization:
            facts.append(f"authorization {msg.user_authorization}")
        entry.detail = ", ".join(facts)
        entry.set(msg.rationale or "")
        entry.line = review_line(msg)
        return True

    # -- a real Codex thread's goal ------------------------------------------------------
    def _goal(self, event: Event) -> bool:
        """A ``notice`` when the goal starts, changes status or is cleared: a goal's continuation
        turns have no prompt of the person's, so the transcript says what they work toward."""
        goal: Any = getattr(event.msg, "goal", None)
        said = None if goal is None else (goal.objective, goal.status)
        if said == self._goal_said:
            return False
        self._goal_said = said
        text = "Goal cleared" if goal is None else f"Goal ({STATUS_TEXT[goal.status]}): {goal.objective}"
        entry = self._add("notice", text, status="done")
        if self.status != "running":  # before its turn started: it opens that turn, as a prompt does
            self.entries.remove(entry)
            self._early.append(entry)
        return True

    # -- an ACP agent's notices, compactions, subagents and title --------------------------------
    def _keep_early(self, entry: _Entry) -> None:
        """An entry outside a turn opens the next one (as the person's words do), not lost when it starts."""
        if self.status != "running" and entry not in self._early:
            self._early.append(entry)

    def _notice(self, event: Event) -> bool:
        msg: Any = event.msg
        entry = self._add("agent_notice", _clip(msg.description or ""), status="done")
        entry.title = f"{msg.title} ({msg.severity})"
        self._keep_early(entry)
        return True

    def _compaction(self, event: Event) -> bool:
        msg: Any = event.msg
        key = f"compaction-{msg.compaction_id}"
        entry = self._keyed("compaction", key)
        entry.status = {"in_progress": "running"}.get(msg.status, msg.status)
        entry.title = "Context compaction"
        entry.detail = _clip(msg.error or "")
        entry.set(_clip(msg.summary))
        self._keep_early(entry)
        return True

    def _subagent(self, event: Event) -> bool:
        msg: Any = event.msg
        key = f"subagent-{msg.session_id}"
        entry = self._keyed("subagent", key)
        entry.title = msg.name
        entry.status = msg.state
        did = [f"{msg.tool_calls} tool call(s)", f"{msg.messages} message(s)"]
        if msg.last_tool:
            did.append(f"last tool: {msg.last_tool}")
        entry.detail = _clip("; ".join(did))
        entry.set(_clip(msg.last_message or msg.description or ""))
        self._keep_early(entry)
        return True

    def _title(self, event: Event) -> bool:
        title = getattr(event.msg, "title", None) or ""
        if title == self.title:
            return False
        self.title = title
        return True

    # -- hooks -------------------------------------------------------------------------
    def _hook(self, event: Event, *, done: bool) -> bool:
        run: Any = getattr(event.msg, "run", None)
        if run is None:
            return False
        entry = self._keyed("hook", run.id)
        outcome, said = hook_outcome(run)
        entry.title = hook_title(run)
        entry.status = outcome if done else "running"
        entry.detail = seconds(run.duration_ms)
        if done:
            entry.set(_clip(said))
        return True

    # -- tools -------------------------------------------------------------------------
    def _item(self, event: Event, *, done: bool) -> bool:
        item = getattr(event.msg, "item", None)
        if isinstance(item, dict) and item.get("type") == "contextCompaction":
            return self._codex_compaction(str(item.get("id", "")), done=done)
        if not isinstance(item, dict) or item.get("type") not in TOOL_ITEM_TYPES:
            return False
        call_id = str(item.get("id", ""))
        entry = self._keyed("tool", call_id)
        entry.title = _tool_title(item)
        entry.status = _tool_status(item, done=done)
        entry.detail = _clip(_tool_input(item))
        if done:
            entry.set(_clip(_tool_output(item)))
        return True

    def _codex_compaction(self, item_id: str, *, done: bool) -> bool:
        """Codex compacting the thread's context (its own turn with one ``contextCompaction`` item):
        the same ``compaction`` entry as an ACP agent's, so both read alike."""
        entry = self._keyed("compaction", f"compaction-{item_id}")
        entry.title = "Context compaction"
        entry.status = "done" if done else "running"
        entry.set(COMPACTED if done else "")
        return True

    def _rewound(self, event: Event) -> bool:
        """A rewind: one notice saying what was undone; the shown turn, if undone, says so."""
        msg: Any = event.msg
        if self.turn_id is not None and self.turn_id in msg.turn_ids:
            self.status = "rewound"
        undone = set(msg.turn_ids)
        for entry in itertools.chain(self.saved, self._live()):
            if entry.turn and entry.turn in undone:
                entry.rewound = True
        self._add("note", rewound_line(msg), status="done")
        return True

    def _keyed(self, kind: str, key: str) -> _Entry:
        """The entry of ``key`` (a tool call, a hook run, a review, a compaction, a subagent), made on
        first sight and updated in place after."""
        entry = self._tools.get(key)
        if entry is None:
            entry = self._tools[key] = self._add(kind, "", entry_id=key)
        return entry

    def _add(self, kind: str, text: str, *, status: str = "", detail: str = "", entry_id: str | None = None) -> _Entry:
        self._counter += 1
        turn = (self.turn_id or "") if self.status == "running" else ""
        entry = _Entry(
            kind=kind, id=entry_id or f"{kind}-{self._counter}", value=text, status=status, detail=detail, turn=turn
        )
        self.entries.append(entry)
        while len(self.entries) > self.max_entries:
            self._drop_oldest()
        return entry

    def _drop_oldest(self) -> None:
        oldest = self.entries.popleft()
        self.dropped += 1
        if self._tools.get(oldest.id) is oldest:
            del self._tools[oldest.id]  # a late update of a dropped call adds it again, at the end
        for kind, entry in list(self._streaming.items()):
            if entry is oldest:
                del self._streaming[kind]

    def text(self) -> str:
        """Plain text of the transcript (the widget's ``text/plain``)."""
        lines = [f"Transcript: {self.status}" + (f" · {self.title}" if self.title else "")]
        if self.saved_dropped:
            lines.append(f"({self.saved_dropped} earlier saved entries dropped: a transcript keeps {self.max_entries})")
        lines += [_marked(entry, saved=True) for entry in self.saved]
        if self.dropped:
            lines.append(f"({self.dropped} earlier entries of this turn dropped: a turn keeps {self.max_entries})")
        lines += [_marked(entry, saved=False) for entry in self._live()]
        return "\n".join(lines)


def _marked(entry: _Entry, *, saved: bool) -> str:
    """An entry's line, marked when a rewind undid its turn."""
    line = _entry_line(entry, saved=saved)
    return f"{line} [rewound]" if entry.rewound else line


def _entry_line(entry: _Entry, *, saved: bool) -> str:
    """One entry's line of the plain text (a saved entry is shown as the rollout kept it)."""
    body = entry.text()
    kind = entry.kind
    if kind == "diff":
        return "\n".join(
            [f"changes: {entry.title}", *summary_lines(diff_files(body))]
            + ([f"  ({entry.detail})"] if entry.detail else [])
        )
    if kind == "review":
        return entry.line
    if kind == "tool":
        return f"tool {entry.title} [{entry.status}]" + (f": {_one_line(body)}" if body else "")
    if saved:
        if kind == "saved":
            return f"-- {body} --"
        return _you(body) if kind == "user" else f"{kind}: {body}"
    if kind == "user":
        return _you(body)
    if kind == "assistant":
        return f"assistant: {body}"
    if kind == "agent_notice":
        return f"notice {entry.title}" + (f": {_one_line(body)}" if body else "")
    if kind in ("compaction", "subagent"):
        status = f" [{entry.status}]" if entry.status else ""
        name = "context compaction" if kind == "compaction" else f"subagent {entry.title}"
        parts = [p for p in (entry.detail, _one_line(body)) if p]
        return f"{name}{status}" + (f": {' · '.join(parts)}" if parts else "")
    if kind == "hook":
        return f"hook {entry.title} [{entry.status}] {entry.detail}".rstrip() + (f": {_one_line(body)}" if body else "")
    if kind == "reasoning":
        return f"reasoning: {_one_line(body)}"
    return f"{kind}: {body}" + (f" ({_one_line(entry.detail)})" if entry.detail else "")


def _you(text: str) -> str:
    """The person's words on one line; a long prompt by its head and tail, since what they typed
    comes last when the notebook's context is attached before it."""
    line = text.replace("\n", " ⏎ ")
    return f"you: {line if len(line) <= 160 else line[:60] + ' … ' + line[-97:]}"


def _tool_title(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if kind == "commandExecution":
        return str(item.get("command", ""))
    name = str(item.get("tool", ""))
    prefix = item.get("namespace") if kind == "dynamicToolCall" else item.get("server")
    return f"{prefix}.{name}" if prefix else name


def _tool_status(item: dict[str, Any], *, done: bool) -> str:
    status = str(item.get("status") or ("completed" if done else "inProgress"))
    if status == "inProgress":
        return "running"
    if status == "failed" and item.get("success") is None and item.get("type") == "dynamicToolCall":
        return "aborted"
    return status


def _tool_input(item: dict[str, Any]) -> str:
    if item.get("type") == "commandExecution":
        return str(item.get("cwd") or "")
    args = item.get("arguments")
    if args is None:  # an ACP tool call first seen in an update (Gemini CLI) carries no input: not "null"
        return ""
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def _tool_output(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if kind == "commandExecution":
        return str(item.get("aggregatedOutput") or "")
    if kind == "mcpToolCall":
        error = item.get("error")
        if isinstance(error, dict):
            return str(error.get("message", ""))
        result = item.get("result") or {}
        content = result.get("content") if isinstance(result, dict) else None
        return "\n".join(str(c.get("text", "")) for c in content or [] if isinstance(c, dict))
    parts = item.get("contentItems") or []
    return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") == "inputText")


def _shown(text: str) -> str:
    if len(text) <= MAX_SHOWN_CHARS:
        return text
    half = MAX_SHOWN_CHARS // 2
    return f"{text[:half]}\n… {len(text) - 2 * half} characters not shown …\n{text[-half:]}"


def _clip(text: str) -> str:
    return text if len(text) <= MAX_DETAIL_CHARS else text[:MAX_DETAIL_CHARS] + f"… ({len(text)} chars)"


def _one_line(text: str) -> str:
    line = text.replace("\n", " ⏎ ")
    return line if len(line) <= 120 else line[:119] + "…"


_HANDLERS: dict[str, Any] = {
    "turn_started": TranscriptState._turn_started,
    "turn_complete": TranscriptState._turn_complete,
    "turn_aborted": TranscriptState._turn_aborted,
    "error": TranscriptState._error,
    "user_message": TranscriptState._user,
    "agent_message_delta": lambda s, e: s._delta("assistant", e.msg.delta),
    "agent_message": lambda s, e: s._final("assistant", e.msg.message),
    "agent_reasoning_delta": lambda s, e: s._delta("reasoning", e.msg.delta),
    "agent_reasoning": lambda s, e: s._final("reasoning", e.msg.text),
    "stream_error": TranscriptState._stream_error,
    "item_started": lambda s, e: s._item(e, done=False),
    "item_completed": lambda s, e: s._item(e, done=True),
    "turn_diff": TranscriptState._turn_diff,
    "auto_approval_review": TranscriptState._review,
    "thread_rewound": TranscriptState._rewound,
    "goal_updated": TranscriptState._goal,
    "acp_notice": TranscriptState._notice,
    "acp_compaction": TranscriptState._compaction,
    "acp_subagent": TranscriptState._subagent,
    "acp_session_title": TranscriptState._title,
    "hook_started": lambda s, e: s._hook(e, done=False),
    "hook_completed": lambda s, e: s._hook(e, done=True),
}
