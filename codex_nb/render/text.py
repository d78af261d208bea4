"""The Codex TUI "Updated Plan" history cell (``PlanUpdateCell``) as text
(codex-rs/tui/src/history_cell/plans.rs).

``plan_lines`` lays the cell out once as styled spans; ``render_plan_text`` (plain text,
byte-exact to the TUI snapshots) and ``render_plan_ansi`` (terminal colours) only join
them, so the widget's HTML fallback can reuse the same layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ValidationError

from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import StepStatus, UpdatePlanArgs

from .wrap import adaptive_wrap, display_width

__all__ = [
    "Span",
    "SpanStyle",
    "coerce_plan_args",
    "plan_lines",
    "raw_plan_lines",
    "render_plan_ansi",
    "render_plan_text",
]

SpanStyle = Literal["", "dim", "bold", "dim italic", "strike dim", "cyan bold"]
Span = tuple[str, SpanStyle]
StyledLine = list[Span]

# glyph and text style per status; pending and in_progress share the empty box.
_STEP_LOOK: dict[StepStatus, tuple[str, SpanStyle]] = {
    StepStatus.COMPLETED: ("✔ ", "strike dim"),
    StepStatus.IN_PROGRESS: ("□ ", "cyan bold"),
    StepStatus.PENDING: ("□ ", "dim"),
}
# Rust's Debug names, used by raw_lines().
_RAW_STATUS = {
    StepStatus.COMPLETED: "Completed",
    StepStatus.IN_PROGRESS: "InProgress",
    StepStatus.PENDING: "Pending",
}
# Rust str::trim removes Unicode White_Space, which differs from str.strip() (e.g. U+001C).
_RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_APP_SERVER_STATUS = {"inProgress": "in_progress"}
_EXPECTED = (
    "pass an UpdatePlanArgs, a PlanUpdate event message, or a dict like "
    "{'explanation': 'optional note', 'plan': [{'step': 'text', 'status': 'pending'}]} "
    "with status one of 'pending', 'in_progress' (or 'inProgress'), 'completed'"
)

_ANSI_CODES: dict[SpanStyle, str] = {
    "": "",
    "dim": "2",
    "bold": "1",
    "dim italic": "2;3",
    "strike dim": "9;2",
    "cyan bold": "36;1",
}


def coerce_plan_args(args: object) -> UpdatePlanArgs:
    """Accept the plan shapes codex_nb sees and return validated ``UpdatePlanArgs``.

    Dicts may come from the app-server ``turn/plan/updated`` notification: the whole
    notification, its params (``threadId``/``turnId`` are ignored) or a bare plan, with
    ``inProgress`` spelled the app-server way.
    """
    if isinstance(args, UpdatePlanArgs):
        return args
    if isinstance(args, PlanUpdate):
        return args.args()
    if not isinstance(args, Mapping):
        raise TypeError(f"cannot render a plan from {type(args).__name__}; {_EXPECTED}")
    data = _core_plan_dict(args)
    try:
        return UpdatePlanArgs.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in err.errors())
        raise ValueError(f"invalid plan dict ({problems}); {_EXPECTED}") from None


def _core_plan_dict(args: Mapping[str, Any]) -> Any:
    data: Any = args
    if data.get("method") == "turn/plan/updated" and isinstance(data.get("params"), Mapping):
        data = data["params"]
    data = {k: v for k, v in data.items() if k not in ("threadId", "turnId")}
    plan = data.get("plan")
    if isinstance(plan, list):
        data["plan"] = [_core_step(item) for item in plan]
    return data


def _core_step(item: Any) -> Any:
    if isinstance(item, Mapping) and item.get("status") in _APP_SERVER_STATUS:
        return {**item, "status": _APP_SERVER_STATUS[item["status"]]}
    return item


def _wrapped(text: str, width: int, style: SpanStyle, first: Span | None, rest: Span | None) -> list[StyledLine]:
    """``adaptive_wrap_line`` with optional indents, as styled lines (empty slices dropped)."""
    ranges = adaptive_wrap(
        text,
        width,
        initial_indent_width=display_width(first[0]) if first else 0,
        subsequent_indent_width=display_width(rest[0]) if rest else 0,
    )
    lines: list[StyledLine] = []
    for index, (start, end) in enumerate(ranges):
        indent = first if index == 0 else rest
        line: StyledLine = [indent] if indent else []
        if end > start:
            line.append((text[start:end], style))
        lines.append(line)
    return lines


def _body_lines(plan: UpdatePlanArgs, wrap_width: int) -> list[StyledLine]:
    body: list[StyledLine] = []
    note = (plan.explanation or "").strip(_RUST_WHITESPACE)
    if note:
        body.extend(_wrapped(note, wrap_width, "dim italic", None, None))
    if not plan.plan:
        body.append([("(no steps provided)", "dim italic")])
    for item in plan.plan:
        glyph, style = _STEP_LOOK[item.status]
        body.extend(_wrapped(item.step, wrap_width, style, (glyph, ""), ("  ", "")))
    return body


def plan_lines(args: object, width: int = 80) -> list[StyledLine]:
    """The cell's ``display_lines(width)``: one list of (text, style) spans per line."""
    plan = coerce_plan_args(args)
    if not isinstance(width, int) or isinstance(width, bool):
        raise TypeError(f"width must be an int (terminal columns), got {type(width).__name__}")
    wrap_width = max(width - 4, 1)
    lines: list[StyledLine] = [[("• ", "dim"), ("Updated Plan", "bold")]]
    for index, body in enumerate(_body_lines(plan, wrap_width)):
        prefix: Span = ("  └ ", "dim") if index == 0 else ("    ", "")
        lines.append([prefix, *body])
    return lines


def render_plan_text(args: object, width: int = 80) -> str:
    """The "Updated Plan" cell as plain text, lines joined by ``\\n`` (no trailing newline)."""
    return "\n".join("".join(text for text, _ in line) for line in plan_lines(args, width))


def render_plan_ansi(args: object, width: int = 80) -> str:
    """The same cell with SGR escapes for a terminal (dim, bold, italic, strike, cyan)."""
    out = []
    for line in plan_lines(args, width):
        parts = []
        for text, style in line:
            code = _ANSI_CODES[style]
            parts.append(f"\x1b[{code}m{text}\x1b[0m" if code else text)
        out.append("".join(parts))
    return "\n".join(out)


def raw_plan_lines(args: object) -> str:
    """The cell's unstyled, unwrapped ``raw_lines()`` (copy mode), joined by ``\\n``."""
    plan = coerce_plan_args(args)
    lines = ["Updated Plan"]
    note = (plan.explanation or "").strip(_RUST_WHITESPACE)
    if note:
        lines.extend(note.split("\n"))
    if not plan.plan:
        lines.append("(no steps provided)")
    lines.extend(f"{_RAW_STATUS[item.status]}: {item.step}" for item in plan.plan)
    return "\n".join(lines)
