"""An ACP agent's form elicitation read into Codex's question card, and its answers read back
(``codex_nb.acp.form_questions``): each field type, the agents' own shapes, hostile forms."""

from __future__ import annotations

from typing import Any

import pytest

from codex_nb.acp import quirks
from codex_nb.acp.form_questions import FormQuestions, UnsupportedSchema, form_questions
from codex_nb.errors import AnswerError
from codex_nb.frontend.elicitation import ContentError


def ask(schema: dict[str, Any], message: str = "Tell me", **kw: Any) -> FormQuestions:
    return form_questions(message, schema, call_id="c1", turn_id="t1", **kw)


def wire(**answers: Any) -> dict[str, Any]:
    return {"answers": {k: {"answers": v if isinstance(v, list) else [v]} for k, v in answers.items()}}


FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "color": {
            "type": "string",
            "title": "Color",
            "oneOf": [{"const": "r", "title": "Red", "description": "warm"}, {"const": "b", "title": "Blue"}],
        },
        "size": {"type": "string", "enum": ["S", "M"]},
        "ok": {"type": "boolean", "title": "Agree"},
        "count": {"type": "integer", "minimum": 1, "maximum": 5},
        "ratio": {"type": "number"},
        "tags": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]}},
    },
    "required": ["name", "color"],
}


def test_each_field_type_is_a_question_and_its_answer_the_typed_value() -> None:
    form = ask(FORM, "Your details")
    questions = {q.id: q for q in form.event.questions}
    assert [q.id for q in form.event.questions] == list(FORM["properties"])
    assert questions["name"].question == "Your details\n\nName" and questions["name"].options is None
    assert [(o.label, o.description) for o in questions["color"].options or []] == [("Red", "warm"), ("Blue", "")]
    assert [o.label for o in questions["size"].options or []] == ["S", "M"]
    assert [o.label for o in questions["ok"].options or []] == ["Yes", "No"]
    assert questions["count"].question == "count (a whole number from 1 to 5)"
    assert questions["tags"].question.endswith("(one or more)")
    answer = wire(name="Ada", color="Red", size="M", ok="No", count="3", ratio="0.5", tags=["Ex", "Why"])
    form.check(answer)
    assert form.content(answer) == {
        "name": "Ada",
        "color": "r",
        "size": "M",
        "ok": False,
        "count": 3,
        "ratio": 0.5,
        "tags": ["x", "y"],
    }


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (wire(color="Red"), "field 'name' is required"),
        (wire(name="A", color="Red"), "field 'name' needs at least 2 characters"),
        (wire(name="Ada", color="Green"), "field 'color' must be one of ['Red', 'Blue']"),
        (wire(name="Ada", color="Red", ok="maybe"), "field 'ok' takes Yes or No"),
        (wire(name="Ada", color="Red", count="9"), "field 'count' must be at most 5"),
        (wire(name="Ada", color="Red", count="three"), "field 'count' takes a number"),
        (wire(name="Ada", color="Red", ratio="nan"), "field 'ratio' takes a finite number"),
        (wire(name="Ada", color=["Red", "Blue"]), "field 'color' takes one answer, got 2"),
    ],
)
def test_an_answer_that_does_not_fit_is_refused_naming_the_field(answer: dict[str, Any], why: str) -> None:
    form = ask(FORM)
    with pytest.raises(AnswerError) as err:
        form.check(answer)
    assert str(err.value).startswith(f"this answer does not fit the agent's form: {why}")
    with pytest.raises(ContentError):
        form.content(answer)


def test_no_answer_at_all_declines() -> None:
    form = ask(FORM)
    form.check({"answers": {}})  # the deny policy's answer: not refused, the agent is told decline
    assert form.declined({"answers": {}}) and not form.declined(wire(name="Ada", color="Red"))


def test_codex_acp_request_user_input_shows_as_codex_shows_it() -> None:
    """codex-acp 2.6's schema for ``request_user_input`` (``buildUserInputSchema``): the title is the
    question, the description its header, a note field beside a question with "None of the above"."""
    schema = {
        "type": "object",
        "properties": {
            "scope": {
                "type": "string",
                "title": "Which scope?",
                "description": "Scope",
                "_meta": {"codex": {"isOther": True, "isSecret": False}},
                "oneOf": [
                    {"const": "Small", "title": "Small", "description": "one file"},
                    {"const": "None of the above", "title": "None of the above"},
                ],
            },
            "token": {"type": "string", "title": "Your token?", "_meta": {"codex": {"isSecret": True}}},
            "scope_note": {
                "type": "string",
                "title": "Additional answer or note",
                "_meta": {"codex": {"questionId": "scope", "role": "user_note"}},
            },
        },
        "required": ["scope", "token"],
    }
    codex, auto = quirks.codex_user_input(quirks.CODEX_USER_INPUT_MESSAGE, {"codex": {"autoResolutionMs": 60000}})
    assert (codex, auto) == (True, 60000)
    form = ask(schema, quirks.CODEX_USER_INPUT_MESSAGE, codex_fields=codex, auto_resolution_ms=auto)
    scope, token = form.event.questions  # the note field is the note written under its question
    assert (scope.header, scope.question, scope.isSecret) == ("Scope", "Which scope?", False)
    assert (token.header, token.question, token.isSecret) == ("", "Your token?", True)
    assert form.event.autoResolutionMs == 60000
    # the card sends a note as "user_note: ..." (Codex's convention) and free text as a note too
    answer = wire(scope=["None of the above", "user_note: both files"], token="user_note: s3cret")
    form.check(answer)
    assert form.content(answer) == {"scope": "None of the above", "scope_note": "both files", "token": "s3cret"}
    assert form.content(wire(scope="Small", token="s3cret")) == {"scope": "Small", "token": "s3cret"}
    with pytest.raises(AnswerError, match="field 'scope' is required"):
        form.check(wire(scope="user_note: just a note", token="t"))  # the note, but no option picked
    assert quirks.codex_user_input("Codex needs your input to continue.", {}) == (False, None)
    assert quirks.codex_user_input("Sign in", {"codex": {"autoResolutionMs": 1}}) == (False, None)


def test_claude_ask_user_question_shows_its_question_once() -> None:
    """claude-agent-acp 0.101's AskUserQuestion form (``askUserQuestionsToCreateRequest``): one
    question's text is the message, its header the field title, then its optional "Other" box."""
    schema = {
        "type": "object",
        "properties": {
            "question_0": {"type": "string", "title": "Scope", "oneOf": [{"const": "Large", "title": "Large"}]},
            "question_0_custom": {"type": "string", "title": "Other", "description": "Type your own answer."},
        },
    }
    form = ask(schema, "Which scope?")
    (first,) = form.event.questions  # the "Other" box is the note written under the question
    assert (first.header, first.question, [o.label for o in first.options or []]) == (
        "Scope",
        "Which scope?",
        ["Large"],
    )
    assert form.content(wire(question_0="Large")) == {"question_0": "Large"}
    assert form.content(wire(question_0="user_note: Medium")) == {"question_0_custom": "Medium"}
    assert form.content(wire(question_0=["Large", "user_note: and tests"])) == {
        "question_0": "Large",
        "question_0_custom": "and tests",
    }


def test_a_note_under_a_select_without_a_note_field_is_an_option_typed_or_refused() -> None:
    form = ask(FORM)
    assert form.content(wire(name="Ada", color="user_note: Blue"))["color"] == "b"  # an option's name typed
    with pytest.raises(AnswerError, match="field 'color' takes one of its options; it has no room for a note"):
        form.check(wire(name="Ada", color=["Red", "user_note: darker"]))


def test_the_message_is_said_before_the_first_question_when_no_field_says_it() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": "A?"}}}
    assert ask(schema, "Before you go").event.questions[0].question == "Before you go\n\nA?"


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        (
            {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(51)}},
            "has 51 fields; at most 50",
        ),
        (
            {"type": "object", "properties": {"deep": {"type": "object", "properties": {"x": {"type": "string"}}}}},
            "field 'deep' has type 'object'",
        ),
        (
            {"type": "object", "properties": {"e": {"type": "string", "enum": [str(i) for i in range(201)]}}},
            "201 options",
        ),
        (
            {"type": "object", "properties": {"e": {"type": "string", "oneOf": [{"const": "a", "title": "A"}] * 2}}},
            "lists the option 'A' twice",
        ),
        ({"type": "object", "properties": {}}, "the form has no fields to ask"),
        ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number"}}}}, "only enum items"),
        ({"type": "object", "properties": {"a": {"type": "string", "format": "binary"}}}, "format 'binary'"),
        ("not a schema", "requestedSchema must be a JSON Schema object"),
    ],
)
def test_a_form_that_cannot_be_shown_whole_is_refused_with_why(schema: Any, why: str) -> None:
    with pytest.raises(UnsupportedSchema) as err:
        ask(schema)
    assert why in str(err.value) and "\n" not in str(err.value)


def test_huge_texts_are_cut_and_a_wild_deadline_is_ignored() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "title": "T" * 100_000, "description": "D" * 100_000}},
    }
    form = ask(schema, "M" * 100_000, auto_resolution_ms=10**15)
    question = form.event.questions[0]
    assert len(question.header) == 200 and len(question.question) <= 20_100
    assert form.event.autoResolutionMs is None
    for bad in (-1, True, "5", 1.5):
        assert (
            ask(
                {"type": "object", "properties": {"a": {"type": "string"}}}, auto_resolution_ms=bad
            ).event.autoResolutionMs
            is None
        )
