"""``auto_approval_review``: Codex's automatic review of an approval (its "guardian" reviewer).

With ``approvals_reviewer = "auto_review"`` a real Codex sends an approval to a reviewer model
instead of the person: ``item/autoApprovalReview/started`` says what it reviews, ``completed``
its verdict (approved, denied, timed out, aborted), risk and rationale. The transcript and the
timeline show it as Codex's decision, never as the person's answer, so it has an event of its
own rather than an ``exec_approval_request``. A denial can be overridden by the person
(``thread/approveGuardianDeniedAction``): Codex then tells the model the person approved that
exact action, and the event comes again with ``overridden`` set.

Everything here comes from a peer: the action's text and the rationale are cut to
``MAX_REVIEW_TEXT_CHARS`` and ``MAX_RATIONALE_CHARS``; ``review_event`` raises
``AutoReviewNotificationError`` (one line) for a shape it cannot read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from .events import EventMsg

MAX_RATIONALE_CHARS = 2000
"""Characters of the reviewer's rationale kept (its head)."""
MAX_REVIEW_TEXT_CHARS = 500
"""Characters of the reviewed action's one-line description kept."""
MAX_OVERRIDE_ACTION_CHARS = 100_000
"""The largest action (as JSON) kept whole for an override: Codex approves exactly the action sent
back, so a larger one is not kept and its denial cannot be overridden from here."""

ReviewStatus = Literal["in_progress", "approved", "denied", "timed_out", "aborted"]
_STATUSES: dict[str, ReviewStatus] = {
    "inProgress": "in_progress",
    "approved": "approved",
    "denied": "denied",
    "timedOut": "timed_out",
    "aborted": "aborted",
}
_RISKS = frozenset({"low", "medium", "high", "critical"})
_AUTHORIZATIONS = frozenset({"unknown", "low", "medium", "high"})


class AutoReviewNotificationError(ValueError):
    """An ``item/autoApprovalReview/*`` notification codex_nb cannot read."""


class AutoApprovalReview(EventMsg):
    """``auto_approval_review``: one automatic review of an action, as its latest notification said."""

    type: Literal["auto_approval_review"] = "auto_approval_review"
    review_id: str
    turn_id: str
    target_item_id: str | None = None
    status: ReviewStatus
    action_kind: str
    """command | execve | writeStdin | applyPatch | networkAccess | mcpToolCall | requestPermissions | ..."""
    action: str
    """The action in one line (the command, the files, the host), cut to ``MAX_REVIEW_TEXT_CHARS``."""
    risk_level: str | None = None
    user_authorization: str | None = None
    rationale: str | None = None
    rationale_cut_chars: int = 0
    overridden: bool = False
    """The person overrode this denial (``thread.approve_denied_action``)."""
    assessment: dict[str, Any]
    """The review as Codex's core serialises it (``GuardianAssessmentEvent``, its rationale cut as
    ``rationale``): what ``thread/approveGuardianDeniedAction`` sends back to override a denial;
    empty when the action is larger than ``MAX_OVERRIDE_ACTION_CHARS``."""

    @property
    def can_override(self) -> bool:
        """A denial the person has not overridden yet (only a denial can be), whose action was kept."""
        return self.status == "denied" and not self.overridden and bool(self.assessment)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _cut(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def action_text(action: dict[str, Any]) -> str:
    """The reviewed action in one line, as a person reads it."""
    kind = action.get("type")
    if kind == "command":
        text = str(action.get("command", ""))
    elif kind == "execve":
        argv = action.get("argv")
        text = " ".join(map(str, argv)) if isinstance(argv, list) else str(action.get("program", ""))
    elif kind == "writeStdin":
        text = f"write to process {action.get('processId', '?')}: {action.get('stdin', '')!r}"
    elif kind == "applyPatch":
        files = action.get("files")
        text = "apply a patch to " + (", ".join(map(str, files)) if isinstance(files, list) else "?")
    elif kind == "networkAccess":
        text = f"network access to {action.get('target') or action.get('host', '?')}"
    elif kind == "mcpToolCall":
        text = f"MCP tool {action.get('server', '?')}.{action.get('toolName', '?')}"
    elif kind == "requestPermissions":
        text = "more permissions" + (f": {action['reason']}" if isinstance(action.get("reason"), str) else "")
    else:
        text = f"{kind}"
    return _cut(text, MAX_REVIEW_TEXT_CHARS)


def _assessment(params: dict[str, Any], review: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """The core's ``GuardianAssessmentEvent`` (snake_case fields, snake_case enum values) that the
    app-server's camelCase notification was made from; empty for an action too large to keep."""
    if len(json.dumps(action, ensure_ascii=False)) > MAX_OVERRIDE_ACTION_CHARS:
        return {}
    core_action = {
        _snake(key): (_snake(value) if key in ("type", "source", "protocol") and isinstance(value, str) else value)
        for key, value in action.items()
    }
    out: dict[str, Any] = {
        "id": params["reviewId"],
        "turn_id": params["turnId"],
        "started_at_ms": params.get("startedAtMs") or 0,
        "status": _snake(review["status"]),
        "action": core_action,
    }
    optional = {
        "target_item_id": params.get("targetItemId"),
        "completed_at_ms": params.get("completedAtMs"),
        "risk_level": review.get("riskLevel"),
        "user_authorization": review.get("userAuthorization"),
        "rationale": review["rationale"][:MAX_RATIONALE_CHARS] if isinstance(review.get("rationale"), str) else None,
        "decision_source": params.get("decisionSource"),
    }
    out.update({key: value for key, value in optional.items() if value is not None})
    return out


def review_event(method: str, params: dict[str, Any]) -> AutoApprovalReview:
    """The ``auto_approval_review`` of an ``item/autoApprovalReview/started|completed`` notification."""
    review, action = params.get("review"), params.get("action")
    review_id, turn_id = params.get("reviewId"), params.get("turnId")
    if not (isinstance(review, dict) and isinstance(action, dict) and type(review_id) is str and type(turn_id) is str):
        raise AutoReviewNotificationError(
            f"{method} needs string `reviewId` and `turnId` and objects `review` and `action`; got "
            f"{str({k: params.get(k) for k in ('reviewId', 'turnId', 'review', 'action')})[:200]}"
        )
    status = _STATUSES.get(review.get("status"))  # type: ignore[arg-type]
    if status is None or type(action.get("type")) is not str:
        raise AutoReviewNotificationError(
            f"{method} review status {str(review.get('status'))[:40]!r} or action type "
            f"{str(action.get('type'))[:40]!r} is not one codex_nb knows (status: {', '.join(_STATUSES)})"
        )
    risk, authorization, rationale = review.get("riskLevel"), review.get("userAuthorization"), review.get("rationale")
    target = params.get("targetItemId")
    kept = rationale[:MAX_RATIONALE_CHARS] if isinstance(rationale, str) else None
    return AutoApprovalReview(
        review_id=review_id[:200],
        turn_id=turn_id[:200],
        target_item_id=target[:200] if isinstance(target, str) else None,
        status=status,
        action_kind=action["type"][:40],
        action=action_text(action),
        risk_level=risk if risk in _RISKS else None,
        user_authorization=authorization if authorization in _AUTHORIZATIONS else None,
        rationale=kept,
        rationale_cut_chars=len(rationale) - len(kept) if isinstance(rationale, str) and kept is not None else 0,
        assessment=_assessment(params, review, action),
    )


VERDICTS: dict[str, str] = {
    "in_progress": "reviewing",
    "approved": "approved by the automatic review",
    "denied": "denied by the automatic review",
    "timed_out": "the automatic review timed out (not run)",
    "aborted": "the automatic review was stopped (not run)",
}
"""How each status reads, in the transcript and the timeline alike."""


def review_line(msg: AutoApprovalReview) -> str:
    """The review in one line of plain text (the transcript's and the timeline's fallback)."""
    verdict = VERDICTS[msg.status] + ("; overridden by you" if msg.overridden else "")
    facts = [f"risk {msg.risk_level}"] if msg.risk_level else []
    if msg.user_authorization:
        facts.append(f"authorization {msg.user_authorization}")
    tail = f" ({', '.join(facts)})" if facts else ""
    why = f": {_cut(msg.rationale, 300)}" if msg.rationale else ""
    return f"automatic review [{verdict}] {msg.action}{tail}{why}"
