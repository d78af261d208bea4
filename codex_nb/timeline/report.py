"""A ``PlanTimeline`` as JSON, as Markdown (e.g. a pull-request comment) and as plain text.

Step text comes from the model or a peer: it may hold ``|``, backticks, HTML, newlines,
lone surrogates or a megabyte. Every untrusted string goes through ``markdown_text`` (or
``plain``) before it is placed, so it can neither break the table it sits in nor inject
markup, and each is cut to a stated length.

``to_json()`` shape (``"version": 1``; keys are only ever added)::

    {"format": "codex_nb.plan_timeline", "version": 1,
     "thread_id": str, "source_kind": "session"|"app_server"|"acp"|"rollout"|"other",
     "max_revisions": int,
     "dropped": {"oldest": int, "out_of_order": int, "other_thread": int, "proposals": int},
     "out_of_order": [{"revision": int, "newest": int, "time": ISO-8601, "turn_id": str|null}],
     "revisions": [{
        "index": int, "revision": int|null, "time": ISO-8601 UTC, "thread_id": str,
        "turn_id": str|null, "call_id": str|null, "notification": str|null, "source_kind": str,
        "explanation": str|null, "steps": [{"step": str, "status": str}],
        "steps_omitted": int, "truncated": bool,
        "changes": {"from": int|null, "unchanged": int, "explanation_changed": bool,
                    "steps": [{"kind": "added"|"removed"|"renamed"|"status"|"renamed_status",
                               "old_position": int|null, "new_position": int|null,
                               "old_step": str|null, "new_step": str|null,
                               "old_status": str|null, "new_status": str|null,
                               "similarity": float|null, "regression": bool}]}}]}

     "proposals": [{"index": int, "time": ISO-8601, "turn_id": str|null, "item_id": str|null,
                    "text": str, "truncated": bool, "turn_ended": bool,
                    "agent_message": str|null, "awaiting_decision": bool}],
     "messages": [{"index": int, "time": ISO-8601, "turn_id": str|null, "role": "user"|"assistant",
                   "text": str, "truncated": bool}],   (only when the source carried a conversation)
     "no_plan": {"turn_id": str|null, "reason": "tool_off"|"rejected"|"not_called"|"no_update",
                 "message": str, "fix": str|null}|null,
     "usage": [{"turn_id": str|null, "context_used": int|null, "context_window": int|null,
                "turn": int|null, "total": int|null}],   (only when the source reported usage)
     "notices": [{"index": int, "time": ISO-8601, "turn_id": str|null,
                  "kind": "notice"|"compaction"|"subagent", "key": str, "title": str, "status": str,
                  "text": str}],   (only when an ACP agent sent notices, compactions or subagents)
     "changes": [{"turn_id": str|null, "added": int, "removed": int, "more_files": int,
                  "files": [{"path": str, "kind": "add"|"delete"|"update", "added": int, "removed": int}],
                  "unified_diff": str, "cut_chars": int}],   (only when a turn changed files)
     "auto_reviews": [{"review_id": str, "turn_id": str, "status": "in_progress"|"approved"|"denied"|
                       "timed_out"|"aborted", "overridden": bool, "action_kind": str, "action": str,
                       "risk_level": str|null, "user_authorization": str|null, "rationale": str|null,
                       "line": str}],   (only when Codex's automatic reviewer decided an approval)
     "goals": [{"index": int, "time": ISO-8601, "turn_id": str|null,
                "status": "active"|"paused"|"blocked"|"usageLimited"|"budgetLimited"|"complete"|"cleared",
                "objective": str, "token_budget": int|null, "tokens_used": int, "time_used_seconds": int,
                "line": str}],   (only when a real Codex thread's goal was set)
     "rewound_turns": [str]}   (only when a rewind undid turns)

``changes`` compares each revision with the kept one before it (the first kept: with no
plan). ``proposals`` are Plan mode's proposed plans (prose, not checklists); ``no_plan``
says why the latest ended turn has no plan, when the source showed why. Strings are well-formed Unicode (a lone surrogate becomes U+FFFD).
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Callable
from typing import Any, Protocol

from ..protocol.auto_review import AutoApprovalReview, review_line
from ..protocol.wire import well_formed
from .answer_records import AnswerRecord, answer_data, answer_line
from .records import (
    ConversationMessage,
    DroppedRevision,
    PlanDiff,
    PlanProposal,
    GoalRecord,
    PlanRevision,
    SourceKind,
    StepChange,
    TurnChanges,
    TurnUsage,
)
from .why import NoPlan


class PlanTimeline(Protocol):
    """What a report reads of a ``recorder.PlanTimeline`` (a protocol: the recorder imports this module)."""

    thread_id: str
    source_kind: SourceKind
    max_revisions: int
    dropped_oldest: int
    dropped_out_of_order: int
    other_thread: int
    dropped_proposals: int

    @property
    def proposals(self) -> tuple[PlanProposal, ...]: ...

    @property
    def no_plan(self) -> NoPlan | None: ...

    @property
    def answers(self) -> tuple[AnswerRecord, ...]: ...

    @property
    def messages(self) -> tuple[ConversationMessage, ...]: ...

    @property
    def usage(self) -> tuple[TurnUsage, ...]: ...

    @property
    def turn_changes(self) -> tuple[TurnChanges, ...]: ...

    @property
    def auto_reviews(self) -> tuple[AutoApprovalReview, ...]: ...

    @property
    def rewound_turns(self) -> tuple[str, ...]: ...

    @property
    def goals(self) -> tuple[GoalRecord, ...]: ...

    @property
    def revisions(self) -> tuple[PlanRevision, ...]: ...

    @property
    def out_of_order(self) -> tuple[DroppedRevision, ...]: ...

    def diff(self, a: int | PlanRevision | None, b: int | PlanRevision) -> PlanDiff: ...


FORMAT = "codex_nb.plan_timeline"
VERSION = 1
CELL_CHARS = 300
"""Characters of a step shown in a Markdown table cell (the rest is cut and counted)."""
PARAGRAPH_CHARS = 1000
LINE_CHARS = 60
PROPOSALS_SHOWN = 20
"""Proposed plans in a Markdown report (the newest)."""
PROPOSAL_LINES = 200
USAGE_SHOWN = 50
"""Turns in a Markdown report's usage table (the newest)."""
CHANGES_SHOWN = 20
"""Turns in a Markdown report's "What changed" section (the newest)."""
GOALS_SHOWN = 50
"""Goal records (and rewound turns) in a Markdown report (the newest)."""
DIFF_LINES_SHOWN = 200
"""Lines of each turn's diff in a Markdown report (the first; the file list is always whole)."""

_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# Other controls, and the bidi overrides that could make a step read as something else.
_HIDDEN = re.compile(r"[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")
# Inline markup only: the text never starts a line (it follows a table pipe, a list marker,
# an emphasis star or a heading's words), so block markers such as "#", "-" or "1." are inert.
_PUNCTUATION = re.compile(r"([\\`*_\[\]|~$])")
_STATUS = {"pending": "pending", "in_progress": "in progress", "completed": "completed"}


# ---- JSON -----------------------------------------------------------------------------------


def timeline_json(timeline: PlanTimeline) -> str:
    return json.dumps(timeline_data(timeline), ensure_ascii=False)


def timeline_data(timeline: PlanTimeline) -> dict[str, Any]:
    revisions = timeline.revisions
    return {
        "format": FORMAT,
        "version": VERSION,
        "thread_id": well_formed(timeline.thread_id),
        "source_kind": str(timeline.source_kind),
        "max_revisions": timeline.max_revisions,
        "dropped": {
            "oldest": timeline.dropped_oldest,
            "out_of_order": timeline.dropped_out_of_order,
            "other_thread": timeline.other_thread,
            "proposals": timeline.dropped_proposals,
        },
        "out_of_order": [
            {"revision": d.revision, "newest": d.newest, "time": iso_time(d.time), "turn_id": _opt(d.turn_id)}
            for d in timeline.out_of_order
        ],
        "revisions": [
            _revision_data(revision, timeline.diff(revisions[i - 1] if i else None, revision))
            for i, revision in enumerate(revisions)
        ],
        "proposals": [_proposal_data(p) for p in timeline.proposals],
        "no_plan": _no_plan_data(timeline.no_plan),
        # a person's answers (PlanAnswers), only when there are some: older exports stay as they were
        **({"answers": [answer_data(a) for a in timeline.answers]} if timeline.answers else {}),
        # the conversation (both sides, in order), only when there is one: older exports stay as they were
        **({"messages": [_message_data(m) for m in timeline.messages]} if timeline.messages else {}),
        # each turn's token usage, only when the source reported some: older exports stay as they were
        **({"usage": [_usage_data(u) for u in timeline.usage]} if timeline.usage else {}),
        # an ACP agent's notices, compactions and subagents, only when it sent some
        **({"notices": [_notice_data(n) for n in notices]} if (notices := getattr(timeline, "notices", ())) else {}),
        # each turn's diff, only when a turn changed files: older exports stay as they were
        **({"changes": [_changes_data(c) for c in timeline.turn_changes]} if timeline.turn_changes else {}),
        # Codex's automatic reviews, only when there are some: older exports stay as they were
        **({"auto_reviews": [_review_data(r) for r in timeline.auto_reviews]} if timeline.auto_reviews else {}),
        # a real Codex thread's goal records and the turns a rewind undid, only when there are some
        **({"goals": [_goal_data(g) for g in timeline.goals]} if timeline.goals else {}),
        **({"rewound_turns": [well_formed(t) for t in timeline.rewound_turns]} if timeline.rewound_turns else {}),
    }


def _goal_data(goal: GoalRecord) -> dict[str, Any]:
    return {
        "index": goal.index,
        "time": iso_time(goal.time),
        "turn_id": _opt(goal.turn_id),
        "status": goal.status,
        "objective": well_formed(goal.objective),
        "token_budget": goal.token_budget,
        "tokens_used": goal.tokens_used,
        "time_used_seconds": goal.time_used_seconds,
        "line": well_formed(goal.line()),
    }


def _review_data(review: AutoApprovalReview) -> dict[str, Any]:
    fields = ("review_id", "turn_id", "status", "overridden", "action_kind", "action", "risk_level")
    data: dict[str, Any] = {name: getattr(review, name) for name in fields}
    data["user_authorization"] = review.user_authorization
    data["rationale"] = review.rationale
    data["line"] = review_line(review)
    return {k: well_formed(v) if isinstance(v, str) else v for k, v in data.items()}


def _notice_data(notice: Any) -> dict[str, Any]:
    return {
        "index": notice.index,
        "time": iso_time(notice.time),
        "turn_id": _opt(notice.turn_id),
        "kind": notice.kind,
        "key": notice.key,
        "title": notice.title,
        "status": notice.status,
        "text": notice.text,
    }


def _changes_data(changes: TurnChanges) -> dict[str, Any]:
    return {
        "turn_id": _opt(changes.turn_id),
        "added": changes.added,
        "removed": changes.removed,
        "more_files": changes.more_files,
        "files": [{"path": f.path, "kind": f.kind, "added": f.added, "removed": f.removed} for f in changes.files],
        "unified_diff": changes.unified_diff,
        "cut_chars": changes.cut_chars,
    }


def _usage_data(usage: TurnUsage) -> dict[str, Any]:
    return {
        "turn_id": _opt(usage.turn_id),
        "context_used": usage.context_used,
        "context_window": usage.context_window,
        "turn": usage.turn,
        "total": usage.total,
    }


def _message_data(message: ConversationMessage) -> dict[str, Any]:
    return {
        "index": message.index,
        "time": iso_time(message.time),
        "turn_id": _opt(message.turn_id),
        "role": message.role,
        "text": well_formed(message.text),
        "truncated": message.truncated,
    }


def _proposal_data(proposal: PlanProposal) -> dict[str, Any]:
    return {
        "index": proposal.index,
        "time": iso_time(proposal.time),
        "turn_id": _opt(proposal.turn_id),
        "item_id": _opt(proposal.item_id),
        "text": well_formed(proposal.text),
        "truncated": proposal.truncated,
        "turn_ended": proposal.turn_ended,
        "agent_message": _opt(proposal.agent_message),
        "awaiting_decision": proposal.awaiting_decision,
    }


def _no_plan_data(no_plan: NoPlan | None) -> dict[str, Any] | None:
    if no_plan is None:
        return None
    return {
        "turn_id": _opt(no_plan.turn_id),
        "reason": no_plan.reason,
        "message": well_formed(no_plan.message),
        "fix": no_plan.fix,
    }


def _revision_data(revision: PlanRevision, changes: PlanDiff) -> dict[str, Any]:
    return {
        "index": revision.index,
        "revision": revision.revision,
        "time": iso_time(revision.time),
        "thread_id": well_formed(revision.thread_id),
        "turn_id": _opt(revision.turn_id),
        "call_id": _opt(revision.call_id),
        "notification": revision.notification,
        "source_kind": str(revision.source_kind),
        "explanation": _opt(revision.explanation),
        "steps": [{"step": well_formed(s.step), "status": s.status} for s in revision.steps],
        "steps_omitted": revision.steps_omitted,
        "truncated": revision.truncated,
        "changes": {
            "from": changes.old_index,
            "unchanged": changes.unchanged,
            "explanation_changed": changes.explanation_changed,
            "steps": [_change_data(c) for c in changes.changes],
        },
    }


def _change_data(change: StepChange) -> dict[str, Any]:
    return {
        "kind": change.kind,
        "old_position": change.old_position,
        "new_position": change.new_position,
        "old_step": _opt(change.old_step),
        "new_step": _opt(change.new_step),
        "old_status": change.old_status,
        "new_status": change.new_status,
        "similarity": change.similarity,
        "regression": change.regression,
    }


def _opt(text: str | None) -> str | None:
    return None if text is None else well_formed(text)


def iso_time(seconds: float) -> str:
    """``seconds`` since the epoch as ISO 8601 UTC with milliseconds (``...Z``)."""
    try:
        moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    except (OverflowError, OSError, ValueError):
        return str(seconds)  # a custom clock's odd value is shown, not fatal
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---- Markdown -------------------------------------------------------------------------------


def markdown_text(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` as inert Markdown inline content on one line: cut to ``limit`` characters,
    HTML and Markdown punctuation escaped, line breaks shown as ``<br>``, other control
    and bidi-override characters replaced by U+FFFD."""
    text, more = _cut(well_formed(text), limit)
    text = _HIDDEN.sub("\ufffd", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    text = _PUNCTUATION.sub(r"\\\1", text)
    # A GitHub comment would notify an @name; a zero-width space after @ keeps it text.
    text = text.replace("@", "@\u200b")
    text = "<br>".join(part.strip(" \t") for part in _BREAKS.split(text))
    if more:
        text += f" … *({more} more characters)*"
    return text or "*(empty)*"


def timeline_markdown(timeline: PlanTimeline, *, last: int | None) -> str:
    revisions = timeline.revisions
    count = len(revisions)
    start = 0 if last is None else max(0, count - max(0, last))
    lines = [
        f"### Plan history: {count} revision{'s' if count != 1 else ''} "
        f"({timeline.source_kind}, thread {markdown_text(timeline.thread_id, LINE_CHARS)})",
        "",
    ]
    notes = _notes(timeline, hidden=start)
    if notes:
        lines += [f"> {note}" for note in notes] + [""]
    no_plan = timeline.no_plan
    if no_plan is not None:
        lines += [f"**{markdown_text(no_plan.line, PARAGRAPH_CHARS)}**", ""]
    if not revisions and not timeline.proposals:
        lines += ["*No plan yet.*", ""]
    for i in range(start, count):
        lines += _revision_markdown(revisions[i], timeline.diff(revisions[i - 1] if i else None, revisions[i]))
    for proposal in timeline.proposals[-PROPOSALS_SHOWN:]:
        lines += _proposal_markdown(proposal)
    if timeline.goals:
        lines += [
            "### Goal",
            "",
            *(_goal_markdown(g) for g in timeline.goals[-GOALS_SHOWN:]),
            "",
        ]
    if timeline.rewound_turns:
        turns = ", ".join(markdown_text(t, LINE_CHARS) for t in timeline.rewound_turns[-GOALS_SHOWN:])
        lines += [f"*Rewound (undone, files not restored): turn(s) {turns}*", ""]
    if timeline.answers:
        lines += [
            "### Answers",
            "",
            *(f"- {markdown_text(answer_line(a), PARAGRAPH_CHARS)}" for a in timeline.answers),
            "",
        ]
    if timeline.usage:
        lines += _usage_markdown(timeline.usage[-USAGE_SHOWN:])
    if timeline.turn_changes:
        lines += _changes_markdown(timeline.turn_changes[-CHANGES_SHOWN:])
    if timeline.auto_reviews:
        lines += [
            "### Automatic reviews (Codex's reviewer, not the person)",
            "",
            *(f"- {markdown_text(review_line(r), PARAGRAPH_CHARS)}" for r in timeline.auto_reviews[-CHANGES_SHOWN:]),
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _goal_markdown(goal: GoalRecord) -> str:
    turn = f" (turn {markdown_text(goal.turn_id, LINE_CHARS)})" if goal.turn_id is not None else ""
    return f"- {markdown_text(iso_time(goal.time), LINE_CHARS)}{turn}: {markdown_text(goal.line(), PARAGRAPH_CHARS)}"


def _tokens(value: int | None) -> str:
    return "\u2013" if value is None else f"{value:,}"


def _usage_markdown(usage: tuple[TurnUsage, ...]) -> list[str]:
    """One row per turn: the tokens in the context window (of its size), the turn's, the thread's."""
    lines = ["### Usage", "", "| Turn | Context | This turn | In all |", "|---|---|---|---|"]
    for u in usage:
        context = _tokens(u.context_used) if u.context_used is None else f"{u.context_used:,} tokens"
        if u.context_used is not None and u.context_window:
            context = f"{u.context_used:,} of {u.context_window:,} tokens ({u.context_used * 100 // u.context_window}%)"
        turn = markdown_text(u.turn_id, LINE_CHARS) if u.turn_id is not None else "(between turns)"
        lines.append(f"| {turn} | {context} | {_tokens(u.turn)} | {_tokens(u.total)} |")
    return [*lines, ""]


def _changes_markdown(turns: tuple[TurnChanges, ...]) -> list[str]:
    """Per turn: its files with their added and removed lines, then its diff in a fenced block."""
    lines = ["### What changed", ""]
    for c in turns:
        turn = markdown_text(c.turn_id, LINE_CHARS) if c.turn_id is not None else "(between turns)"
        count = len(c.files) + c.more_files
        lines += [f"Turn {turn}: {count} file(s), +{c.added} -{c.removed}", ""]
        lines += [f"- {markdown_text(f.path, CELL_CHARS)} ({f.kind}) +{f.added} -{f.removed}" for f in c.files]
        if c.more_files:
            lines.append(f"- {c.more_files} more file(s) not listed")
        diff = c.unified_diff.splitlines()
        shown = [_HIDDEN.sub("\ufffd", line) for line in diff[:DIFF_LINES_SHOWN]]
        # a fence longer than any run of backticks in the diff, so no line of it ends the block
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", "\n".join(shown))), default=0))
        lines += ["", f"{fence}diff", *shown, fence, ""]
        cut = []
        if len(diff) > DIFF_LINES_SHOWN:
            cut.append(f"{len(diff) - DIFF_LINES_SHOWN} more line(s) of the diff not shown")
        if c.cut_chars:
            cut.append(f"the source's diff was cut: {c.cut_chars} characters not kept")
        if cut:
            lines += [f"*{'; '.join(cut)}*", ""]
    return lines


def _proposal_markdown(proposal: PlanProposal) -> list[str]:
    head = [f"Proposed plan {proposal.index}"]
    if proposal.turn_id is not None:
        head.append(f"turn {markdown_text(proposal.turn_id, LINE_CHARS)}")
    head.append(markdown_text(iso_time(proposal.time), LINE_CHARS))
    state = "the turn ended with this plan and no message" if proposal.awaiting_decision else ""
    lines = [f"#### {' · '.join(head)}", ""]
    if state:
        lines += [f"*{state}*", ""]
    # Quoted, each line escaped: the model's Markdown is shown as text, never as markup.
    body = well_formed(proposal.text).splitlines()[:PROPOSAL_LINES] or [""]
    lines += [f"> {markdown_text(line, PARAGRAPH_CHARS) if line.strip() else ''}".rstrip() for line in body]
    return lines + [""]


def _notes(timeline: PlanTimeline, *, hidden: int) -> list[str]:
    notes = []
    if timeline.dropped_oldest:
        notes.append(
            f"{timeline.dropped_oldest} older revision(s) were dropped: the timeline keeps the newest "
            f"{timeline.max_revisions}."
        )
    if hidden > 0:
        notes.append(f"{hidden} earlier revision(s) are not shown here (`to_markdown(last=None)` shows all).")
    if timeline.dropped_out_of_order:
        listed = ", ".join(f"{d.revision} after {d.newest}" for d in timeline.out_of_order[-5:])
        notes.append(f"{timeline.dropped_out_of_order} out-of-order snapshot(s) were refused (revision {listed}).")
    if timeline.other_thread:
        notes.append(f"{timeline.other_thread} snapshot(s) of other threads were ignored.")
    return notes


def _revision_markdown(revision: PlanRevision, changes: PlanDiff) -> list[str]:
    head = [f"Revision {revision.index}"]
    if revision.revision is not None and revision.revision != revision.index:
        head.append(f"source revision {revision.revision}")
    if revision.turn_id is not None:
        head.append(f"turn {markdown_text(revision.turn_id, LINE_CHARS)}")
    if revision.call_id is not None:
        head.append(f"call {markdown_text(revision.call_id, LINE_CHARS)}")
    elif revision.notification is not None:
        head.append(markdown_text(revision.notification, LINE_CHARS))
    head.append(markdown_text(iso_time(revision.time), LINE_CHARS))
    lines = [f"#### {' · '.join(head)}", ""]
    summary = summarize(changes)
    if revision.explanation and revision.explanation.strip():
        lines += [f"*{markdown_text(revision.explanation.strip(), PARAGRAPH_CHARS)}*", ""]
    lines += [f"Changes: {summary}", ""]
    by_position = {c.new_position: c for c in changes.changes if c.new_position is not None}
    if revision.steps:
        lines += ["| # | Step | Status | Change |", "| ---: | --- | --- | --- |"]
        for position, step in enumerate(revision.steps):
            change = by_position.get(position)
            lines.append(
                f"| {position + 1} | {markdown_text(step.step)} | {_status(step.status)} | "
                f"{_change_markdown(change) if change is not None else ''} |"
            )
        lines.append("")
    else:
        lines += ["*The plan is empty.*", ""]
    if revision.steps_omitted:
        lines += [f"*{revision.steps_omitted} more step(s) were not kept (at most 1000 a revision).*", ""]
    removed = changes.removed
    if removed:
        lines.append("Removed:")
        lines += [f"- ~~{markdown_text(c.old_step or '')}~~ (was {_status(c.old_status)})" for c in removed]
        lines.append("")
    return lines


def describe_change(
    change: StepChange, *, quote: Callable[[str], str], status: Callable[[str | None], str], regression: str
) -> str:
    """One step's change in words (added; renamed from ...; old -> new status), for a report or a view."""
    parts = []
    if change.kind == "added":
        parts.append("added")
    if change.renamed:
        parts.append(f"renamed from “{quote(change.old_step or '')}”")
    if change.status_changed:
        moved = f"{status(change.old_status)} → {status(change.new_status)}"
        parts.append(f"{regression}: {moved}" if change.regression else moved)
    return "; ".join(parts)


def _change_markdown(change: StepChange) -> str:
    return describe_change(
        change, quote=lambda text: markdown_text(text, CELL_CHARS // 2), status=_status, regression="**regression**"
    )


def _status(status: str | None) -> str:
    return _STATUS.get(status or "", markdown_text(status or "", LINE_CHARS))


def summarize(changes: PlanDiff) -> str:
    """One line: ``2 added, 1 renamed, 1 status change, 1 regression`` (or ``none``)."""
    parts = []
    for count, word in (
        (len(changes.added), "added"),
        (len(changes.removed), "removed"),
        (len(changes.renamed), "renamed"),
        (len(changes.status_changed), "status change(s)"),
        (len(changes.regressions), "regression(s)"),
    ):
        if count:
            parts.append(f"{count} {word}")
    if changes.explanation_changed and changes.old_index is not None:
        parts.append("explanation changed")
    return ", ".join(parts) or "none"


# ---- plain text -----------------------------------------------------------------------------


def plain(text: str, limit: int = LINE_CHARS) -> str:
    """``text`` on one line for a terminal: cut, line breaks and controls shown as ``⏎``/U+FFFD."""
    text, more = _cut(well_formed(text), limit)
    text = _HIDDEN.sub("\ufffd", _BREAKS.sub(" ⏎ ", text))
    return text + "…" if more else text


def timeline_text(timeline: PlanTimeline, *, last: int) -> str:
    revisions = timeline.revisions
    head = (
        f"PlanTimeline: {len(revisions)} revision{'s' if len(revisions) != 1 else ''} of thread "
        f"{plain(timeline.thread_id)} ({timeline.source_kind}; keeps the newest {timeline.max_revisions})"
    )
    lines = [head]
    if timeline.no_plan is not None:
        lines.append(f"  {plain(timeline.no_plan.line, 400)}")
    if timeline.dropped_oldest:
        lines.append(f"  {timeline.dropped_oldest} older revision(s) dropped")
    if timeline.dropped_out_of_order:
        lines.append(f"  {timeline.dropped_out_of_order} out-of-order snapshot(s) refused")
    start = max(0, len(revisions) - max(0, last))
    if start:
        lines.append(f"  ... {start} earlier revision(s) not listed")
    rewound = set(timeline.rewound_turns)
    if rewound:
        lines.append(f"  {len(rewound)} turn(s) rewound: their revisions are marked (rewound)")
    for i in range(start, len(revisions)):
        revision = revisions[i]
        changes = timeline.diff(revisions[i - 1] if i else None, revision)
        mark = " (rewound)" if revision.turn_id in rewound else ""
        lines.append("  " + _revision_line(revision, changes) + mark)
    for goal in timeline.goals[-5:]:
        lines.append(f"  {plain(goal.line(), 200)}")
    for proposal in timeline.proposals[-5:]:
        first = next((line for line in proposal.text.splitlines() if line.strip()), "")
        turn = f" turn {plain(proposal.turn_id, 40)}" if proposal.turn_id is not None else ""
        lines.append(f"  proposed plan {proposal.index}{turn}: {plain(first, 60)}")
    return "\n".join(lines)


def _revision_line(revision: PlanRevision, changes: PlanDiff) -> str:
    done = sum(1 for s in revision.steps if s.status == "completed")
    where = [f"#{revision.index}"]
    if revision.turn_id is not None:
        where.append(f"turn {plain(revision.turn_id, 40)}")
    if revision.call_id is not None:
        where.append(f"call {plain(revision.call_id, 40)}")
    line = f"{' '.join(where)}: {done}/{len(revision.steps)} done; {summarize(changes)}"
    active = next((s.step for s in revision.steps if s.status == "in_progress"), None)
    if active is not None:
        line += f"; now: {plain(active, 40)}"
    return line


def _cut(text: str, limit: int) -> tuple[str, int]:
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit
