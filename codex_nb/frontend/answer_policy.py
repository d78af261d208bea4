"""Headless answer policies: who answers ``request_user_input``, ``request_permissions``,
command and file-change approvals and MCP elicitations when no person is at a widget
(nbval, CI, scripts).

Order of precedence for a request (``route``, used by ``tools/handlers/ask.py`` and the
ACP client's permission requests):

1. ``session.answer_policy`` (explicit, set in code);
2. a prompts widget of the session whose view has rendered (a person may answer);
3. the ``CODEX_NB_ANSWER_POLICY`` environment variable the kernel inherited:
   ``deny`` | ``recommended`` | a path to a JSON file holding a list of scripted answers;
4. otherwise the request fails fast with a message saying how to answer it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import AnswerError, CodexNbError
from .requests import EMPTY_ANSWERS, FrontendRequest, FrontendRequests, Outcome, RequestKind, Settlement

ENV_VAR = "CODEX_NB_ANSWER_POLICY"

Answerer = Callable[[FrontendRequest], Any | Awaitable[Any]]


class AnswerPolicyError(CodexNbError):
    """An answer policy is misconfigured or cannot answer a request (e.g. scripted answers ran out)."""


class AnswerPolicy:
    """Answers requests without a person. Build one with the class methods below."""

    remaining: Callable[[], int]
    """How many answers are left: set on ``scripted`` policies only."""

    def __init__(self, name: str, answerer: Answerer) -> None:
        self.name = name
        self._answerer = answerer

    async def answer(self, request: FrontendRequest) -> Any:
        """The answer this policy gives ``request``, in the shapes ``scripted`` takes (an async
        answerer is awaited). The caller checks the shape; whatever the answerer raises propagates, e.g.
        ``AnswerPolicyError`` when scripted answers ran out."""
        value = self._answerer(request)
        if inspect.isawaitable(value):
            value = await value
        return value

    def __repr__(self) -> str:
        return f"AnswerPolicy.{self.name}"

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def deny(cls) -> AnswerPolicy:
        """Questions get ``{"answers":{}}`` (as if auto-resolved); permissions an empty turn grant;
        command and file-change approvals are declined (the turn goes on); elicitations are declined."""
        return cls("deny()", _deny)

    @classmethod
    def recommended(cls) -> AnswerPolicy:
        """Every question gets its first (recommended) option; permissions are granted for the turn;
        command and file-change approvals are approved once (else the first approving decision
        offered); a form elicitation is accepted with its defaults when every required field has
        one (else declined); a URL elicitation is declined (nobody is there to visit it)."""
        return cls("recommended()", _recommended)

    @classmethod
    def scripted(cls, answers: Sequence[Any]) -> AnswerPolicy:
        """Answers consumed in order, one per request; running out is an ``AnswerPolicyError``.

        A question answer is ``{question_id: "label"}`` (or the wire shape); a permission
        answer is ``"allow_turn"``, ``"allow_session"``, ``"deny"`` or the wire shape."""
        if isinstance(answers, (str, bytes, Mapping)) or not isinstance(answers, Sequence):
            raise AnswerPolicyError(
                "AnswerPolicy.scripted() takes a list of answers, one per request, e.g. "
                "[{'confirm_path': 'Yes (Recommended)'}, 'allow_turn']"
            )
        queue = list(answers)
        used = [0]

        def next_answer(request: FrontendRequest) -> Any:
            if used[0] >= len(queue):
                raise AnswerPolicyError(
                    f"scripted answer policy ran out: {len(queue)} answer(s) were scripted but request "
                    f"{used[0] + 1} ({request.kind.value}, call {request.call_id}) needs another; add one"
                )
            used[0] += 1
            return queue[used[0] - 1]

        policy = cls(f"scripted({len(queue)} answers)", next_answer)
        policy.remaining = lambda: len(queue) - used[0]
        return policy

    @classmethod
    def callback(cls, fn: Answerer) -> AnswerPolicy:
        """``fn(request)`` (sync or async) returns the answer, in the shapes ``scripted`` takes."""
        if not callable(fn):
            raise AnswerPolicyError(f"AnswerPolicy.callback() needs a callable, got {type(fn).__name__}")
        return cls(f"callback({getattr(fn, '__name__', 'fn')})", fn)

    @classmethod
    def from_value(cls, value: Any) -> AnswerPolicy | None:
        """Accept what ``session.answer_policy`` may be set to: None, a policy, a callable,
        ``"deny"`` / ``"recommended"`` / a JSON file path, or a list of scripted answers."""
        if value is None or isinstance(value, AnswerPolicy):
            return value
        if isinstance(value, str):
            return cls.from_spec(value, where="answer_policy")
        if callable(value):
            return cls.callback(value)
        if isinstance(value, Sequence):
            return cls.scripted(value)
        raise AnswerPolicyError(
            f"answer_policy must be None, a cx.AnswerPolicy, a callable, 'deny', "
            f"'recommended', a JSON file path or a list of answers; got {type(value).__name__}"
        )

    @classmethod
    def from_spec(cls, spec: str, *, where: str = ENV_VAR) -> AnswerPolicy | None:
        """The policy a string names, as ``CODEX_NB_ANSWER_POLICY`` spells it: ``deny``, ``recommended``,
        ``none`` or blank (None: no policy), or the path of a ``.json`` file (``file:`` prefix and ``~``
        allowed) holding a list of scripted answers. Raises ``AnswerPolicyError`` for anything else or a
        file that cannot be read; ``where`` names the setting in that message."""
        text = spec.strip()
        if text in ("", "none"):
            return None
        if text == "deny":
            return cls.deny()
        if text == "recommended":
            return cls.recommended()
        path = Path(text.removeprefix("file:")).expanduser()
        if path.suffix == ".json":
            try:
                answers = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise AnswerPolicyError(f"{where}={spec!r}: cannot read scripted answers from {path}: {err}") from None
            return cls.scripted(answers)
        raise AnswerPolicyError(
            f"{where}={spec!r} is not a policy; use 'deny', 'recommended', 'none' or a path "
            f"to a .json file holding a list of answers"
        )


def env_policy(cache: dict[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> AnswerPolicy | None:
    """The policy named by ``CODEX_NB_ANSWER_POLICY`` (read at each request), or None.

    ``cache`` (one per session) keeps the policy while the variable is unchanged, so a
    scripted answers file is consumed across requests instead of restarting each time."""
    value = (os.environ if environ is None else environ).get(ENV_VAR)
    if value is None:
        return None
    if cache is not None and cache.get("spec") == value:
        cached: AnswerPolicy = cache["policy"]
        return cached
    policy = AnswerPolicy.from_spec(value)
    if cache is not None:
        cache.update(spec=value, policy=policy)
    return policy


def _deny(request: FrontendRequest) -> Any:
    if request.kind == RequestKind.USER_INPUT:
        return dict(EMPTY_ANSWERS)
    if request.kind == RequestKind.ELICITATION:
        return "decline"
    return "decline" if request.kind == RequestKind.APPROVAL else "deny"


def _recommended(request: FrontendRequest) -> Any:
    # the request models are imported by the first request, not by every Session()
    from ..protocol.frontend import ApplyPatchApprovalRequestEvent, ElicitationRequestEvent, ExecApprovalRequestEvent
    from .decisions import recommended as recommended_decision
    from .elicitation import defaults

    msg = request.msg
    if request.kind == RequestKind.PERMISSIONS:
        return "allow_turn"
    if isinstance(msg, (ExecApprovalRequestEvent, ApplyPatchApprovalRequestEvent)):
        return recommended_decision(msg.available_decisions) if msg.available_decisions else "approve"
    if isinstance(msg, ElicitationRequestEvent):
        filled = defaults(msg.fields) if msg.mode == "form" else None
        return "decline" if filled is None else {"action": "accept", "content": filled}
    questions = getattr(request.msg, "questions", [])
    return {q.id: q.options[0].label for q in questions if q.options}


def how_to_answer(tool: str) -> str:
    """The fail-fast message when nobody can answer."""
    return (
        f"{tool} could not be answered: no prompts widget is displayed for this session and no answer "
        f"policy is set. Display cx.PromptsWidget(session) in a notebook cell, set session.answer_policy "
        f"(cx.AnswerPolicy.deny(), .recommended(), .scripted([...]) or .callback(fn)), or start the kernel "
        f"with {ENV_VAR}=deny|recommended|/path/to/answers.json"
    )


def _report_reroute_failure(broker: FrontendRequests, request: FrontendRequest) -> Callable[[asyncio.Task[None]], None]:
    def done(task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        error = task.exception()  # retrieved, so never "exception was never retrieved"
        if error is not None and request.settled is None:
            broker.fail(request.id, f"answering after the prompts widget closed failed: {error}")

    return done


async def route(broker: FrontendRequests, request: FrontendRequest, *, what: str, unanswerable: str) -> None:
    """Hand ``request`` to whoever answers it, in the order above; ``unanswerable`` is the
    fail-fast message, ``what`` names the request in errors. A policy that gives an unusable
    answer raises ``AnswerPolicyError``."""
    policy = AnswerPolicy.from_value(broker.answer_policy)
    if policy is None:
        state = broker.frontend_state()
        if state == "ready":  # a person can answer in the widget; if it closes first, route again

            def reroute() -> None:
                task = asyncio.ensure_future(route(broker, request, what=what, unanswerable=unanswerable))
                task.add_done_callback(_report_reroute_failure(broker, request))

            request.reroute = reroute
            return
        policy = env_policy(broker.env_policy_cache)
        if policy is None:
            if state == "displayed":  # the widget's view may still be loading
                broker.start_view_grace(request, unanswerable)
            else:
                broker.fail(request.id, unanswerable)
            return
    value = await policy.answer(request)
    if request.settled is not None:
        return  # replaced or cancelled while the policy was thinking
    try:
        broker.answer(request.id, value, outcome=Outcome.POLICY, by="policy", policy=repr(policy))
    except AnswerError as err:
        raise AnswerPolicyError(
            f"answer policy {policy!r} gave an unusable answer to {what} (call {request.call_id}): {err}"
        ) from None


async def ask_and_wait(
    broker: FrontendRequests, request: FrontendRequest, *, emit: Callable[[Any], object], what: str
) -> Settlement:
    """Announce an opened ``request`` (its event through ``emit``), route it and wait for its
    settlement; an answer policy's unusable answer settles it as unanswerable, by the policy.
    However this ends, the request is closed and a ``frontend_request_resolved`` event follows."""
    try:
        emit(request.msg)
        if request.settled is None:
            await route(broker, request, what=what, unanswerable=how_to_answer(what))
        settlement = await broker.wait(request)
    except AnswerPolicyError as err:
        broker.fail(request.id, str(err), by="policy")
        settlement = request.settled or Settlement(outcome=Outcome.UNANSWERABLE, response=str(err))
    finally:
        broker.cancel(request.id)
        outcome = request.settled.outcome if request.settled is not None else Outcome.CANCELLED
        from ..protocol.frontend import FrontendRequestResolved

        emit(
            FrontendRequestResolved(
                request_id=request.id, kind=request.kind.value, call_id=request.call_id, outcome=outcome.value
            )
        )
    return settlement
