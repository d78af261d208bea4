"""A suggested change to the plan: its readable diff, and whether the agent's next snapshot took it.

A person proposes the whole step list as they want it. ``suggested_changes`` breaks that into
single changes (add, remove, rename, move), matched with ``diff_plans`` so a reworded step is a
rename, not a removal and an addition. ``suggestion_diff`` is the text the agent reads.
``verdict`` decides, for the agent's next snapshot, which of those changes it carries: all of
them is ``adopted``, some ``partly_adopted``, none ``ignored``. It compares texts; it never guesses.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._records import record
from .diff import RENAME_SIMILARITY, diff_plans, similarity
from .records import PlanStep


@record(frozen=True, kw_only=True, slots=True)
class SuggestedChange:
    """One change of a suggestion."""

    kind: str
    """``add``, ``remove``, ``rename`` or ``move``."""
    step: str
    """The step added, removed or moved; for a rename, its new text."""
    old: str | None = None
    """For a rename: the old text."""
    position: int | None = None
    """For add and move: its 0-based place in the proposed list."""

    def line(self) -> str:
        """The change as the diff shows it."""
        if self.kind == "add":
            return f"+ add step {self.position_label}: {self.step}"
        if self.kind == "remove":
            return f"- remove step: {self.step}"
        if self.kind == "rename":
            return f"~ rename step: {self.old} -> {self.step}"
        return f"> move step to {self.position_label}: {self.step}"

    @property
    def position_label(self) -> str:
        return str((self.position or 0) + 1)


def _steps(texts: Sequence[str]) -> list[PlanStep]:
    return [PlanStep(step=t, status="pending") for t in texts]


def suggested_changes(before: Sequence[str], after: Sequence[str]) -> list[SuggestedChange]:
    """The single changes that turn ``before`` into ``after``."""
    diff = diff_plans(_steps(before), _steps(after), old_index=0, new_index=1)
    changes: list[SuggestedChange] = []
    kept: list[tuple[int, int, str]] = []  # (old position, new position, new text) of matched steps
    matched_new: set[int] = set()
    for change in diff.changes:
        if change.kind == "added":
            changes.append(SuggestedChange(kind="add", step=change.new_step or "", position=change.new_position))
        elif change.kind == "removed":
            changes.append(SuggestedChange(kind="remove", step=change.old_step or ""))
        else:
            changes.append(SuggestedChange(kind="rename", step=change.new_step or "", old=change.old_step))
    for change in diff.changes:
        if change.old_position is not None and change.new_position is not None:
            matched_new.add(change.new_position)
            kept.append((change.old_position, change.new_position, change.new_step or ""))
    # unchanged steps are not in diff.changes: pair them by text, in order
    used_old = {old for old, _, _ in kept}
    for j, text in enumerate(after):
        if j in matched_new:
            continue
        for i, old_text in enumerate(before):
            if i not in used_old and old_text == text:
                used_old.add(i)
                kept.append((i, j, text))
                break
    kept.sort(key=lambda k: k[1])
    # a step moved when the matched steps' old order, read in the new order, is broken at it
    longest = _longest_increasing([old for old, _, _ in kept])
    for index, (_old, new, text) in enumerate(kept):
        if index not in longest:
            changes.append(SuggestedChange(kind="move", step=text, position=new))
    return changes


def _longest_increasing(values: list[int]) -> set[int]:
    """Indices of one longest increasing subsequence of ``values`` (the steps that did not move)."""
    best: list[list[int]] = []
    for i, value in enumerate(values):
        chain: list[int] = []
        for candidate in best:
            if values[candidate[-1]] < value and len(candidate) > len(chain):
                chain = candidate
        best.append([*chain, i])
    longest: list[int] = []
    for chain in best:
        if len(chain) > len(longest):
            longest = chain
    return set(longest)


def suggestion_diff(before: Sequence[str], after: Sequence[str]) -> str:
    """The readable diff the agent reads: each change on a line, then the whole proposed list."""
    lines = [c.line() for c in suggested_changes(before, after)]
    numbered = [f"{i}. {text}" for i, text in enumerate(after, 1)]
    return "\n".join(["Changes:", *lines, "", "The plan as I propose it:", *numbered])


def _present(text: str, steps: Sequence[str]) -> str | None:
    """The step of ``steps`` that is ``text`` (the same, or reworded at least ``RENAME_SIMILARITY``)."""
    if text in steps:
        return text
    scored = [(similarity(text, s), s) for s in steps]
    score, best = max(scored, default=(0.0, ""))
    return best if score >= max(RENAME_SIMILARITY, 0.8) else None


def holds(change: SuggestedChange, before: Sequence[str], after: Sequence[str], snapshot: Sequence[str]) -> bool:
    """Does the agent's ``snapshot`` carry ``change``?"""
    if change.kind == "add":
        return _present(change.step, snapshot) is not None
    if change.kind == "remove":
        # gone, and not merely reworded (a step the person kept may look like it)
        others = [s for s in snapshot if s not in after]
        return change.step not in snapshot and _present(change.step, others) is None
    if change.kind == "rename":
        return change.step in snapshot and change.old not in snapshot
    # a move holds when the step stands in the snapshot in the same order against its neighbours
    wanted = [t for t in after if t in snapshot]
    got = [t for t in snapshot if t in wanted]
    if change.step not in got:
        return False
    i = wanted.index(change.step)
    return wanted[max(0, i - 1) : i + 2] == got[max(0, got.index(change.step) - 1) : got.index(change.step) + 2]


def verdict(
    before: Sequence[str], after: Sequence[str], snapshot: Sequence[str]
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``(state, held, missed)``: ``adopted``, ``partly_adopted`` or ``ignored``, with the change lines."""
    held: list[str] = []
    missed: list[str] = []
    for change in suggested_changes(before, after):
        (held if holds(change, before, after, snapshot) else missed).append(change.line())
    if not missed:
        state = "adopted"
    elif held:
        state = "partly_adopted"
    else:
        state = "ignored"
    return state, tuple(held), tuple(missed)
