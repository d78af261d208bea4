"""Step-level comparison of two plan snapshots.

A plan has no step ids: the model resends the whole list each time, so a step is
recognised by its text and place. ``diff_plans`` matches in three passes:

1. identical text: each newer step takes the first unmatched older step with exactly the
   same text (so reordering keeps the match, and duplicates pair off in order);
2. same position: a leftover newer step and the leftover older step at the same index are
   the same step renamed if their texts are at least ``RENAME_SIMILARITY`` alike
   (``difflib.SequenceMatcher.ratio`` on case-folded, whitespace-collapsed text);
3. best similarity: the remaining pairs at or above ``RENAME_SIMILARITY`` are matched
   greedily, the most alike first (ties: the nearer positions, then the earlier step).

What is left is removed (older) or added (newer). A matched pair whose status moved is a
status change; one whose status moved back (completed -> in_progress/pending,
in_progress -> pending) is a regression. The text compared is capped at
``COMPARE_CHARS`` and pass 3 at ``MAX_PAIRED`` leftover steps a side, so a hostile plan
cannot make a diff quadratic in its text.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from .records import PlanDiff, PlanStep, StepChange

RENAME_SIMILARITY = 0.6
COMPARE_CHARS = 500
MAX_PAIRED = 50


def diff_plans(
    old: Sequence[PlanStep],
    new: Sequence[PlanStep],
    *,
    old_index: int | None,
    new_index: int,
    explanation_changed: bool = False,
) -> PlanDiff:
    """The changes from ``old`` to ``new`` (``old`` may be empty: every step is added)."""
    match = _match(old, new)
    changes: list[StepChange] = []
    unchanged = 0
    for j, step in enumerate(new):
        if j not in match:
            changes.append(_change("added", None, j, None, step))
            continue
        i, similarity = match[j]
        before = old[i]
        renamed = before.step != step.step
        moved_status = before.status != step.status
        if not renamed and not moved_status:
            unchanged += 1
            continue
        kind = "renamed_status" if renamed and moved_status else "renamed" if renamed else "status"
        changes.append(_change(kind, i, j, before, step, similarity if renamed else None))
    matched_old = {i for i, _ in match.values()}
    changes.extend(_change("removed", i, None, step, None) for i, step in enumerate(old) if i not in matched_old)
    return PlanDiff(
        old_index=old_index,
        new_index=new_index,
        changes=tuple(changes),
        unchanged=unchanged,
        explanation_changed=explanation_changed,
    )


def similarity(a: str, b: str) -> float:
    """How alike two step texts are, 0..1 (case and runs of whitespace ignored)."""
    return _ratio(_norm(a), _norm(b), 0.0)


def _ratio(a: str, b: str, floor: float) -> float:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    # The cheap upper bounds first: most leftover pairs are nowhere near alike.
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return 0.0
    return matcher.ratio()


def _norm(text: str) -> str:
    return " ".join(text[:COMPARE_CHARS].casefold().split())


def _match(old: Sequence[PlanStep], new: Sequence[PlanStep]) -> dict[int, tuple[int, float]]:
    """newer position -> (older position, similarity)."""
    old_text = [_norm(step.step) for step in old]
    new_text = [_norm(step.step) for step in new]
    match: dict[int, tuple[int, float]] = {}
    free: dict[str, list[int]] = {}
    for i, step in enumerate(old):
        free.setdefault(step.step, []).append(i)
    for j, step in enumerate(new):
        slots = free.get(step.step)
        if slots:
            match[j] = (slots.pop(0), 1.0)
    used = {i for i, _ in match.values()}
    for j in range(min(len(old), len(new))):
        if j not in match and j not in used:
            ratio = _ratio(old_text[j], new_text[j], RENAME_SIMILARITY)
            if ratio >= RENAME_SIMILARITY:
                match[j] = (j, ratio)
                used.add(j)
    left_old = [i for i in range(len(old)) if i not in used][:MAX_PAIRED]
    left_new = [j for j in range(len(new)) if j not in match][:MAX_PAIRED]
    pairs = []
    for j in left_new:
        for i in left_old:
            ratio = _ratio(old_text[i], new_text[j], RENAME_SIMILARITY)
            if ratio >= RENAME_SIMILARITY:
                pairs.append((-ratio, abs(i - j), j, i))
    for negative, _distance, j, i in sorted(pairs):
        if j not in match and i not in used:
            match[j] = (i, -negative)
            used.add(i)
    return match


def _change(
    kind: str,
    old_position: int | None,
    new_position: int | None,
    before: PlanStep | None,
    after: PlanStep | None,
    ratio: float | None = None,
) -> StepChange:
    return StepChange(
        kind=kind,  # type: ignore[arg-type]
        old_position=old_position,
        new_position=new_position,
        old_step=None if before is None else before.step,
        new_step=None if after is None else after.step,
        old_status=None if before is None else before.status,
        new_status=None if after is None else after.status,
        similarity=None if ratio is None else round(ratio, 3),
    )
