"""The plan timeline as static HTML: what an exported notebook or a docs site shows without a kernel.

The newest revision's checklist (each step's status as a word and a glyph, what changed, the
steps it removed), the why-no-plan line, the newest revisions as a list, the newest
proposed plans and a real Codex thread's goal records. It offers no "Rewind to here": a saved
view has no kernel to rewind with. Every string is escaped (a step's HTML is shown as text) and cut, so the
stored output stays small however long the history. Styles are inline (a notebook output
cannot rely on a stylesheet) and use JupyterLab's theme variables with fallbacks that read on
a light or a dark page: status is carried by words and tags, never by colour alone.
"""

from __future__ import annotations

import html

from ..protocol.wire import well_formed
from ..timeline.recorder import PlanTimeline
from ..timeline.records import GoalRecord, PlanDiff, PlanProposal, PlanRevision
from ..timeline.report import describe_change, iso_time, summarize

STEP_CHARS = 500
PROPOSAL_CHARS = 4000
PROPOSALS_SHOWN = 5
GOALS_SHOWN = 10
"""Goal records in the static HTML (the newest)."""
_STATUS = {
    "completed": ("✔", "Completed", "s", "opacity:.7"),
    "in_progress": ("□", "In progress", "strong", "color:var(--jp-brand-color1,#1a8fb0)"),
    "pending": ("□", "Pending", "span", ""),
}
_MUTED = "opacity:.75"
_BOX = (
    "font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:var(--jp-ui-font-size1,13px);"
    "color:var(--jp-ui-font-color1,inherit);border:1px solid var(--jp-border-color2,#8884);"
    "border-radius:4px;padding:6px 10px;max-width:100%;overflow-wrap:anywhere"
)


def _esc(text: str | None, limit: int = STEP_CHARS) -> str:
    text = well_formed(text or "")
    if len(text) > limit:
        text = text[:limit] + f"… [{len(text) - limit} more characters]"
    return html.escape(text)


def _short(text: str, limit: int = 12) -> str:
    """An id cut to ``limit`` characters with an ellipsis (the JSON report has it whole)."""
    text = well_formed(text)
    return html.escape(text if len(text) <= limit else text[: limit - 1] + "…")


def static_timeline_html(timeline: PlanTimeline, *, listed: int) -> str:
    revisions = timeline.revisions
    proposals = timeline.proposals
    count = len(revisions)
    parts = [f'<div class="codex-timeline-static" style="{_BOX}">']
    parts.append(
        f"<div><strong>Plan history</strong> <span>({count} revision{'s' if count != 1 else ''}"
        f"{f', {len(proposals)} proposed plan(s)' if proposals else ''})</span></div>"
    )
    no_plan = timeline.no_plan
    if no_plan is not None:
        parts.append(
            f'<p role="status" data-no-plan="{no_plan.reason}"><strong>{_esc(no_plan.line, 1000)}</strong></p>'
        )
    for note in notes(timeline):
        parts.append(f'<p style="{_MUTED}"><em>{_esc(note)}</em></p>')
    if not revisions and not proposals and no_plan is None:  # else the no-plan line says it
        parts.append(f'<p style="{_MUTED}"><em>(no plan revisions yet)</em></p>')
    if revisions:
        newest = revisions[-1]
        parts.append(_checklist(newest, timeline.changes(newest)))
        parts.append(_list(timeline, revisions, listed))
    for proposal in proposals[-PROPOSALS_SHOWN:]:
        parts.append(_proposal(proposal))
    if timeline.goals:
        parts.append(_goals(timeline.goals[-GOALS_SHOWN:]))
    parts.append("</div>")
    return "".join(parts)


def _checklist(revision: PlanRevision, changes: PlanDiff) -> str:
    done = sum(1 for s in revision.steps if s.status == "completed")
    parts = [
        f'<div class="codex-timeline-static-final" data-index="{revision.index}">',
        f"<div><strong>Updated Plan</strong> <span>({done}/{len(revision.steps)} done)</span> "
        f'<span style="{_MUTED}">· revision #{revision.index} · {_esc(iso_time(revision.time))}</span></div>',
    ]
    if revision.explanation and revision.explanation.strip():
        parts.append(f'<p style="{_MUTED}"><em>{_esc(revision.explanation.strip(), 1000)}</em></p>')
    if not revision.steps:
        parts.append(f'<p style="{_MUTED}"><em>(no steps provided)</em></p>')
    by_position = {c.new_position: c for c in changes.changes if c.new_position is not None}
    parts.append('<ol style="list-style:none;padding-left:1em;margin:4px 0">')
    for position, step in enumerate(revision.steps):
        glyph, label, tag, style = _STATUS.get(step.status, ("□", f"Unknown ({step.status})", "span", ""))
        change = by_position.get(position)
        note = ""
        if change is not None:
            said = describe_change(change, quote=lambda t: well_formed(t)[:120], status=str, regression="regression")
            weight = "font-weight:bold;" if change.regression else ""
            note = f' <em style="{_MUTED};{weight}font-size:.9em">({_esc(said)})</em>'
        parts.append(
            f'<li data-status="{html.escape(step.status)}" title="{html.escape(label)}" style="{style}">'
            f'{glyph} <span style="position:absolute;left:-9999px">{html.escape(label)}: </span>'
            f"<{tag}>{_esc(step.step)}</{tag}>{note}</li>"
        )
    parts.append("</ol>")
    if changes.removed:
        removed = "".join(f"<li><del>{_esc(c.old_step)}</del></li>" for c in changes.removed)
        parts.append(f'<div style="{_MUTED}">Removed:</div><ul style="margin:2px 0">{removed}</ul>')
    parts.append("</div>")
    return "".join(parts)


def _list(timeline: PlanTimeline, revisions: tuple[PlanRevision, ...], listed: int) -> str:
    start = max(0, len(revisions) - listed)
    parts = ['<details open><summary>Revisions</summary><ol style="margin:2px 0;padding-left:1em;list-style:none">']
    if start:
        parts.append(f'<li style="list-style:none;{_MUTED}"><em>… {start} earlier revision(s) not listed</em></li>')
    rewound = set(timeline.rewound_turns)
    for i in range(start, len(revisions)):
        revision = revisions[i]
        changes = timeline.diff(revisions[i - 1] if i else None, revision)
        done = sum(1 for s in revision.steps if s.status == "completed")
        undone = revision.turn_id in rewound
        where = f"#{revision.index}"
        if revision.turn_id is not None:
            where += f" · turn {_short(revision.turn_id)}"
        flag = " <strong>(regression)</strong>" if changes.regressions else ""
        flag += " <em>(rewound)</em>" if undone else ""
        parts.append(
            f'<li data-index="{revision.index}">{where}: {done}/{len(revision.steps)} done'
            f" · {_esc(summarize(changes))}{flag}</li>"
        )
    parts.append("</ol></details>")
    return "".join(parts)


def _proposal(proposal: PlanProposal) -> str:
    head = f"Proposed plan {proposal.index}"
    if proposal.turn_id is not None:
        head += f" · turn {_short(proposal.turn_id)}"
    state = " · the turn ended with this plan and no message" if proposal.awaiting_decision else ""
    return (
        f'<div class="codex-timeline-static-proposal" style="margin-top:6px">'
        f'<div><strong>{head}</strong><span style="{_MUTED}">{state}</span></div>'
        f'<pre style="white-space:pre-wrap;margin:2px 0;padding:4px 8px;border-left:3px solid '
        f'var(--jp-border-color1,#8888);font-family:inherit">{_esc(proposal.text, PROPOSAL_CHARS)}</pre></div>'
    )


def _goals(goals: tuple[GoalRecord, ...]) -> str:
    items = "".join(
        f'<li data-goal-status="{html.escape(g.status)}">{_esc(g.line(), 1000)}'
        f'<span style="{_MUTED}"> · {_esc(iso_time(g.time))}'
        f"{f' · turn {_short(g.turn_id)}' if g.turn_id is not None else ''}</span></li>"
        for g in goals
    )
    return (
        '<div class="codex-timeline-static-goals" style="margin-top:6px"><div><strong>Goal</strong></div>'
        f'<ol style="margin:2px 0;padding-left:1em;list-style:none">{items}</ol></div>'
    )


def notes(timeline: PlanTimeline) -> list[str]:
    notes = []
    if timeline.dropped_oldest:
        notes.append(f"{timeline.dropped_oldest} older revision(s) dropped (keeps the newest {timeline.max_revisions})")
    if timeline.dropped_out_of_order:
        listed = ", ".join(f"{d.revision} after {d.newest}" for d in timeline.out_of_order[-5:])
        notes.append(f"{timeline.dropped_out_of_order} out-of-order snapshot(s) refused (revision {listed})")
    return notes
