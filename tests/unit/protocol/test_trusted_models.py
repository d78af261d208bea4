"""Events built from already-typed values (``trusted_model``) equal the validated ones in every way a user can see."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from codex_nb.events.bus import EventBus
from codex_nb.protocol.events import Event, PlanUpdate, WarningEvent
from codex_nb.protocol.plan import UpdatePlanArgs


def _same(ours: BaseModel, theirs: BaseModel) -> None:
    assert type(ours) is type(theirs)
    assert ours == theirs and repr(ours) == repr(theirs)
    assert ours.model_dump() == theirs.model_dump()
    assert ours.model_dump(mode="json") == theirs.model_dump(mode="json")
    assert ours.model_dump_json() == theirs.model_dump_json()
    assert ours.model_dump(exclude_unset=True) == theirs.model_dump(exclude_unset=True)
    assert ours.model_fields_set == theirs.model_fields_set
    assert list(ours.__dict__) == list(theirs.__dict__)
    assert pickle.loads(pickle.dumps(ours)) == theirs and copy.deepcopy(ours) == theirs
    assert ours.model_copy(update={}) == theirs
    with pytest.raises(ValidationError, match="frozen"):
        ours.explanation = "changed" if isinstance(ours, PlanUpdate) else None  # type: ignore[misc]


@pytest.mark.parametrize(
    "text",
    [
        '{"plan": []}',
        '{"explanation": null, "plan": [{"step": "a", "status": "pending"}]}',
        '{"explanation": "Why", "plan": [{"step": "a", "status": "completed"}, '
        '{"step": "b", "status": "in_progress"}]}',
    ],
)
def test_a_plan_event_from_parsed_arguments(text: str) -> None:
    args = UpdatePlanArgs.model_validate_json(text)
    ours = PlanUpdate.from_args(args)
    _same(ours, PlanUpdate(explanation=args.explanation, plan=list(args.plan)))
    assert ours.plan is not args.plan  # its own list, as the validated event had
    assert ours.to_wire() == PlanUpdate(explanation=args.explanation, plan=list(args.plan)).to_wire()


def test_the_bus_envelope() -> None:
    bus = EventBus("thread-1")
    msg = PlanUpdate.from_args(UpdatePlanArgs.model_validate_json('{"plan": [{"step": "a", "status": "pending"}]}'))
    ours = bus.emit(msg, id="turn-1", turn_id="turn-1", revision=3)
    theirs = Event(id="turn-1", msg=msg, thread_id="thread-1", turn_id="turn-1", seq=1, revision=3)
    assert ours == theirs and repr(ours) == repr(theirs) and ours.model_fields_set == theirs.model_fields_set
    assert ours.model_dump(mode="json") == theirs.model_dump(mode="json") == {"id": "turn-1", "msg": msg.to_wire()}
    assert pickle.loads(pickle.dumps(ours)) == theirs
    with pytest.raises(ValidationError, match="frozen"):
        ours.seq = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("msg", "options"),
    [
        ({"type": "warning", "message": "a dict"}, {}),
        (WarningEvent(message="ok"), {"revision": "1x"}),
        (WarningEvent(message="ok"), {"turn_id": 7}),
    ],
)
def test_the_bus_still_validates_what_its_callers_did_not_type(msg: Any, options: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        EventBus("t").emit(msg, id="x", **options)
