"""Turn app-server notifications into codex_nb events, so widgets built for codex_nb's own
runtime show a real Codex thread unchanged.

=============================  ==========================================================
app-server notification        codex_nb event (``msg.type``)
=============================  ==========================================================
``turn/started``               ``turn_started``
``turn/completed`` completed   ``turn_complete`` (``last_agent_message`` from the items)
``turn/completed`` interrupted ``turn_aborted`` (reason ``interrupted``)
``turn/completed`` failed      ``error`` (unless an ``error`` notification came) + ``turn_complete``
``turn/plan/updated``          ``plan_update`` (``inProgress`` -> ``in_progress``; per-thread revision)
``item/started|completed``     ``item_started`` / ``item_completed`` (the v2 item as is)
``item/agentMessage/delta``    ``agent_message_delta``
``thread/tokenUsage/updated``  ``token_count`` (the event codex_nb's own runtime sends)
``turn/diff/updated``          ``turn_diff`` (the turn's whole diff so far, cut past a bound)
``hook/started|completed``     ``hook_started`` / ``hook_completed`` (tool hooks), else raw
``error``                      ``error`` (``willRetry`` false) or ``warning`` (will retry)
``warning``                    ``warning``
``item/autoApprovalReview/*``  ``auto_approval_review`` (Codex's reviewer, not the person)
``guardianWarning``            ``warning`` (the reviewer's one-line note)
``thread/status/changed``      ``thread_status`` (kind and active flags; a bad shape: ``warning``)
``thread/settings/updated``    ``thread_settings`` (a bounded subset; a bad shape: ``warning``)
``thread/queue/changed``       ``queue_changed`` (counted by ``CodexThread``: Codex sends no contents)
anything else on the thread    ``app_server_notification`` (method and params, nothing lost)
=============================  ==========================================================
"""

from __future__ import annotations

import operator
import re
from typing import Any, Literal

from pydantic import ValidationError

from ..hooks.hook_events import HookCompleted, HookRunSummary, HookStarted
from ..protocol.events import (
    AgentMessageDelta,
    ErrorEvent,
    EventMsg,
    ItemCompleted,
    ItemStarted,
    PlanUpdate,
    TurnAborted,
    TurnComplete,
    TurnStarted,
    WarningEvent,
)
from ..protocol.auto_review import AutoReviewNotificationError, review_event
from ..protocol.model_stream import MAX_TOKEN_COUNT, TokenCount, TokenUsage, TokenUsageInfo
from ..protocol.plan import PlanItemArg, StepStatus
from ..protocol.thread_state import (
    ThreadSettingsUpdated,
    ThreadStateError,
    ThreadStatusChanged,
    thread_settings,
    thread_status,
)
from ..protocol.turn_diff import TurnDiff, bounded_diff

_STEP_STATUS = {"pending": StepStatus.PENDING, "inProgress": StepStatus.IN_PROGRESS, "completed": StepStatus.COMPLETED}
_HOOK_EVENTS = {"preToolUse": "pre_tool_use", "postToolUse": "post_tool_use"}


class AppServerNotification(EventMsg):
    """A notification of this thread with no codex_nb counterpart, kept verbatim."""

    type: Literal["app_server_notification"] = "app_server_notification"
    method: str
    params: dict[str, Any]


class PlanNotificationError(ValueError):
    """A ``turn/plan/updated`` whose plan is not a list of ``{step: str, status: ...}`` objects."""


_previous: tuple[list[Any], tuple[PlanItemArg, ...]] = ([], ())
"""The last plan mapped here: its steps as mapped (before validation) and as validated. Both are
this module's own, so a caller that changes its params or its event afterwards cannot skew them."""


def plan_update(params: dict[str, Any]) -> PlanUpdate:
    """The ``plan_update`` event of a ``turn/plan/updated`` notification.

    ``params`` as the JSON line parses. The server is a peer: it may send anything, so every field
    is checked. A well-formed plan is mapped in one comprehension and validated with its event in
    one call (pydantic checks that each step is a string); anything that trips either is checked
    again step by step, so a bad plan gets an error naming the step, not pydantic's error about
    our own event's fields. A step that the previous plan had at the same place, with the same
    status, is passed as the step validated then: Codex resends the whole plan on every update,
    and one frozen object then serves every update that repeats it.
    """
    global _previous
    plan = params.get("plan")
    explanation = params.get("explanation")
    if type(plan) is not list or not (explanation is None or type(explanation) is str):
        raise PlanNotificationError(
            f"turn/plan/updated needs a list `plan` and a string or null `explanation`; got "
            f"{type(plan).__name__} and {type(explanation).__name__}"
        )
    try:
        mapped: list[Any] = [{"step": entry["step"], "status": _STEP_STATUS[entry["status"]]} for entry in plan]
        # Compared in C, one call for the whole plan: a plan of new steps pays 0.5 us for it, where
        # a table of steps seen before cost 2 us (it hashes each new text twice).
        before, validated = _previous
        repeated = list(map(operator.eq, mapped, before))
        steps = mapped
        if True in repeated:
            steps = list(mapped)
            for number, same in enumerate(repeated):
                if same:
                    steps[number] = validated[number]
        event = PlanUpdate.model_validate({"explanation": explanation, "plan": steps})
    except (KeyError, TypeError, ValidationError) as err:
        raise _bad_step(plan) or err from None
    _previous = (mapped, tuple(event.plan))
    return event


def _bad_step(plan: list[Any]) -> PlanNotificationError | None:
    """The error for the first step of ``plan`` that is not ``{step: str, status: <wire status>}``."""
    for number, entry in enumerate(plan):
        step, raw = (entry.get("step"), entry.get("status")) if type(entry) is dict else (None, None)
        if type(step) is not str or type(raw) is not str or raw not in _STEP_STATUS:
            return PlanNotificationError(
                f"turn/plan/updated step {number} is not {{step: string, status: pending|inProgress|completed}}: "
                f"{str(entry)[:200]}"
            )
    return None


def last_agent_message(turn: dict[str, Any]) -> str | None:
    texts = [item.get("text") for item in turn.get("items") or [] if item.get("type") == "agentMessage"]
    return texts[-1] if texts else None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_HOOK_SOURCES = {"sessionFlags": "session_flags", "system": "system", "user": "user", "project": "project"}
"""app-server ``HookSource`` (camelCase) -> the core form; a source codex_nb has no layer for reads as user."""


def hook_event(kind: str, params: dict[str, Any]) -> EventMsg:
    """``hook_started`` / ``hook_completed`` for tool hooks; other hook kinds stay raw."""
    run = params.get("run") or {}
    cls = HookStarted if kind == "hook/started" else HookCompleted
    try:
        fields = {_snake(k): v for k, v in run.items()}
        fields["event_name"] = _HOOK_EVENTS[run["eventName"]]
        fields["source"] = _HOOK_SOURCES.get(str(run.get("source")), "user")
        summary = HookRunSummary.model_validate({k: v for k, v in fields.items() if k in HookRunSummary.model_fields})
        return cls(turn_id=params.get("turnId"), run=summary)
    except (KeyError, ValidationError, TypeError):
        return AppServerNotification(method=kind, params=params)


class TokenUsageNotificationError(ValueError):
    """A ``thread/tokenUsage/updated`` whose ``tokenUsage`` is not ``{last, total, modelContextWindow}``."""


_BREAKDOWN = {
    "inputTokens": "input_tokens",
    "cachedInputTokens": "cached_input_tokens",
    "outputTokens": "output_tokens",
    "reasoningOutputTokens": "reasoning_output_tokens",
    "totalTokens": "total_tokens",
}
"""Codex's ``TokenUsageBreakdown`` fields -> ``TokenUsage``'s (``cacheWriteInputTokens``, which
codex_nb's own runtime does not count, is not kept)."""


def _tokens(value: Any) -> bool:
    return type(value) is int and value >= 0


def _breakdown(name: str, value: Any) -> TokenUsage:
    if not isinstance(value, dict) or not all(_tokens(value.get(key)) for key in _BREAKDOWN):
        raise TokenUsageNotificationError(
            f"thread/tokenUsage/updated `{name}` is not {{{', '.join(_BREAKDOWN)}: non-negative integer}}: "
            f"{str(value)[:200]}"
        )
    return TokenUsage(**{ours: min(value[key], MAX_TOKEN_COUNT) for key, ours in _BREAKDOWN.items()})


def token_count(params: dict[str, Any]) -> TokenCount:
    """The ``token_count`` event of a ``thread/tokenUsage/updated`` notification.

    Codex's ``tokenUsage`` is ``{total, last, modelContextWindow}``, the thread's running sum, the
    last response's usage and the window, as its core's ``TokenUsageInfo``: the same figures
    codex_nb's own runtime publishes, so one meter reads both. The server is a peer: a
    malformed figure raises ``TokenUsageNotificationError`` naming it."""
    usage = params.get("tokenUsage")
    if not isinstance(usage, dict):
        raise TokenUsageNotificationError(
            f"thread/tokenUsage/updated needs an object `tokenUsage`; got {str(usage)[:200]}"
        )
    window = usage.get("modelContextWindow")
    if window is not None and not _tokens(window):
        raise TokenUsageNotificationError(
            f"thread/tokenUsage/updated `modelContextWindow` is not a non-negative integer or null: {window!r}"
        )
    return TokenCount(
        info=TokenUsageInfo(
            total_token_usage=_breakdown("total", usage.get("total")),
            last_token_usage=_breakdown("last", usage.get("last")),
            model_context_window=None if window is None else min(window, MAX_TOKEN_COUNT),
        )
    )


def turn_diff(params: dict[str, Any]) -> TurnDiff | WarningEvent:
    """The ``turn_diff`` event of a ``turn/diff/updated`` notification: Codex's ``diff`` (the
    unified diff of everything the turn changed so far) kept up to ``MAX_TURN_DIFF_CHARS``, saying
    how much was cut; a ``diff`` that is not a string is a warning, and the last diff stays."""
    diff = params.get("diff")
    if type(diff) is not str:
        return WarningEvent(
            message=f"turn/diff/updated needs a string `diff`; got {type(diff).__name__}: the turn's last diff stays"
        )
    turn_id = params.get("turnId")
    kept, cut = bounded_diff(diff)
    return TurnDiff(turn_id=turn_id if type(turn_id) is str else None, unified_diff=kept, cut_chars=cut)


def thread_state_event(method: str, params: dict[str, Any]) -> EventMsg:
    """The ``thread_status`` of a ``thread/status/changed`` or the ``thread_settings`` of a
    ``thread/settings/updated``; a value of the wrong shape is one ``warning`` saying what was
    wrong, and the thread keeps what it knew."""
    try:
        if method == "thread/status/changed":
            return ThreadStatusChanged(status=thread_status(params.get("status")))
        return ThreadSettingsUpdated(settings=thread_settings(params.get("threadSettings")))
    except ThreadStateError as err:
        kept = "status stays" if method == "thread/status/changed" else "settings stay"
        return WarningEvent(message=f"{method}: {err}; the thread's last known {kept}")


def turn_end_events(turn: dict[str, Any], *, error_seen: bool) -> list[EventMsg]:
    """What ``turn/completed`` becomes, by the turn's status."""
    turn_id = turn["id"]
    status = turn.get("status")
    if status == "interrupted":
        return [
            TurnAborted(
                turn_id=turn_id,
                reason="interrupted",
                started_at=turn.get("startedAt"),
                completed_at=turn.get("completedAt"),
                duration_ms=turn.get("durationMs"),
            )
        ]
    out: list[EventMsg] = []
    if status == "failed" and not error_seen:
        message = (turn.get("error") or {}).get("message") or "the turn failed"
        out.append(ErrorEvent(message=message))
    out.append(TurnComplete(turn_id=turn_id, last_agent_message=last_agent_message(turn)))
    return out


def notification_events(method: str, params: dict[str, Any], *, mode: str = "default") -> list[EventMsg]:
    """The events of one notification, except those that need thread state (see ``CodexThread``)."""
    if method == "turn/started":
        turn = params["turn"]
        return [TurnStarted(turn_id=turn["id"], collaboration_mode_kind=mode)]
    if method == "item/started":
        return [
            ItemStarted(
                thread_id=params["threadId"],
                turn_id=params["turnId"],
                item=params["item"],
                started_at_ms=params.get("startedAtMs") or 0,
            )
        ]
    if method == "item/completed":
        return [
            ItemCompleted(
                thread_id=params["threadId"],
                turn_id=params["turnId"],
                item=params["item"],
                completed_at_ms=params.get("completedAtMs") or 0,
            )
        ]
    if method == "item/agentMessage/delta":
        return [AgentMessageDelta(delta=params["delta"])]
    if method in ("hook/started", "hook/completed"):
        return [hook_event(method, params)]
    if method == "thread/tokenUsage/updated":
        try:
            return [token_count(params)]
        except TokenUsageNotificationError as err:
            return [WarningEvent(message=f"{err}; the usage meter keeps its last figures")]
    if method == "turn/diff/updated":
        return [turn_diff(params)]
    if method in ("thread/status/changed", "thread/settings/updated"):
        return [thread_state_event(method, params)]
    if method == "warning":
        return [WarningEvent(message=str(params.get("message", "")))]
    if method in ("item/autoApprovalReview/started", "item/autoApprovalReview/completed"):
        try:
            return [review_event(method, params)]
        except AutoReviewNotificationError as err:
            return [WarningEvent(message=f"{err}; this automatic review is not shown")]
    if method == "guardianWarning":
        return [WarningEvent(message=f"automatic review: {str(params.get('message', ''))[:500]}")]
    if method == "error":
        message = (params.get("error") or {}).get("message") or "error"
        if params.get("willRetry"):
            return [WarningEvent(message=f"{message} (retrying)")]
        return [ErrorEvent(message=message)]
    return [AppServerNotification(method=method, params=params)]
