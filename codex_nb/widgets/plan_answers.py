"""PlanAnswersWidget: the agent's plan with a person's comments, suggested changes and decisions.

The checklist draws the agent's snapshot; this widget draws the same snapshot (replaced whole on
each revision) with a Comment control on every step, a Suggest control for the whole list, and,
when a Plan-mode turn ended with a proposed plan, Approve / Revise / Reject. Every control calls
the ``PlanAnswers`` method of the same name (``codex_nb.timeline.answers``), so what a person
does in the browser is what a notebook does in Python, and nbval can check it.

Kernel -> browser is synced state: ``steps``, ``comments``, ``suggestions``, ``proposal``,
``notice`` and ``last_reply`` (the reply to the latest request, by id: ``sent`` or ``refused``
with the reason). Browser -> kernel is ``protocol.json``'s ``plan_answers`` messages. A refused
answer (a vanished step, a comment of 1 MB, a suggestion that empties the plan) is a reply
saying why; nothing is sent to the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import threading
from typing import Any

import anywidget
import traitlets

from ..timeline.answer_records import PlanAnswerError, PlanSuggestion, ProposalAnswer, StepComment
from ..timeline.answers import PlanAnswers
from ._static import asset
from .browser_messages import ProtocolError, validate_to_kernel
from .final_state import FinalStateFallback
from .kernel_loop import call_on

log = logging.getLogger("codex_nb.widgets.plan_answers")

WIDGET = "plan_answers"
MARK = {"pending": "□", "in_progress": "■", "completed": "✔"}
STATE_LABEL = {
    "pending": "not sent yet",
    "sent": "sent",
    "answered": "answered",
    "step_removed": "the agent removed this step",
    "step_renamed": "the agent renamed this step",
    "adopted": "adopted",
    "partly_adopted": "partly adopted",
    "ignored": "ignored",
}
DELIVERY_LABEL = {
    "steered": "steered into the running turn",
    "queued": "queued: sent as the next prompt when the turn ends",
    "new_turn": "started a turn",
    "answered": "answered the agent's request",
    "not_sent": "not sent",
    "failed": "not sent (failed)",
}


_WHO = {"user": "you", "assistant": "agent"}


def _comment(c: StepComment) -> dict[str, Any]:
    state = STATE_LABEL[c.state]
    if c.state == "step_renamed" and c.renamed_to:
        state += f" to “{c.renamed_to}”"
    return {
        "id": c.id,
        "step_index": c.step_index,
        "step": c.step,
        "text": c.text,
        "state": c.state,
        "label": f"{state} · {DELIVERY_LABEL[c.delivery]}",
        "renamed_to": c.renamed_to,
    }


def _suggestion(s: PlanSuggestion) -> dict[str, Any]:
    return {
        "id": s.id,
        "diff": s.diff,
        "state": s.state,
        "label": f"{STATE_LABEL[s.state]} · {DELIVERY_LABEL[s.delivery]}",
        "held": list(s.held),
        "missed": list(s.missed),
    }


def comments_by_step(
    steps: list[dict[str, Any]], comments: list[dict[str, Any]]
) -> tuple[dict[int, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Where each comment is drawn: beside its step (found by text, the place it had first, then
    the text the agent renamed it to), or apart when the step is gone. ``plan_answers.js`` does
    the same (``commentsByStep``)."""
    placed: dict[int, list[dict[str, Any]]] = {}
    orphans: list[dict[str, Any]] = []
    texts = [s["step"] for s in steps]
    for c in comments:
        index = c["step_index"]
        if not (index < len(texts) and texts[index] == c["step"]):
            target = c["step"] if c["step"] in texts else c.get("renamed_to")
            index = texts.index(target) if target in texts else -1
        if index < 0:
            orphans.append(c)
        else:
            placed.setdefault(index, []).append(c)
    return placed, orphans


def started_turns(answers: PlanAnswers) -> list[dict[str, Any]]:
    """The turns the answers started (a new turn or a queued prompt), in order, each with its
    conversation so far (the person's words, the agent's answer) from the timeline: the person
    sees what their answer started, in the widget they answered in."""
    ids: list[str] = []
    records: list[StepComment | PlanSuggestion | ProposalAnswer] = [
        *answers.comments,
        *answers.suggestions,
        *answers.decisions,
    ]
    for record in records:
        if record.delivery in ("new_turn", "queued") and record.turn_id and record.turn_id not in ids:
            ids.append(record.turn_id)
    said: dict[str, list[dict[str, str]]] = {turn_id: [] for turn_id in ids}
    for message in answers.timeline.messages:
        if message.turn_id in said:
            said[message.turn_id].append({"role": message.role, "text": message.text})
    return [{"turn_id": turn_id, "messages": said[turn_id]} for turn_id in ids]


class PlanAnswersWidget(FinalStateFallback, anywidget.AnyWidget):
    """The plan with a person's answers: ``PlanAnswersWidget(cx.timeline.PlanAnswers(source, ...))``,
    or ``PlanAnswersWidget.of(source, model=...)``."""

    _esm = asset("plan_answers.js")
    _css = asset("plan_answers.css")

    steps: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """The agent's current steps: ``[{"index", "step", "status"}]``."""
    comments: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    suggestions: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    proposal = traitlets.Dict().tag(sync=True)
    """The proposed plan waiting for a decision (``{"index", "text"}``), or ``{}``."""
    decisions: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    can_send = traitlets.Bool(True).tag(sync=True)
    """The source takes answers (``capabilities.can_send``); the view shows no send controls when not."""
    notice = traitlets.Unicode("").tag(sync=True)
    last_reply = traitlets.Dict().tag(sync=True)
    """Reply to the latest request: ``{"id", "outcome": "sent" | "refused", "message"}``."""
    error = traitlets.Unicode("").tag(sync=True)
    """The latest malformed browser message (cleared by the next accepted one)."""
    turns: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """The turns answers started: ``[{"turn_id", "messages": [{"role": "user" | "assistant", "text"}]}]``."""

    def __init__(self, answers: PlanAnswers, **kwargs: Any) -> None:
        if not isinstance(answers, PlanAnswers):
            raise TypeError(
                f"PlanAnswersWidget takes a PlanAnswers, got {type(answers).__name__}; "
                "use PlanAnswersWidget.of(source, model=...) to make both"
            )
        super().__init__(**kwargs)
        self.answers = answers
        self._lock = threading.Lock()
        self.replies: list[dict[str, str]] = []
        """Every reply, in order (for tests and notebooks)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):  # made outside a loop: messages are handled where they arrive
            self._loop = asyncio.get_running_loop()
        self._removers = [answers.on_change(self._sync), answers.timeline.on_change(self._sync)]
        self.on_msg(self._on_view_msg)
        self._sync()

    @classmethod
    def of(cls, source: Any, *, model: Any = None, who: str = "person") -> PlanAnswersWidget:
        """A widget on a new ``PlanAnswers(source, model=model, who=who)``."""
        return cls(PlanAnswers(source, model=model, who=who))

    # -- kernel -> view ---------------------------------------------------------------------
    def _sync(self) -> None:
        answers = self.answers
        revisions = answers.timeline.revisions
        steps = revisions[-1].steps if revisions else ()
        proposal = answers.proposal
        with self._lock, self.hold_sync():
            self.steps = [{"index": i, "step": s.step, "status": s.status} for i, s in enumerate(steps)]
            self.comments = [_comment(c) for c in answers.comments]
            self.suggestions = [_suggestion(s) for s in answers.suggestions]
            self.proposal = {"index": proposal.index, "text": proposal.text} if proposal is not None else {}
            self.decisions = [
                {"id": d.id, "decision": d.decision, "comment": d.comment or "", "delivery": d.delivery}
                for d in answers.decisions
            ]
            self.notice = answers.notices[-1] if answers.notices else ""
            self.can_send = answers.capabilities.can_send
            self.turns = started_turns(answers)

    # -- view -> kernel ---------------------------------------------------------------------
    def _on_view_msg(self, _widget: object, content: object, _buffers: object) -> None:
        # ipykernel 7.0-7.3 may deliver comm messages on a subshell thread: answers start turns and
        # steering tasks, which belong on the kernel's loop, so the message is handled there
        call_on(self._loop, self._handle_view_msg, content)

    def _handle_view_msg(self, content: object) -> None:
        try:
            self.handle_message(content)
        except ProtocolError as err:
            log.warning("plan answers rejected a message: %s", err)
            self.error = str(err)
        except Exception as err:  # never let a widget message kill the comm handler  # noqa: BLE001
            log.exception("plan answers message failed")
            self.error = f"internal error: {type(err).__name__}: {err}"

    def handle_message(self, content: object) -> dict[str, str]:
        """Validate one browser message and do what it asks; returns the reply."""
        message = validate_to_kernel(WIDGET, content)
        kind = message["kind"]
        answers = self.answers
        self.error = ""
        try:
            if kind == "comment":
                answers.comment(message["step"], message["text"])
            elif kind == "suggest":
                answers.suggest(message["steps"])
            elif kind == "approve":
                answers.approve()
            elif kind == "revise":
                answers.revise(message["text"])
            else:
                answers.reject()
        except PlanAnswerError as err:
            return self._reply(message["id"], "refused", str(err))
        except Exception as err:  # noqa: BLE001 - e.g. the source is closed: say so in the widget
            return self._reply(message["id"], "refused", f"{type(err).__name__}: {err}")
        return self._reply(message["id"], "sent", answers.notices[-1] if kind != "reject" and answers.notices else "")

    def _reply(self, request_id: str, outcome: str, text: str) -> dict[str, str]:
        reply = {"id": request_id, "outcome": outcome, "message": text}
        self.replies.append(reply)
        self.last_reply = reply
        return reply

    # -- reprs (stable for nbval: no ids, no times) -------------------------------------------
    def text(self) -> str:
        """The plan with each step's comments, the suggestions and a waiting proposal, as text."""
        lines = ["Plan (answer it here)"] if self.steps else ["Plan: none yet"]
        placed, orphans = comments_by_step(self.steps, self.comments)
        for step in self.steps:
            lines.append(f"  {MARK.get(step['status'], '?')} {step['step']}")
            for c in placed.get(step["index"], []):
                lines.append(f"      comment: {c['text']}  ({c['label']})")
        for c in orphans:
            lines.append(f"  comment on “{c['step']}”: {c['text']}  ({c['label']})")
        for s in self.suggestions:
            lines.append(f"  Suggested change ({s['label']}):")
            lines.extend(f"    {line}" for line in s["diff"].splitlines() if line.startswith(("+", "-", "~", ">")))
        if self.proposal:
            lines.append("  Proposed plan, waiting for your decision: [Approve] [Revise] [Reject]")
        for d in self.decisions:
            lines.append(f"  Proposed plan {d['decision']}" + (f": {d['comment']}" if d["comment"] else ""))
        for turn in self.turns:
            lines.append("  Turn your answer started:")
            lines.extend(f"    {_WHO[m['role']]}: {m['text']}" for m in turn["messages"])
            if not any(m["role"] == "assistant" for m in turn["messages"]):
                lines.append("    (no answer from the agent yet)")
        if self.notice:
            lines.append(f"  Note: {self.notice}")
        return "\n".join(lines)

    def html(self) -> str:
        """``text()`` as escaped HTML (viewers without a widget manager)."""
        return f'<pre class="cx-plan-answers-static">{html.escape(self.text())}</pre>'

    def __repr__(self) -> str:
        return self.text()

    def close(self) -> None:
        """Stop following the answers (and the source), then close the comm."""
        for remove in self._removers:
            remove()
        super().close()
