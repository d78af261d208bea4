"""``session/request_permission`` as a question in the session's prompts broker.

The agent's options become the question's options, labelled and ordered as the agent
lists them, so the prompts widget, ``cx.AnswerPolicy`` and ``CODEX_NB_ANSWER_POLICY``
answer ACP agents the way they answer ``request_user_input``. The chosen label maps
back to its ``optionId``; an empty answer (the ``deny`` policy), an unanswerable or
cancelled request select the agent's first ``reject_once`` option if it has one, else
the ``cancelled`` outcome.

With the session's folder known, the question also says what the call is about (its paths, those
outside the folder marked, its command and diff): as lines of its text, and as the event's
``details`` JSON, which the prompts widget draws as a card in place of those lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..frontend.answer_policy import ENV_VAR
from ..frontend.requests import Outcome, Settlement
from ..protocol.frontend import Question, QuestionOption
from .acp_events import AcpPermissionRequest
from .mapping import content_text
from .permission_details import permission_details

if TYPE_CHECKING:
    from acp.schema import PermissionOption

QUESTION_ID = "permission"
MAX_DETAIL = 2000


@dataclass(kw_only=True, frozen=True)
class Choice:
    """What goes back to the agent: an ``option_id``, or None for ``cancelled``."""

    option_id: str | None
    note: str | None = None
    """Why the request was not answered with one of the agent's options (for a warning)."""


def question_event(
    *,
    call_id: str,
    turn_id: str,
    tool_call: Any,
    options: list[PermissionOption],
    cwd: str | None = None,
    known: Any = None,
) -> tuple[AcpPermissionRequest, dict[str, str]]:
    """The question to show and a label -> option id map (labels made unique). With the session's
    ``cwd``, the question also lists the tool call's paths (marking those outside it), command and diff,
    and carries them as ``details`` for the card; ``known`` is the call as the agent sent it before
    (the fields the request leaves out)."""
    labels: dict[str, str] = {}
    choices: list[QuestionOption] = []
    for option in options:
        label, n = option.name, 2
        while label in labels:
            label, n = f"{option.name} ({n})", n + 1
        labels[label] = option.option_id
        choices.append(QuestionOption(label=label, description=str(getattr(option.kind, "value", option.kind))))
    title = getattr(tool_call, "title", None) or "a tool call"
    details = [
        t for t in (content_text(getattr(c, "content", None)) for c in getattr(tool_call, "content", None) or []) if t
    ]
    head = f"The agent asks for permission: {title}"
    note = ""
    if details:
        detail = "\n".join(details)
        note = "\n" + (detail if len(detail) <= MAX_DETAIL else detail[:MAX_DETAIL] + "...")
    card: dict[str, Any] | None = None
    text = head + note
    if cwd is not None:
        about = permission_details(tool_call, cwd, known)
        text = head + "".join("\n" + line for line in about.lines()) + note
        card = {"text": head + note, **about.to_json()}
    question = Question(id=QUESTION_ID, header="Permission", question=text, options=choices)
    event = AcpPermissionRequest(call_id=call_id, turn_id=turn_id, questions=[question], details=card)
    return event, labels


def _reject(options: list[PermissionOption]) -> str | None:
    for option in options:
        if str(getattr(option.kind, "value", option.kind)) == "reject_once":
            return option.option_id
    return None


def choice_from(settlement: Settlement, labels: dict[str, str], options: list[PermissionOption]) -> Choice:
    if settlement.outcome in (Outcome.ANSWERED, Outcome.POLICY, Outcome.AUTO_RESOLVED):
        answers = (settlement.response or {}).get("answers", {}).get(QUESTION_ID, {}).get("answers", [])
        ids = set(labels.values())
        for answer in answers:
            if answer in labels:
                return Choice(option_id=labels[answer])
            if answer in ids:
                return Choice(option_id=answer)
        if answers:
            return Choice(
                option_id=_reject(options),
                note=f"the answer {answers!r} is none of the agent's options {list(labels)}; the permission "
                f"request was rejected",
            )
        return Choice(option_id=_reject(options))
    if settlement.outcome == Outcome.UNANSWERABLE:
        return Choice(option_id=_reject(options), note=str(settlement.response))
    return Choice(option_id=None)


def how_to_answer() -> str:
    return (
        "the ACP agent's permission request could not be answered: no prompts widget is displayed for this "
        "session and no answer policy is set, so it was rejected. Display cx.PromptsWidget(session), set "
        "session.answer_policy (cx.AnswerPolicy.deny(), .recommended(), .scripted([{'permission': "
        f"'<option name>'}}]) or .callback(fn)), or start the kernel with {ENV_VAR}=deny|recommended|"
        "/path/to/answers.json"
    )
