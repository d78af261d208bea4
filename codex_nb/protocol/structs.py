"""The two kinds of pydantic struct types the protocol declares, read one way.

Most protocol types are ``BaseModel`` s. A plan step is a slotted, frozen pydantic
dataclass instead: one object per step, where a model is three (itself, its ``__dict__``
and its fields-set), and a turn keeps every plan it was sent, so each step it keeps
costs the garbage collector a third as much. The serde emulation and the duplicate-key
proof read both kinds through these helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, TypeGuard, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import is_pydantic_dataclass
from pydantic.fields import FieldInfo

M = TypeVar("M", bound=BaseModel)


def is_struct(tp: object) -> TypeGuard[type]:  # not TypeIs: a type that is no struct is still a type
    """Whether ``tp`` is a pydantic model class or a pydantic dataclass."""
    return isinstance(tp, type) and (issubclass(tp, BaseModel) or is_pydantic_dataclass(tp))


def struct_fields(tp: type) -> dict[str, FieldInfo]:
    """The fields of a struct type, in declaration (wire) order."""
    return tp.model_fields if issubclass(tp, BaseModel) else tp.__pydantic_fields__  # type: ignore[attr-defined]  # a pydantic dataclass's


def struct_config(tp: type) -> ConfigDict:
    return tp.model_config if issubclass(tp, BaseModel) else tp.__pydantic_config__  # type: ignore[attr-defined]  # a pydantic dataclass's


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of ``cls``'s own slots ``names``, in that order. Each costs less than
    ``object.__setattr__`` and, unlike plain assignment, also sets a frozen class's slots:
    for the objects the call path builds on every call (a routed call, an event)."""
    return tuple(vars(cls)[name].__set__ for name in names)


# An event is built twice per call (its message and its envelope).
_new = object.__new__
_SET_DICT, _SET_FIELDS_SET, _SET_EXTRA, _SET_PRIVATE = slot_setters(
    BaseModel, "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"
)


def trusted_model(cls: type[M], values: dict[str, Any], fields_set: AbstractSet[str] | None = None) -> M:
    """``cls`` holding ``values`` as they are, without validating them again.

    Only for values that already have their fields' types, because they come from a
    validated model or from our own code (a plan event built from parsed arguments, the
    bus's envelope): then this is what ``cls(**values)`` builds, at half the cost, since
    pydantic's pass over already-typed values is the expensive part of building an event
    on every call. ``values`` must name every field, in declaration order, with no
    aliases; tests/unit/protocol/test_trusted_models.py holds the result equal to the validated one.
    """
    model = _new(cls)
    _SET_DICT(model, values)
    _SET_FIELDS_SET(model, set(values) if fields_set is None else set(fields_set))
    _SET_EXTRA(model, None)
    _SET_PRIVATE(model, None)
    return model
