"""Static renderings of one plan snapshot, for viewers without a widget manager.

``text/plain`` is the Codex TUI "Updated Plan" cell (``codex_nb.render.text``),
``text/html`` an escaped list whose status is carried by text and semantic tags too.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ..protocol.plan import StepStatus, UpdatePlanArgs
from ._static import turn_status_labels

NO_PLAN_TEXT = "• Updated Plan\n  └ (no plan yet)"
NO_PLAN_HEADER = "• Plan"
"""The heading when a turn ended with no plan and the reason says why (nothing was updated)."""


def plain_text(
    args: UpdatePlanArgs | None, *, width: int = 80, error: str = "", no_plan: str = "", turn_status: str = "idle"
) -> str:
    """The Codex text rendering (or ``(no plan yet)`` and why), plus the error line if any, and a
    last line saying a turn that stopped short (interrupted or failed): a step it left in progress
    is not work still going on."""
    if args is None and no_plan:  # said once, not under "Updated Plan" after "(no plan yet)"
        body = f"{NO_PLAN_HEADER}\n  └ {no_plan}"
    else:
        body = NO_PLAN_TEXT if args is None else _render_text(args, width)
    if error:
        body = f"{body}\n  ! {error}"
    if turn_status in _STOPPED:
        body = f"{body}\n  Turn {turn_status_labels().get(turn_status, turn_status)}"
    return body


def _render_text(args: UpdatePlanArgs, width: int) -> str:
    try:
        from ..render.text import render_plan_text
    except ImportError:  # a trimmed install without the renderer
        return _fallback_text(args)
    return render_plan_text(args, width=width)


def _fallback_text(args: UpdatePlanArgs) -> str:
    body: list[str] = []
    if args.explanation and args.explanation.strip():
        body.append(args.explanation.strip())
    if not args.plan:
        body.append("(no steps provided)")
    for item in args.plan:
        body.append(("✔ " if item.status == StepStatus.COMPLETED else "□ ") + item.step)
    return "\n".join(["• Updated Plan"] + [("  └ " if i == 0 else "    ") + line for i, line in enumerate(body)])


_STATIC_STEP = {
    "completed": ("✔", "Completed", "s", "opacity:.6"),
    "in_progress": ("□", "In progress", "strong", "color:var(--jp-brand-color1,#0097a7)"),
    "pending": ("□", "Pending", "span", "opacity:.6"),
}


_ENDED = frozenset({"completed", "interrupted", "failed"})
_STOPPED = frozenset({"interrupted", "failed"})
"""Turns that ended before their plan did: a step they left in progress was stopped."""


def static_html(
    args: UpdatePlanArgs | None,
    *,
    error: str = "",
    no_plan: str = "",
    priorities: Sequence[str] = (),
    turn_status: str = "idle",
) -> str:
    """Escaped HTML for one snapshot; status is carried by text and semantic tags, not colour only.
    ``priorities[i]`` is step *i*'s ACP priority, labelled as the live checklist's badge is;
    an ended ``turn_status`` is said as the live header says it ("Turn interrupted"), so a step left
    in progress by an ended turn does not read as work still going on. A running turn is not said:
    read later, without a kernel, nothing is running any more."""
    esc = html.escape
    parts = ['<div class="codex-plan-static">']
    if turn_status in _ENDED:
        label = turn_status_labels().get(turn_status, turn_status)
        parts.append(f'<div class="codex-plan-turn" data-turn-status="{esc(turn_status)}">Turn {esc(label)}</div>')
    if args is None:
        if not no_plan:
            parts.append("<div><strong>Updated Plan</strong></div><p><em>(no plan yet)</em></p>")
        else:
            parts.append("<div><strong>Plan</strong></div>")
            parts.append(f'<p role="status" class="codex-plan-no-plan"><strong>{esc(no_plan)}</strong></p>')
    else:
        done = sum(1 for item in args.plan if item.status == StepStatus.COMPLETED)
        parts.append(f"<div><strong>Updated Plan</strong> <span>({done}/{len(args.plan)} done)</span></div>")
        if args.explanation and args.explanation.strip():
            parts.append(f'<p style="opacity:.6"><em>{esc(args.explanation.strip())}</em></p>')
        if not args.plan:
            parts.append('<p style="opacity:.6"><em>(no steps provided)</em></p>')
        else:
            parts.append('<ol style="list-style:none;padding-left:1em">')
            for index, item in enumerate(args.plan):
                glyph, label, tag, style = _STATIC_STEP[str(item.status)]
                if item.status == StepStatus.IN_PROGRESS and turn_status in _STOPPED:
                    # not drawn as live work: the turn that was doing it has stopped
                    label, style = (
                        f"In progress when the turn was {turn_status_labels().get(turn_status, turn_status)}",
                        "opacity:.6",
                    )
                priority = priorities[index] if index < len(priorities) else ""
                badge = f' <small class="codex-plan-priority">({esc(priority)} priority)</small>' if priority else ""
                parts.append(
                    f'<li data-status="{item.status}" title="{label}" style="{style}">'
                    f"{glyph} <{tag}>{esc(item.step)}</{tag}>{badge}</li>"
                )
            parts.append("</ol>")
    if error:
        parts.append(f'<p role="alert" style="color:var(--jp-error-color1,#d32f2f)">{esc(error)}</p>')
    parts.append("</div>")
    return "".join(parts)
