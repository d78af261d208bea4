"""``Payload`` and ``ToolCall`` write their ``__init__`` out (slot setters, for speed): they
must build exactly what the dataclass-generated one would."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import pytest

from codex_nb.tools.names import ToolName
from codex_nb.tools.payload import Payload, ToolCall


def _generated(cls: type) -> type:
    """The same fields and options, with the ``__init__`` dataclass generates."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    fields = [(f.name, f.type, f) for f in dataclasses.fields(cls)]
    kw_only = all(f.kw_only for f in dataclasses.fields(cls))
    clean = [
        (
            name,
            tp,
            dataclasses.field(default=f.default) if f.default is not dataclasses.MISSING else dataclasses.field(),
        )
        for name, tp, f in fields
    ]
    return dataclasses.make_dataclass(
        f"Generated{cls.__name__}", clean, frozen=params.frozen, slots=True, kw_only=kw_only
    )


@pytest.mark.parametrize("cls", [Payload, ToolCall])
def test_the_written_init_has_the_generated_signature(cls: type) -> None:
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    mine = inspect.signature(cls.__init__)
    theirs = inspect.signature(_generated(cls).__init__)
    assert [(p.name, p.kind, p.default) for p in mine.parameters.values()] == [
        (p.name, p.kind, p.default) for p in theirs.parameters.values()
    ]


def test_a_call_is_built_frozen_equal_hashable_and_copyable() -> None:
    name = ToolName.of("update_plan")
    call = ToolCall(tool_name=name, call_id="c1", payload=Payload.function("{}"))
    assert (call.tool_name, call.call_id, call.payload, call.source, call.cell_id) == (
        name,
        "c1",
        Payload("function", "{}"),
        "direct",
        None,
    )
    same = ToolCall(tool_name=name, call_id="c1", payload=Payload("function", "{}"), source="direct", cell_id=None)
    assert call == same and hash(call) == hash(same)
    assert repr(call) == (
        "ToolCall(tool_name=ToolName(namespace='functions', name='update_plan'), call_id='c1', "
        "payload=Payload(kind='function', text='{}'), source='direct', cell_id=None)"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.call_id = "c2"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.payload.text = "[]"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(call)) == call and copy.deepcopy(call) == call
    moved = dataclasses.replace(call, call_id="c2", cell_id="cell")
    assert (moved.call_id, moved.cell_id, moved.payload) == ("c2", "cell", call.payload)
    with pytest.raises(TypeError):
        ToolCall(name, "c1", Payload.custom("x"))  # type: ignore[misc]  # keyword-only, as before
    with pytest.raises(TypeError):
        ToolCall(tool_name=name, call_id="c1")  # type: ignore[call-arg]  # payload is required
