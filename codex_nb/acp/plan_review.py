"""An ACP agent's proposed plan and its request for a decision, as ``PlanAnswers`` answers them.

In Plan mode an agent proposes a plan and asks, with ``session/request_permission``, whether to
leave Plan mode and implement it: codex-acp 2.6 asks ``Implement this plan?`` (a ``switch_mode``
tool call, ``rawInput.plan``, options ``implement_plan`` allow_once and ``revise_plan``
reject_once; after approval it sets Default mode and prompts ``Implement the approved plan.``
itself), Claude's adapter asks ``Ready to code?`` for its ExitPlanMode tool (``switch_mode``,
``rawInput.plan``, several ``allow_*`` options and ``No, keep planning`` reject_once).
``plan_review_of`` recognises such a request by its shape (never by the agent's name) and says
which option approves and which keeps planning. Gemini CLI 0.61's exit_plan_mode names a plan
*file* instead (``quirks.plan_file``; options ``proceed_once`` "Allow" allow_once, ``cancel``
"Reject" reject_once): once ``plan_files`` has read it safely, ``file_plan_review`` makes the same
review of its text.

With the client's ``plan`` capability, codex-acp sends the plan itself as Markdown
``plan_update``s (several plans by id, streamed whole each time, ``plan_removed`` to drop one)
instead of message text. ``MarkdownPlans`` keeps them, bounded, so each plan becomes one
proposal when its review arrives or its turn ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_PLANS = 16
"""Markdown plans kept per session (a hostile agent may invent any number of ids)."""
MAX_PLAN_TEXT = 200_000
"""Characters of one plan kept (the rest is cut, and says so)."""
REVIEW_KIND = "switch_mode"


@dataclass(frozen=True, kw_only=True, slots=True)
class ReviewRequest:
    """A permission request that is a plan review, and the options that answer it."""

    text: str
    item_id: str | None
    approve: str
    """The option id that leaves Plan mode and implements (``allow_once`` first: no extra grants)."""
    keep_planning: str
    """The option id that keeps the session in Plan mode (the first ``reject_*``)."""


def _kind(option: Any) -> str:
    kind = getattr(option, "kind", None)
    return str(getattr(kind, "value", kind))


def _cut(text: str) -> str:
    if len(text) <= MAX_PLAN_TEXT:
        return text
    return text[:MAX_PLAN_TEXT] + f"\n... [{len(text) - MAX_PLAN_TEXT} more characters]"


def _plan(raw: Any) -> Any:
    return raw.get("plan") if isinstance(raw, dict) else None


def plan_review_of(tool_call: Any, options: list[Any], known: Any = None) -> ReviewRequest | None:
    """The plan review ``tool_call`` asks for, or None when it is another permission request: a
    ``switch_mode`` call whose ``rawInput.plan`` is text, with an option to allow and one to reject.
    ``known`` is what the agent sent of the call before asking (``ToolCallState``): Claude's adapter
    asks with an empty ``rawInput`` after a ``tool_call_update`` that carried the plan."""
    kinds = {getattr(tool_call, "kind", None), getattr(known, "kind", None)}
    if REVIEW_KIND not in {str(getattr(k, "value", k)) for k in kinds if k is not None}:
        return None
    plan = _plan(getattr(tool_call, "raw_input", None))
    if not isinstance(plan, str) or not plan.strip():
        plan = _plan(getattr(known, "raw_input", None))
    if not isinstance(plan, str) or not plan.strip():
        return None
    decision = decision_options(options)
    if decision is None:
        return None
    call_id = str(getattr(tool_call, "tool_call_id", "") or "")
    # codex-acp names the review after Codex's plan item: plan-review:<item id>
    item_id = call_id.split(":", 1)[1] if call_id.startswith("plan-review:") else None
    return ReviewRequest(text=_cut(plan), item_id=item_id, approve=decision[0], keep_planning=decision[1])


def decision_options(options: list[Any]) -> tuple[str, str] | None:
    """The option ids that approve (``allow_once`` first: no extra grants) and keep planning (the
    first ``reject_*``), or None when the request offers no allow and reject option."""
    allow = [o for o in options if _kind(o).startswith("allow_")]
    reject = [o for o in options if _kind(o).startswith("reject_")]
    if not allow or not reject:
        return None
    approve = next((o for o in allow if _kind(o) == "allow_once"), allow[0])
    return str(approve.option_id), str(reject[0].option_id)


def file_plan_review(text: str, options: list[Any]) -> ReviewRequest | None:
    """The plan review of a plan read from the file the request names (``quirks.plan_file``), or
    None when the text is empty or the request offers no allow and reject option."""
    decision = decision_options(options)
    if decision is None or not text.strip():
        return None
    return ReviewRequest(text=_cut(text), item_id=None, approve=decision[0], keep_planning=decision[1])


class MarkdownPlans:
    """The agent's Markdown plans by id, as its latest ``plan_update`` of each said them."""

    def __init__(self) -> None:
        self.plans: dict[str, str] = {}
        """Each plan's latest text, by the agent's plan id, in the order they came."""
        self._shown: dict[str, str] = {}
        """The text each plan was last shown as a proposal with."""
        self.dropped = 0
        """Plans dropped to stay within ``MAX_PLANS``."""

    def update(self, plan_id: str, content: str) -> None:
        self.plans.pop(plan_id, None)
        self.plans[plan_id] = _cut(content)
        while len(self.plans) > MAX_PLANS:
            oldest = next(iter(self.plans))
            del self.plans[oldest]
            self._shown.pop(oldest, None)
            self.dropped += 1

    def remove(self, plan_id: str) -> bool:
        """Forget ``plan_id``; False when the agent named a plan it never sent."""
        self._shown.pop(plan_id, None)
        return self.plans.pop(plan_id, None) is not None

    def unshown(self) -> list[tuple[str, str]]:
        """The plans whose latest text was not shown as a proposal yet (under any id: Claude's adapter
        sends the plan it just asked about again as ``plan-mode``), marked shown now."""
        seen = set(self._shown.values())
        out = [(pid, text) for pid, text in self.plans.items() if text not in seen and text.strip()]
        for pid, text in out:
            self._shown[pid] = text
        return out

    def shown(self, plan_id: str | None, text: str) -> bool:
        """Mark ``text`` shown as plan ``plan_id``'s proposal; False if it already was."""
        key = plan_id if plan_id is not None else "(review)"
        if self._shown.get(key) == text:
            return False
        self._shown[key] = text
        return True
