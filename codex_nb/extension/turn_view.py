"""What a ``%%codex`` cell shows: the turn's live widgets in one box.

Stop control, checklist, transcript (assistant text as it streams, tool calls and their
outputs) and prompts follow the source's events (the widgets take any event source); a one-line outcome under them says how the turn ended, including the
error of a turn that failed, because output a background task prints after its cell
ended is lost. The box carries a stable ``text/plain`` / ``text/html`` for nbval and
viewers without a widget manager, updated in place to the turn's final state at the end of the
next cell that runs (``FinalStateFallback``), so a saved notebook does not show a finished turn
as running.
"""

from __future__ import annotations

import asyncio
import html
from typing import Any

import ipywidgets

from ..protocol.capabilities import capabilities_of
from ..widgets.checklist import PlanChecklist
from ..widgets.final_state import FinalStateFallback
from ..widgets.prompts import PromptsWidget
from ..widgets.static_fallback import StaticFallback
from ..widgets.transcript import Transcript
from ..widgets.turn_controls import TurnControls


def outcome_text(result: Any) -> str:
    """One line for a finished turn: status, then the final message or the error (a goal run:
    the goal's end and how many continuation turns it took)."""
    if hasattr(result, "goal") and hasattr(result, "turns"):
        turns = len(result.turns) + getattr(result, "more_turns", 0)
        return f"Goal {result.status} after {turns} turn{'' if turns == 1 else 's'}" + (
            " (stopped)" if getattr(result, "stopped", False) else ""
        )
    status = getattr(result, "status", "completed")
    detail = (
        getattr(result, "error", None)
        or getattr(result, "last_agent_message", None)
        or _last_agent_item(getattr(result, "items", None) or [])
    )
    detail = " ".join(str(detail).split())
    return f"Turn {status}" + (f": {detail}" if detail else "")


def _last_agent_item(items: list[dict[str, Any]]) -> str:
    """The final message of a turn whose result only lists items (a real Codex ``agentMessage``)."""
    for item in reversed(items):
        if isinstance(item, dict) and item.get("type") == "agentMessage":
            return str(item.get("text", ""))
    return ""


class TurnView(FinalStateFallback, ipywidgets.VBox):
    """Controls, checklist, prompts and outcome of one ``%%codex`` turn (or the live plan of a session)."""

    children: tuple[Any, ...]  # VBox's trait; ipywidgets has no types, and it is assigned below

    def __init__(
        self, source: Any, *, title: str, extra: list[Any] | None = None, turn: bool = True, **kwargs: Any
    ) -> None:
        """``turn=False``: the session's live plan and Stop control only (``%codex_plan``), no
        prompts or outcome line of one turn."""
        self.title = title
        self.controls = TurnControls(source)
        # a turn's view starts empty: the session's previous plan beside "Turn: running" would say
        # the new turn had already finished it
        self.checklist = PlanChecklist(source, only_active_turn=turn)
        self.transcript = Transcript(source) if turn else None
        self.prompts = PromptsWidget(source) if turn and capabilities_of(source).answers else None
        # empty while the turn runs (the controls say "running"), so no saved or lagging view of
        # it can say "running" beside a finished turn
        self.outcome = ipywidgets.Label(value="")
        self.outcome.add_class("cx-turn-outcome")
        parts = [
            self.controls,
            *(extra or []),
            self.checklist,
            *([self.transcript] if self.transcript else []),
            *([self.prompts] if self.prompts else []),
            *([self.outcome] if turn else []),
        ]
        super().__init__(children=parts, **kwargs)
        self.add_class("cx-turn-view")

    def follow(self, task: asyncio.Future[Any]) -> None:
        """Show the outcome of the turn ``task`` when it ends, then freeze: a finished turn's
        view must not show (or stop) the session's next turn."""
        self.checklist.track(task)  # an exception in the task becomes the checklist's error
        task.add_done_callback(self._finished)

    def _finished(self, task: Any) -> None:
        self.checklist.flush()
        self.checklist.detach()
        self.controls.detach()
        if self.transcript is not None:
            self.transcript.detach()
        if self.prompts is not None:  # questions belong to a running turn
            self.children = tuple(c for c in self.children if c is not self.prompts)
            self.prompts.close()
            self.prompts = None
        if task.cancelled():
            self.outcome.value = "Turn cancelled"
        elif task.exception() is not None:
            err = task.exception()
            self.outcome.value = f"Turn failed: {type(err).__name__}: {err}"
        else:
            self.outcome.value = outcome_text(task.result())

    def before_static(self) -> None:
        """Send the checklist's coalesced snapshot, so the stored output and the view agree."""
        self.checklist.before_static()

    def parts(self) -> list[Any]:
        return [c for c in self.children if isinstance(c, StaticFallback)]

    def text(self) -> str:
        lines = [self.title, *(part.text() for part in self.parts())]
        return "\n".join(
            [*lines, self.outcome.value] if self.outcome in self.children and self.outcome.value else lines
        )

    def html(self) -> str:
        body = "".join(part.html() for part in self.parts())
        if self.outcome in self.children and self.outcome.value:
            body += f"<div>{html.escape(self.outcome.value)}</div>"
        return f'<div class="cx-turn-view-static"><div><b>{html.escape(self.title)}</b></div>{body}</div>'

    def close(self) -> None:
        for child in {*self.children, self.outcome, *([self.prompts] if self.prompts is not None else [])}:
            child.close()
        super().close()
