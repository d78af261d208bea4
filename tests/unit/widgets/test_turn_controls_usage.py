"""The turn controls' usage meter: codex_nb's own runtime's ``token_count`` (the model's reported
usage), this turn's tokens against the running total, a later view of the same session, and the
saved fallback (``text/plain``, ``text/html``) at the final figures."""

from __future__ import annotations

import codex_nb as cx
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.turn_controls import TurnControls, usage_text


def usage(total: int, inp: int | None = None) -> dict[str, int]:
    inp = total - 10 if inp is None else inp
    return {"input_tokens": inp, "output_tokens": total - inp, "total_tokens": total}


async def test_the_runtimes_usage_fills_the_meter_turn_by_turn(session, no_leaked_tasks):
    with recording_comms():
        controls = TurnControls(session)
    assert controls.usage == {} and controls.text() == "Turn: no turn yet"
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": [{"step": "a", "status": "completed"}]})],
            [cx.assistant_message("ok")],
        ],
        usage=[usage(1200), usage(1500)],
    )
    model.model_context_window = 10_000  # what a ResponsesModel reads from config.toml
    await session.run_turn("one", model=model)
    assert controls.usage == {"context_used": 1500, "context_window": 10_000, "turn": 2700, "total": 2700}
    assert (
        controls.text()
        == "Turn: completed\nContext: 1,500 of 10,000 tokens (15%) \u00b7 This turn: 2,700 \u00b7 In all: 2,700"
    )
    second = cx.ScriptedModel([[cx.assistant_message("again")]], usage=[usage(1700)])
    second.model_context_window = 10_000
    result = await session.run_turn("two", model=second)
    assert result.token_usage.total_tokens == 1700
    assert controls.usage == {"context_used": 1700, "context_window": 10_000, "turn": 1700, "total": 4400}
    with recording_comms():
        later = TurnControls(session)  # a %%codex cell's controls: built before its turn starts
    assert later.usage == {"total": 4400}
    third = cx.ScriptedModel([[cx.assistant_message("three")]], usage=[usage(1800)])
    await session.run_turn("three", model=third)
    # no window known to this model: the context figure alone, the turn counted from 4,400
    assert later.usage == {"context_used": 1800, "turn": 1800, "total": 6200}
    assert later.text().splitlines()[1] == "Context: 1,800 tokens \u00b7 This turn: 1,800 \u00b7 In all: 6,200"


async def test_a_turn_without_usage_shows_no_turn_figure(session, no_leaked_tasks):
    with recording_comms():
        controls = TurnControls(session)
    await session.run_turn("one", model=cx.ScriptedModel([[cx.assistant_message("a")]], usage=[usage(500)]))
    assert controls.usage["turn"] == 500
    await session.run_turn("two", model=cx.ScriptedModel([[cx.assistant_message("b")]]))
    # the previous turn's figure would be a lie about this one; the thread's total still holds
    assert controls.usage == {"context_used": 500, "total": 500}
    assert controls.text() == "Turn: completed\nContext: 500 tokens \u00b7 In all: 500"


def test_the_saved_fallback_holds_the_meter(session):
    with recording_comms():
        controls = TurnControls(session)
    controls.usage = {"context_used": 258_400, "context_window": 258_400, "turn": 12, "total": 2**53 - 1}
    bundle, _ = controls._repr_mimebundle_()
    assert bundle["text/plain"] == (
        "Turn: no turn yet\nContext: 258,400 of 258,400 tokens (100%) \u00b7 This turn: 12 \u00b7 In all: 9,007,199,254,740,991"
    )
    assert bundle["text/html"] == (
        '<div class="cx-turn-controls-static"><span class="cx-turn-status">Turn: no turn yet</span>'
        '<div class="cx-turn-usage">Context: 258,400 of 258,400 tokens (100%) \u00b7 This turn: 12 \u00b7 '
        "In all: 9,007,199,254,740,991</div></div>"
    )


def test_usage_words_leave_out_what_was_not_reported():
    assert usage_text({}) == ""
    assert usage_text({"total": 0}) == "In all: 0"
    assert usage_text({"context_used": 5, "context_window": 0}) == "Context: 5 tokens"
    assert usage_text({"context_used": 999, "context_window": 1000}) == "Context: 999 of 1,000 tokens (99%)"
    assert usage_text({"turn": 3}) == "This turn: 3"
    assert "usage" in TurnControls.class_trait_names(sync=True)
