"""The two kinds of pydantic struct types the protocol declares, read one way.

Most protocol types are ``BaseModel`` s. A plan step is a slotted, frozen pydantic
dataclass instead: one object per step, where a model is three (itself, its ``__dict__``
and its fields-set), and a turn keeps every plan it was sent, so each step it keeps
costs the garbage collector a third as much. The serde emulation and the duplicate-key
proof read both kinds through these helpers.
"""

from __future__ import annotations

from typing import TypeGuard

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import is_pydantic_dataclass
from pydantic.fields import FieldInfo


def is_struct(tp: object) -> TypeGuard[type]:  # not TypeIs: a type that is no struct is still a type
    """Whether ``tp`` is a pydantic model class or a pydantic dataclass."""
    return isinstance(tp, type) and (issubclass(tp, BaseModel) or is_pydantic_dataclass(tp))


def struct_fields(tp: type) -> dict[str, FieldInfo]:
    """The fields of a struct type, in declaration (wire) order."""
    return tp.model_fields if issubclass(tp, BaseModel) else tp.__pydantic_fields__  # type: ignore[attr-defined]  # a pydantic dataclass's


def struct_config(tp: type) -> ConfigDict:
    return tp.model_config if issubclass(tp, BaseModel) else tp.__pydantic_config__  # type: ignore[attr-defined]  # a pydantic dataclass's
