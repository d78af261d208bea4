"""Pure translations from ACP session updates to codex_nb events and statuses.

Kept free of I/O so the rules (status names, priority, stop reasons, how partial
tool-call updates merge) are testable on their own and read in one place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from ..protocol.model_stream import MAX_TOKEN_COUNT, TokenCount, TokenUsage, TokenUsageInfo
from ..protocol.plan import PlanItemArg, StepStatus, plan_step
from .acp_events import AcpPlanUpdate, AcpToolCall

_STEP_STATUS = {"pending": StepStatus.PENDING, "in_progress": StepStatus.IN_PROGRESS, "completed": StepStatus.COMPLETED}

TURN_STATUS = {"end_turn": "completed", "cancelled": "interrupted"}
"""ACP ``stopReason`` -> codex_nb turn status; every other reason is a failed turn."""

STOP_REASON_TEXT = {
    "max_tokens": "the agent stopped: it reached its token limit (stopReason max_tokens)",
    "max_turn_requests": "the agent stopped: it reached its limit of model requests for one prompt "
    "(stopReason max_turn_requests)",
    "refusal": "the agent refused to continue (stopReason refusal)",
    "error": "the agent ended the turn with an error (stopReason error, ACP v2 draft)",
}


def _tokens(value: Any) -> int:
    return min(value, MAX_TOKEN_COUNT) if type(value) is int and value >= 0 else 0


def context_token_count(used: int, size: int) -> TokenCount:
    """The ``token_count`` of a ``usage_update``: the tokens in the agent's context (``used``) of its
    window (``size``). It says nothing of the turn's or the session's usage, so those stay None."""
    return TokenCount(
        info=TokenUsageInfo(
            total_token_usage=None,
            last_token_usage=TokenUsage(total_tokens=_tokens(used)),
            model_context_window=_tokens(size) or None,
        )
    )


def prompt_usage(usage: Any) -> TokenUsage | None:
    """A prompt response's ``usage`` (ACP's unstable ``Usage``: this turn's tokens, as codex-acp
    sends them) as a ``TokenUsage``; None when the agent sent none."""
    if usage is None:
        return None
    return TokenUsage(
        input_tokens=_tokens(getattr(usage, "input_tokens", None)),
        cached_input_tokens=_tokens(getattr(usage, "cached_read_tokens", None)),
        output_tokens=_tokens(getattr(usage, "output_tokens", None)),
        reasoning_output_tokens=_tokens(getattr(usage, "thought_tokens", None)),
        total_tokens=_tokens(getattr(usage, "total_tokens", None)),
    )


PLAN_NOTE = "codex_nb/note"
"""The ``_meta`` key of a plan entry that ``repair_plan_entries`` had to change: what it changed."""

MAX_PLAN_ENTRIES = 1000
_PRIORITIES = ("high", "medium", "low")
_PREVIEW = 120


def repair_plan_entries(entries: list[Any]) -> list[Any]:
    """The raw ``entries`` of a ``plan`` update with every entry the SDK would silently drop
    (an unknown status or priority, non-string content, not an object) made valid, and a
    note saying what was changed in its ``_meta`` so the user is told. A plan of more than
    ``MAX_PLAN_ENTRIES`` steps is cut there, with a note on the last step kept."""
    repaired = [_repair_entry(i, entry) for i, entry in enumerate(entries[:MAX_PLAN_ENTRIES])]
    if len(entries) > MAX_PLAN_ENTRIES:
        _add_note(repaired[-1], f"the plan had {len(entries)} steps; only the first {MAX_PLAN_ENTRIES} are shown")
    return repaired


def _repair_entry(index: int, entry: Any) -> Any:
    if not isinstance(entry, dict):
        fixed: dict[str, Any] = {"content": _text(entry), "priority": "medium", "status": "pending"}
        _add_note(fixed, f"step {index + 1} was a JSON {_json_type(entry)}, not an object; shown as a pending step")
        return fixed
    notes = []
    fixed = dict(entry)
    if not isinstance(entry.get("content"), str):
        fixed["content"] = _text(entry.get("content"))
        notes.append(f"its content was a JSON {_json_type(entry.get('content'))}, shown as text")
    if not isinstance(entry.get("status"), str) or entry["status"] not in _STEP_STATUS:
        fixed["status"] = "pending"
        notes.append(
            f"its status {_text(entry.get('status'))} is not an ACP status (pending, in_progress, "
            f"completed); shown as pending"
        )
    if not isinstance(entry.get("priority"), str) or entry["priority"] not in _PRIORITIES:
        fixed["priority"] = "medium"
        notes.append(
            f"its priority {_text(entry.get('priority'))} is not an ACP priority (high, medium, low); shown as medium"
        )
    if not notes:
        return entry
    if not isinstance(fixed.get("_meta"), dict):
        fixed["_meta"] = None
    _add_note(fixed, f"step {index + 1} ({_preview(fixed['content'])!r}): " + "; ".join(notes))
    return fixed


def _add_note(entry: dict[str, Any], note: str) -> None:
    meta = dict(entry.get("_meta") or {})
    meta[PLAN_NOTE] = f"{meta[PLAN_NOTE]}; {note}" if isinstance(meta.get(PLAN_NOTE), str) else note
    entry["_meta"] = meta


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _preview(text: str) -> str:
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "..."


def _text(value: Any) -> str:
    if isinstance(value, str):
        return _preview(value)
    try:
        return _preview(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return _preview(repr(value))


def _json_text(value: Any) -> str:
    """``value`` as the JSON it was sent as (a string quoted), cut for a message."""
    return json.dumps(_preview(value), ensure_ascii=False) if isinstance(value, str) else _text(value)


def plan_notes(entries: list[Any]) -> list[str]:
    """The notes ``repair_plan_entries`` left on a validated plan's entries."""
    return [
        meta[PLAN_NOTE]
        for entry in entries
        if type(meta := entry.field_meta) is dict and type(meta.get(PLAN_NOTE)) is str
    ]


class PlanMapping:
    """ACP ``plan`` updates (always the complete plan) as ``plan_update`` events, for one session.

    A plan update repeats most steps of the one before; ``PlanItemArg`` is frozen, so a step
    whose text and status did not change is the previous snapshot's object, not a new one
    (measured: 0.55x the time of building all 20 steps of a plan anew). Only the last
    snapshot's steps are kept, so the memory is one plan's.
    """

    __slots__ = ("_previous",)

    def __init__(self) -> None:
        self._previous: dict[str, PlanItemArg] = {}

    def event(self, entries: list[Any]) -> AcpPlanUpdate:
        """The ``plan_update`` of the SDK-validated ``entries`` of one ``plan`` update."""
        steps: list[PlanItemArg] = []
        priorities: list[str] = []
        reuse = self._previous.get
        current: dict[str, PlanItemArg] = {}
        for entry in entries:
            # The SDK validated the entry: its status and priority are the schema's literal
            # strings. Keyed by the text alone: a (text, status) key would be a tuple allocated
            # per step.
            content = entry.content
            status = _STEP_STATUS.get(entry.status, StepStatus.PENDING)
            if type(content) is not str:
                steps.append(PlanItemArg(step=content, status=status))
            else:
                item = reuse(content)
                if item is None or item.status is not status:
                    item = plan_step(content, status)
                current[content] = item
                steps.append(item)
            priorities.append(entry.priority)
        self._previous = current
        return AcpPlanUpdate(explanation=None, plan=steps, priorities=tuple(priorities))


def turn_status(stop_reason: str) -> str:
    return TURN_STATUS.get(stop_reason, "failed")


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@dataclass(kw_only=True)
class ToolCallState:
    """The merged state of one tool call; ``apply`` folds in a partial update."""

    call_id: str
    turn_id: str | None = None
    lifecycle_done: bool = False
    """The lifecycle finish record was written (completed, failed or aborted)."""
    title: str = ""
    kind: str | None = None
    status: str = "pending"
    content: list[dict[str, Any]] = field(default_factory=list)
    locations: list[dict[str, Any]] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None

    def apply(self, update: Any) -> None:
        # ACP: in a tool_call_update, a field that is present replaces the old value;
        # an absent (None) field leaves it unchanged.
        for name in ("title", "kind", "status", "raw_input", "raw_output"):
            value = getattr(update, name, None)
            if value is not None:
                setattr(
                    self, name, str(getattr(value, "value", value)) if name in ("kind", "status") else _plain(value)
                )
        for name in ("content", "locations"):
            value = getattr(update, name, None)
            if value is not None:
                setattr(self, name, _plain(list(value)))

    @property
    def finished(self) -> bool:
        return self.status in ("completed", "failed")

    def item(self, *, aborted: bool = False) -> dict[str, Any]:
        """The call as an app-server v2 ``dynamicToolCall`` item (what transcripts render)."""
        if aborted:
            status, success = "failed", None
        elif self.finished:
            status, success = self.status, self.status == "completed"
        else:
            status, success = "inProgress", None
        texts = [t for t in (_block_text(c) for c in self.content) if t]
        if not texts and isinstance(self.raw_output, dict):
            output = self.raw_output.get("formatted_output") or self.raw_output.get("aggregated_output")
            texts = [output] if isinstance(output, str) and output else []
        return {
            "type": "dynamicToolCall",
            "id": self.call_id,
            "namespace": None,
            "tool": self.title or self.kind or "tool",
            "arguments": self.raw_input,
            "status": status,
            "contentItems": [{"type": "inputText", "text": t} for t in texts] if texts else None,
            "success": success,
            "durationMs": None,
        }

    def event(self, phase: Literal["started", "updated"]) -> AcpToolCall:
        return AcpToolCall(
            phase=phase,
            call_id=self.call_id,
            title=self.title,
            kind=self.kind,
            status=self.status,
            content=list(self.content),
            locations=list(self.locations),
            raw_input=self.raw_input,
            raw_output=self.raw_output,
        )


def _block_text(entry: dict[str, Any]) -> str | None:
    """Text of one plain tool-call content entry (``{"type":"content","content":{...}}``)."""
    inner = entry.get("content") if isinstance(entry, dict) else None
    text = inner.get("text") if isinstance(inner, dict) else None
    return text if isinstance(text, str) else None


def content_text(content: Any) -> str | None:
    """The text of an ACP content block (text, or a resource's text), else None."""
    text = getattr(content, "text", None)
    if isinstance(text, str):
        return text
    resource = getattr(content, "resource", None)
    text = getattr(resource, "text", None)
    return text if isinstance(text, str) else None


TODO_ORIGIN = "write_todos"
"""``AcpPlanUpdate.origin`` of a plan taken from Gemini CLI's ``write_todos`` arguments."""
TODO_NOTE = "from the agent's write_todos tool"
"""The explanation a todo plan is shown with: the checklist and the timeline say where it came from."""
MAX_TODO_TEXT = 2_000
"""A todo's description is cut to this many characters (a step is one line of a checklist)."""
_TODO_STATUS = {
    "pending": (StepStatus.PENDING, ""),
    "in_progress": (StepStatus.IN_PROGRESS, ""),
    "completed": (StepStatus.COMPLETED, ""),
    # Gemini CLI's two statuses a Codex plan lacks: the step stays in the list, its text says so
    "cancelled": (StepStatus.COMPLETED, " (cancelled)"),
    "blocked": (StepStatus.PENDING, " (blocked)"),
}


def todo_plan(raw_input: Any) -> tuple[AcpPlanUpdate | None, str | None]:
    """The plan of Gemini CLI's ``write_todos`` arguments (``{"todos": [{"description", "status"}]}``,
    its ``write-todos.ts`` schema), or None and why it was not one.

    The arguments come from the agent, so they are trusted only as far as they are well-formed: a
    list that is not Gemini's shape, has more than ``MAX_PLAN_ENTRIES`` todos, a todo without a
    non-empty description or with an unknown status is ignored whole (a plan half right would
    mislead). Statuses map as Gemini's own checklist reads them: ``cancelled`` is a finished step
    whose text ends "(cancelled)", ``blocked`` a pending one ending "(blocked)". A description
    longer than ``MAX_TODO_TEXT`` characters is cut there.
    """
    todos = raw_input.get("todos") if isinstance(raw_input, dict) else None
    if not isinstance(todos, list):
        return None, f"its arguments are a JSON {_json_type(raw_input)} without a todos list"
    if len(todos) > MAX_PLAN_ENTRIES:
        return None, f"it has {len(todos)} todos, more than the {MAX_PLAN_ENTRIES} a checklist shows"
    steps: list[PlanItemArg] = []
    for index, todo in enumerate(todos):
        description = todo.get("description") if isinstance(todo, dict) else None
        status = todo.get("status") if isinstance(todo, dict) else None
        if not isinstance(description, str) or not description.strip():
            return None, f"todo {index + 1} has no description (a non-empty string)"
        if not isinstance(status, str) or status not in _TODO_STATUS:
            return None, (
                f"todo {index + 1} ({_preview(description)!r}) has the status {_json_text(status)}, not one of "
                f"{', '.join(_TODO_STATUS)}"
            )
        step_status, mark = _TODO_STATUS[status]
        text = description.strip()
        if len(text) > MAX_TODO_TEXT:
            text = text[:MAX_TODO_TEXT] + "..."
        steps.append(plan_step(text + mark, step_status))
    return (
        # Gemini's todos have no priority: none is shown rather than one made up
        AcpPlanUpdate(explanation=TODO_NOTE, plan=steps, origin=TODO_ORIGIN),
        None,
    )
