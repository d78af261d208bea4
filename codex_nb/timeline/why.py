"""Why a turn ended without a plan, from facts the source showed, in one line.

Plans go missing silently: Codex made ``update_plan`` opt-in, a Plan-mode call is refused,
a model never calls the tool, an ACP agent never sends a ``plan`` update. A checklist that
just says "(no plan yet)" leaves a person guessing. ``NoPlanTracker`` watches a source's
turns and says which of these happened, only when the source showed it:

* ``tool_off``: ``update_plan`` was not in the turn's tool plan (a ``cx.Session`` says);
  the fix names the config key that turns it on.
* ``rejected``: the model called ``update_plan`` and every call failed; the line quotes the
  error the model got (the call's output in the session history).
* ``not_called``: the tool was offered and the model never called it.
* ``no_update``: a peer (Codex app-server, an ACP agent) sent no plan update in the turn;
  what the peer offered its model is not visible, so no cause is named, except one the peer
  showed: an ACP agent's todo-tool call (Gemini CLI's ``write_todos``, ``acp.quirks.todo_tool``)
  that carried no todos, which the line names.

Which facts a source shows is read from its ``capabilities`` (``tool_plan``, ``no_plan_line``).
Any other source, or a turn whose facts fit none of these, gets no line: no guessing.

A turn that produced a plan, or a proposed plan (Plan mode), has no line.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..acp.quirks import todo_tool
from ..protocol.events import Event
from ..protocol.wire import well_formed
from ..protocol.capabilities import capabilities_of

NoPlanReason = Literal["tool_off", "rejected", "not_called", "no_update"]
ERROR_CHARS = 300
"""Characters of the model's error quoted in the line (the rest is cut, marked with …)."""
CONFIG_FIX = "set `[tools.update_plan] enabled = true` in config.toml (`cx.Config(update_plan_enabled=True)`)"
_TURN_END = ("turn_complete", "turn_aborted")


@dataclass(frozen=True, kw_only=True, slots=True)
class NoPlan:
    """A turn that ended without a plan, and why (see the module docstring for ``reason``)."""

    turn_id: str | None
    reason: NoPlanReason
    message: str
    """What happened, in one sentence (the model's error quoted, for ``rejected``)."""
    fix: str | None = None
    """What to change, when there is one fix (``tool_off``)."""

    @property
    def line(self) -> str:
        """``No plan: <message>`` and the fix, on one line."""
        return f"No plan: {self.message}" + (f"; {self.fix}" if self.fix else "")


@dataclass(kw_only=True)
class _Turn:
    turn_id: str | None
    offered: bool | None = None
    """Whether update_plan was in the tool plan (None: the source does not say)."""
    config_on: bool | None = None
    rejected: list[str] | None = None
    called: int = 0
    plans: int = 0
    proposals: int = 0
    todos_unsent: bool = False
    """An ACP todo-tool call of the turn finished without its todos (``acp.quirks.todo_tool``)."""


class NoPlanTracker:
    """Feed it a source's events (``on_event``) and a session's lifecycle records (``on_lifecycle``)."""

    def __init__(self, source: object, *, on_change: Callable[[NoPlan | None], object] | None = None):
        self._source = source
        self._capabilities = capabilities_of(source)
        self._lock = threading.Lock()
        self._turn: _Turn | None = None
        self._on_change = on_change
        self.latest: NoPlan | None = None
        """The latest ended turn's reason, None if it had a plan (or no turn ended yet)."""

    def on_event(self, event: Event) -> None:
        kind = event.msg.type
        if kind == "turn_started":
            self._start(
                getattr(event.msg, "turn_id", None) or event.turn_id,
                getattr(event.msg, "collaboration_mode_kind", "default"),
            )
        elif kind == "plan_update":
            with self._lock:
                if self._turn is not None:
                    self._turn.plans += 1
            self._set(None)
        elif kind == "item_completed" and _is_proposal(event):
            with self._lock:
                if self._turn is not None:
                    self._turn.proposals += 1
        elif kind == "acp_tool_call" and _todos_unsent(event.msg):
            with self._lock:
                if self._turn is not None:
                    self._turn.todos_unsent = True
        elif kind in _TURN_END:
            self._end(event)

    def on_lifecycle(self, record: Any) -> None:
        """A session's ``update_plan`` call finished: count it, and remember it if it failed."""
        if getattr(getattr(record, "tool_name", None), "name", None) != "update_plan" or record.phase != "finish":
            return
        with self._lock:
            turn = self._turn
            if turn is None or record.turn_id != turn.turn_id:
                return
            turn.called += 1
            outcome = record.outcome
            if outcome is not None and not (outcome.kind == "Completed" and outcome.success):
                turn.rejected = (turn.rejected or []) + [record.call_id]

    def _start(self, turn_id: str | None, mode: str) -> None:
        turn = _Turn(turn_id=turn_id)
        if self._capabilities.tool_plan:  # the source says so: it has tool_plan(mode) and config
            source: Any = self._source
            try:
                names = source.tool_plan(mode).tool_names  # a property of ToolPlan
                turn.offered = "update_plan" in (names() if callable(names) else names)
            except Exception:  # a source's odd tool plan: then it says nothing
                turn.offered = None
            turn.config_on = getattr(source.config, "update_plan_enabled", None)
        with self._lock:
            self._turn = turn

    def _end(self, event: Event) -> None:
        with self._lock:
            turn, self._turn = self._turn, None
        if turn is None or (event.turn_id is not None and turn.turn_id is not None and event.turn_id != turn.turn_id):
            return
        self._set(self._explain(turn))

    def _explain(self, turn: _Turn) -> NoPlan | None:
        if turn.plans or turn.proposals:
            return None
        tid = turn.turn_id
        where = f"in turn {_short(tid)}" if tid else "in this turn"
        if turn.offered is False:
            if turn.config_on is False:
                return NoPlan(
                    turn_id=tid,
                    reason="tool_off",
                    message="update_plan is off in this session's config",
                    fix=CONFIG_FIX,
                )
            return NoPlan(turn_id=tid, reason="tool_off", message=f"update_plan was not in the tool plan {where}")
        if turn.rejected and len(turn.rejected) == turn.called:
            error = self._model_error(turn.rejected[-1])
            said = f": “{error}”" if error else ""
            return NoPlan(turn_id=tid, reason="rejected", message=f"update_plan was called and rejected {where}{said}")
        if turn.offered and not turn.called:
            return NoPlan(turn_id=tid, reason="not_called", message=f"the model never called update_plan {where}")
        peer = self._capabilities.no_plan_line
        if peer is not None:
            unsent = "; its write_todos call carried no todos (Gemini CLI 0.61 sends only its title)"
            return NoPlan(
                turn_id=tid, reason="no_update", message=f"{peer} {where}" + (unsent if turn.todos_unsent else "")
            )
        return None  # no fact to go on: say nothing rather than guess

    def _model_error(self, call_id: str) -> str:
        """The output the model got for ``call_id``, from the session history (empty if not there)."""
        history = getattr(self._source, "history", None)
        if not isinstance(history, list):
            return ""
        for item in reversed(history[-200:]):
            if isinstance(item, dict) and item.get("type") == "function_call_output" and item.get("call_id") == call_id:
                return _cut(_output_text(item.get("output")))
        return ""

    def _set(self, value: NoPlan | None) -> None:
        changed = value != self.latest
        self.latest = value
        if changed and self._on_change is not None:
            self._on_change(value)


def _todos_unsent(msg: Any) -> bool:
    return msg.status == "completed" and msg.raw_input is None and todo_tool(msg.call_id)


def _is_proposal(event: Event) -> bool:
    item = getattr(event.msg, "item", None)
    return isinstance(item, dict) and item.get("type") == "plan"


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):  # content items: the text parts
        return " ".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    if isinstance(output, dict):
        return str(output.get("content") or output.get("text") or "")
    return ""


def _cut(text: str) -> str:
    text = " ".join(well_formed(text).split())
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


def _short(text: str) -> str:
    text = well_formed(text)
    return text if len(text) <= 12 else text[:11] + "…"
