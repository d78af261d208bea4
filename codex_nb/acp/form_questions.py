"""An ACP agent's form elicitation as the question card of Codex's own ``request_user_input``.

An agent asks the person through ``elicitation/create`` with ``mode: "form"`` and a
``requestedSchema`` of primitive fields: codex-acp sends its model's ``request_user_input``
questions this way, claude-agent-acp its AskUserQuestion tool, and both an MCP server's form.
``form_questions`` reads the schema with the same bounded reader as codex_nb's MCP forms
(``frontend.elicitation.read_schema``: at most 50 fields and 200 options, primitive types only)
and turns each field into one question of a ``request_user_input`` event, so the prompts widget,
the answer policies and the approvals record treat it as Codex's own question:

* a single-select enum (``enum`` or titled ``oneOf``) and a multi-select (``array`` of them): its
  options, by title;
* a boolean: the options Yes / No;
* a string, number or integer: a free-text answer (a number is read back as one).

A free-text field that belongs to a select field (``quirks.note_field``: codex-acp's note of a
question, Claude's "Other" box) is not a question of its own: the card asks every question it
shows, and takes a note under each (``user_note: ...``), which fills that field.

``FormQuestions.content`` turns the answers into the ``content`` object the schema asks for,
checked against its fields (types, bounds, required, formats); ``check`` is the same check run
when the answer is given, so a wrong answer is refused at once with the field named. A form that
cannot be shown whole raises ``UnsupportedSchema`` (the session declines it and says why).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
import dataclasses
from dataclasses import dataclass
from typing import Any

from ..errors import AnswerError
from . import quirks
from ..frontend.elicitation import MAX_TEXT, ContentError, UnsupportedSchema, check_content, read_schema
from ..frontend.requests import NOTE_PREFIX
from ..protocol.frontend import ElicitationField, Question, QuestionOption, RequestUserInputEvent

MAX_HEADER = 200
"""Characters of a question's header (a field's title) shown."""
MAX_AUTO_RESOLUTION_MS = 24 * 3600 * 1000
"""The longest ``autoResolutionMs`` taken from an agent (a day); a longer one is not a deadline."""
YES, NO = "Yes", "No"

__all__ = ["FormQuestions", "UnsupportedSchema", "form_questions", "schema_json"]


def schema_json(schema: Any) -> Any:
    """The SDK's ``requestedSchema`` model as JSON (a dict passes as it is); ``UnsupportedSchema``
    when it cannot be turned back into JSON (pydantic stops at a nesting depth a form never has)."""
    dump = getattr(schema, "model_dump", None)
    if dump is None:
        return schema
    try:
        return dump(mode="json", by_alias=True, exclude_none=True)
    except Exception as err:  # noqa: BLE001 - pydantic's serialization errors: the form is unreadable
        raise UnsupportedSchema(
            f"requestedSchema cannot be read ({str(err)[:200]}); a form's fields are flat: string, number, "
            f"integer, boolean and enum"
        ) from None


@dataclass(frozen=True)
class FormQuestions:
    """The question card of one form and how to read its answers back into the form's content."""

    event: RequestUserInputEvent
    fields: tuple[ElicitationField, ...]
    values: Mapping[str, Mapping[str, str]]
    """Per enum field, the option label shown -> the value the agent gets."""
    notes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Per select field, the free-text field that holds its note (``quirks.note_field``): not a
    question of its own, filled from the note written under the select field's question."""

    def content(self, response: Mapping[str, Any]) -> dict[str, Any]:
        """The wire answer ``{"answers": {field: {"answers": [...]}}}`` (a note written under a question
        is an answer ``"user_note: ..."``, as Codex's card sends it) as the form's content;
        ``ContentError`` names the field whose answer does not fit."""
        answers = response.get("answers", {}) if isinstance(response, Mapping) else {}
        out: dict[str, Any] = {}
        shown = {q.id for q in self.event.questions}
        for spec in self.fields:
            if spec.name not in shown:
                continue
            given = answers.get(spec.name, {}).get("answers", []) if isinstance(answers, Mapping) else []
            texts = [t for t in given if isinstance(t, str)]
            choices = [t.strip() for t in texts if not t.startswith(NOTE_PREFIX) and t.strip()]
            notes = [t[len(NOTE_PREFIX) :].strip() for t in texts if t.startswith(NOTE_PREFIX)]
            notes = [n for n in notes if n]
            if spec.type in ("enum", "multi_enum", "boolean"):
                note_field = self.notes.get(spec.name)
                if notes and note_field is not None:
                    out[note_field] = "\n".join(notes)
                elif notes and not choices:
                    choices = notes  # an option's name typed instead of picked
                elif notes:
                    raise ContentError(f"field {spec.name!r} takes one of its options; it has no room for a note")
                if choices:
                    out[spec.name] = self._value(spec, choices)
            elif choices or notes:
                out[spec.name] = self._value(spec, choices + notes)
        return check_content(list(self.fields), out)

    @staticmethod
    def declined(response: Any) -> bool:
        """True for an answer with no answer at all (``{"answers": {}}``: the deny policy, a skipped
        card): the agent is told ``decline``."""
        answers = response.get("answers") if isinstance(response, Mapping) else None
        return not answers

    def check(self, response: Mapping[str, Any]) -> None:
        """Raise ``AnswerError`` (naming the field) unless ``response`` fills the form or declines it."""
        if self.declined(response):
            return
        try:
            self.content(response)
        except ContentError as err:
            raise AnswerError(f"this answer does not fit the agent's form: {err}") from None

    def _value(self, field: ElicitationField, texts: list[str]) -> Any:
        where = f"field {field.name!r}"
        if field.type == "multi_enum":
            return [self._choice(field, text) for text in texts]
        if len(texts) > 1 and field.type != "string":
            raise ContentError(f"{where} takes one answer, got {len(texts)}")
        text = texts[0]
        if field.type == "enum":
            return self._choice(field, text)
        if field.type == "boolean":
            answer = {YES.lower(): True, "true": True, NO.lower(): False, "false": False}.get(text.lower())
            if answer is None:
                raise ContentError(f"{where} takes {YES} or {NO}, got {text!r:.100}")
            return answer
        if field.type in ("number", "integer"):
            try:
                number = float(text)
            except ValueError:
                raise ContentError(f"{where} takes a number, got {text!r:.100}") from None
            if not math.isfinite(number):
                raise ContentError(f"{where} takes a finite number, got {text!r:.100}")
            return int(number) if field.type == "integer" and number.is_integer() else number
        return "\n".join(texts)  # a free-text answer with a note after it: one text

    def _choice(self, field: ElicitationField, text: str) -> str:
        labels = self.values.get(field.name, {})
        if text in labels:
            return labels[text]
        if text in labels.values():
            return text  # the value itself (a script may name it)
        raise ContentError(f"field {field.name!r} must be one of {list(labels)[:20]}, got {text!r:.100}")


def form_questions(
    message: str,
    schema: Any,
    *,
    call_id: str,
    turn_id: str,
    auto_resolution_ms: Any = None,
    codex_fields: bool = False,
) -> FormQuestions:
    """The question card of a form (``schema``: the ``requestedSchema`` as JSON). ``codex_fields``:
    the fields are codex-acp's ``request_user_input`` questions (``quirks.codex_user_input``: a
    field's title is the question, its description the short header); ``auto_resolution_ms`` is
    the agent's deadline, after which the question is answered ``cancel``."""
    if not isinstance(message, str):
        raise UnsupportedSchema("the elicitation has no message")
    fields = read_schema(schema)
    if not fields:
        raise UnsupportedSchema("the form has no fields to ask (a form with only a message is not a question)")
    raw = schema.get("properties", {})
    selects = {f.name for f in fields if f.type in ("enum", "multi_enum", "boolean")}
    notes: dict[str, str] = {}
    for spec in fields:
        owner = quirks.note_field(spec.name, raw.get(spec.name), selects) if spec.type == "string" else None
        if owner is not None and owner not in notes and not spec.required:
            notes[owner] = spec.name
    questions: list[Question] = []
    values: dict[str, dict[str, str]] = {}
    shown = [spec for spec in fields if spec.name not in notes.values()]  # a note field is written under its question
    for spec in shown:
        props = raw.get(spec.name, {})
        title = spec.title or spec.name
        if codex_fields:
            header, text = (spec.description or "")[:MAX_HEADER], title
        else:
            header, text = title[:MAX_HEADER], spec.description or title
        if message and not codex_fields and not questions:  # the message is said once, with the first question
            lone = len(shown) == 1 and not spec.description
            text = message[:MAX_TEXT] if lone else f"{message[:MAX_TEXT]}\n\n{text}"
        options, labels = _options(spec, props)
        if labels:
            values[spec.name] = labels
        text += _hint(spec)
        secret = quirks.codex_field_meta(props).get("isSecret") is True
        questions.append(Question(id=spec.name, header=header, question=text, options=options, isSecret=secret))
    auto = auto_resolution_ms
    if isinstance(auto, bool) or not isinstance(auto, int) or not 0 <= auto <= MAX_AUTO_RESOLUTION_MS:
        auto = None
    event = RequestUserInputEvent(call_id=call_id, turn_id=turn_id, questions=questions, autoResolutionMs=auto)
    return FormQuestions(event=event, fields=tuple(fields), values=values, notes=notes)


def _options(field: ElicitationField, spec: Any) -> tuple[list[QuestionOption] | None, dict[str, str]]:
    """The options shown for ``field`` and, for an enum, its label -> value map."""
    if field.type == "boolean":
        return [QuestionOption(label=YES, description=""), QuestionOption(label=NO, description="")], {}
    if field.type not in ("enum", "multi_enum"):
        return None, {}
    raw = spec.get("oneOf") if field.type == "enum" else (spec.get("items") or {}).get("anyOf")
    described = {
        o.get("const"): o.get("description")
        for o in (raw if isinstance(raw, list) else [])
        if isinstance(o, Mapping) and isinstance(o.get("description"), str)
    }
    labels: dict[str, str] = {}
    shown: list[QuestionOption] = []
    for option in field.options or []:
        if option.label in labels:
            raise UnsupportedSchema(f"field {field.name!r} lists the option {option.label!r:.100} twice")
        labels[option.label] = option.description
        shown.append(
            QuestionOption(label=option.label, description=(described.get(option.description) or "")[:MAX_TEXT])
        )
    return shown, labels


def _hint(field: ElicitationField) -> str:
    """What the free-text answer must be, when the form says (shown after the question)."""
    if field.type == "multi_enum":
        return " (one or more)"
    if field.type in ("number", "integer"):
        kind = "a whole number" if field.type == "integer" else "a number"
        low, high = field.minimum, field.maximum
        if low is not None and high is not None:
            return f" ({kind} from {low:g} to {high:g})"
        if low is not None:
            return f" ({kind}, at least {low:g})"
        if high is not None:
            return f" ({kind}, at most {high:g})"
        return f" ({kind})"
    if field.type == "string" and field.format:
        return f" ({field.format})"
    return ""
