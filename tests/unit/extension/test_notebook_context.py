"""``%%codex --cells --outputs --vars``: cell sources, outputs and variables attached to the prompt,
bounded, shown with the turn; a missing cell or variable is a clear error and nothing is sent."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb import extension
from codex_nb.extension.context import MAX_TEXT, Attachments, collect, describe, parse_cells, turn_input
from codex_nb.app_server.thread import CODEX_CAPABILITIES
from helpers.images import image


class Huge:
    """A frame-like value whose full text would be enormous: only ``head`` may be read."""

    shape = (50_000_000, 3)

    def head(self, n: int) -> Huge:
        self.rows = n
        return self

    def to_string(self, **_: object) -> str:
        return "\n".join(f"{i} a b c" for i in range(self.rows))


class Png:
    def _repr_png_(self) -> bytes:
        return image("PNG")


def test_cells_parse_and_bad_specs_say_what_to_write() -> None:
    assert parse_cells("3,5-7") == [3, 5, 6, 7]
    with pytest.raises(ValueError, match="give execution counts like 3,5-7"):
        parse_cells("three")
    with pytest.raises(ValueError, match="not a range"):
        parse_cells("7-5")


def test_values_are_bounded_tables_and_images() -> None:
    notes: list[str] = []
    table = describe("df", Huge(), notes)
    assert table.label == "df: Huge (50000000, 3)" and table.text.count("\n") == 20
    assert describe("img", Png(), notes).image.startswith("data:image/png;base64,")
    long = describe("s", "x" * 1_000_000, notes)
    assert len(long.text) < MAX_TEXT + 100 and "more characters" in long.text and long.truncated


async def test_a_codex_cell_attaches_cells_outputs_and_variables(shell: InteractiveShell) -> None:
    shell.user_ns.update(Huge=Huge, img=Png())
    shell.run_cell("x = 41 + 1\nx", store_history=True)
    shell.run_cell("df = Huge()", store_history=True)
    model = cx.ScriptedModel([[cx.assistant_message("seen")]], record_requests=True)
    shell.user_ns["m"] = model
    shell.run_cell_magic("codex", "--model m --cells 1 --outputs --vars df,img --out turn", "What is x?")
    result = await shell.user_ns["turn"]
    assert result.status == "completed"
    sent = model.requests[0].items[-1]["content"][0]["text"]
    assert sent.startswith("Context from the notebook:\n\n[cell 1]\nx = 41 + 1\nx\n\n[output of cell 1: int]\n42")
    assert "[df: Huge (50000000, 3)]" in sent and "an image (Png" in sent and sent.endswith("Message:\nWhat is x?")
    state = extension.agent(shell)
    assert state is not None
    view = state.widgets[-1]
    shown = view.text()
    assert "- cell 1" in shown and "- df: Huge (50000000, 3)" in shown
    assert "codex_nb's runtime takes no images here: each image was sent as its text description" in shown


def test_a_missing_cell_or_variable_is_a_usage_error_and_nothing_starts(shell: InteractiveShell) -> None:
    shell.user_ns["m"] = cx.ScriptedModel([[cx.assistant_message("never")]])
    with pytest.raises(UsageError, match="this kernel keeps no input history"):
        shell.run_cell_magic("codex", "--model m --cells 1", "hi")
    shell.run_cell("y = 1", store_history=True)
    for flags, message in [
        ("--cells 99", "there is no cell 99 in this kernel's history"),
        ("--vars nope", "no variable named 'nope'"),
        ("--outputs", "--outputs attaches the outputs of the cells named by --cells"),
    ]:
        with pytest.raises(UsageError, match=message):
            shell.run_cell_magic("codex", f"--model m {flags}", "hi")
    state = extension.agent(shell)
    assert state is not None and state.turns == [] and shell.user_ns["m"].remaining == 1


def test_images_go_as_images_to_the_real_codex() -> None:
    found = collect({"img": Png()}, variables="img")

    text, options = turn_input(CODEX_CAPABILITIES, "look", found)
    assert options["input"][0] == {"type": "text", "text": text}
    assert options["input"][1]["type"] == "image" and options["input"][1]["url"].startswith("data:image/png")
    assert "(attached as an image)" in text and found.notes == []
    assert isinstance(found, Attachments)


async def test_codex_answers_shows_the_answers_widget_on_the_current_session(shell: InteractiveShell) -> None:
    from codex_nb.widgets.plan_answers import PlanAnswersWidget

    shell.user_ns["script"] = [[cx.assistant_message("noted")]]
    shell.run_line_magic("codex_config", "--model script")
    shell.run_line_magic("codex_answers", "")
    state = extension.agent(shell)
    assert state is not None
    widget = state.widgets[-1]
    assert isinstance(widget, PlanAnswersWidget) and widget.answers.source is state.source()
    assert widget.answers.model is not None and widget.text() == "Plan: none yet"
