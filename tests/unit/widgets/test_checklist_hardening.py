"""Checklist: a static repr that never lags behind a coalesced burst, and comms that survive
text UTF-8 cannot carry (a lone surrogate the model sent as a JSON escape)."""

from __future__ import annotations

from jupyter_client.session import json_packer

import codex_nb as cx
from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import PlanItemArg, StepStatus
from codex_nb.widgets.checklist import PlanChecklist
from codex_nb.widgets.testing import RecordingComm, recording_comms


def make(session: cx.Session) -> tuple[PlanChecklist, RecordingComm]:
    with recording_comms():
        widget = PlanChecklist(session)
    assert isinstance(widget.comm, RecordingComm)
    return widget, widget.comm


async def test_static_repr_shows_the_latest_accepted_snapshot_during_a_burst() -> None:
    session = cx.Session()
    widget, _ = make(session)
    await session.call_tool("update_plan", {"plan": [{"step": "first", "status": "in_progress"}]})
    await session.call_tool("update_plan", {"plan": [{"step": "second", "status": "in_progress"}]})
    assert widget.steps == [{"step": "first", "status": "in_progress"}]  # the second is still being coalesced
    assert "second" in widget.text() and "first" not in widget.text()
    data, _ = widget._repr_mimebundle_()
    assert "second" in data["text/plain"] and "second" in data["text/html"]
    await widget.settled()
    assert widget.steps == [{"step": "second", "status": "in_progress"}]
    widget.close()


async def test_a_lone_surrogate_in_a_plan_reaches_the_widget_as_a_replacement_character() -> None:
    session = cx.Session()
    widget, comm = make(session)
    args = '{"plan":[{"step":"a\\ud800b","status":"pending"}],"explanation":"\\udc00"}'
    events = [e for e in (await session.call_tool("update_plan", args)).events]
    # Python reads the escape as a lone surrogate; Codex rejects such arguments, see
    # test_hostile_arguments.py; here a plan holding one arrives from elsewhere (a source, a replay).
    assert events == []
    session.bus.emit(
        PlanUpdate(explanation="\udc00", plan=[PlanItemArg(step="a\ud800b", status=StepStatus("pending"))]),
        id="s",
        turn_id="t",
        revision=None,
    )
    await widget.settled()
    update = comm.updates()[-1]
    json_packer(update)  # what ipykernel sends on the wire: must encode as UTF-8
    assert update["steps"] == [{"step": "a\ufffdb", "status": "pending"}] and update["explanation"] == "\ufffd"
    assert widget._unsubscribe is not None  # still attached to the session
    widget.close()


async def test_a_plan_from_no_turn_shows_no_turn_status() -> None:
    session = cx.Session()
    widget, comm = make(session)
    model = cx.ScriptedModel(
        [
            [cx.function_call("update_plan", {"plan": [{"step": "in a turn", "status": "completed"}]})],
            [cx.assistant_message("done")],
        ]
    )
    await session.run_turn("go", model=model)
    await widget.settled()
    assert widget.turn_status == "completed"
    await session.call_tool("update_plan", {"plan": [{"step": "from call_tool", "status": "pending"}]})
    await widget.settled()
    assert widget.steps == [{"step": "from call_tool", "status": "pending"}]
    assert widget.turn_status == "idle"  # "Turn completed" belonged to the earlier turn, not to this plan
    widget.close()
