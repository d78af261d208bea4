"""``record`` classes behave as the dataclasses they replace: repr, ==, hash and unhashability.

Every class ``codex_nb._records.record`` made (all of codex_nb's modules are imported first) is
compared with a real ``dataclasses.dataclass`` of the same fields and flags, on instances whose
fields hold the same values: equal ones, and ones that differ in a single field.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import warnings
from typing import Any

import pytest

import codex_nb
from codex_nb._records import RECORDS, _lazy_eq, _lazy_hash, record


def _import_everything() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the aliases of moved modules warn
        for info in pkgutil.walk_packages(codex_nb.__path__, "codex_nb."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)


_import_everything()


def _twin(cls: type) -> type:
    """A real dataclass with ``cls``'s fields, flags and qualified name."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    spec = [
        (f.name, Any, dataclasses.field(repr=f.repr, compare=f.compare, hash=f.hash)) for f in dataclasses.fields(cls)
    ]
    twin = dataclasses.make_dataclass(cls.__name__, spec, frozen=params.frozen, eq=True)
    twin.__qualname__ = cls.__qualname__
    return twin


def _instance(cls: type, values: dict[str, Any]) -> Any:
    obj = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def _shared(method: Any) -> bool:
    return getattr(method, "__record__", False)


def test_codex_nb_makes_its_records_with_record() -> None:
    assert len(RECORDS) >= 90  # the dataclasses of codex_nb, but the few that order or hand-tune


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_a_record_behaves_as_its_dataclass(cls: type) -> None:
    twin = _twin(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    base = {name: (i, f"v{i}") for i, name in enumerate(names)}
    same, other = _instance(cls, base), _instance(cls, dict(base))
    ref_same, ref_other = _instance(twin, base), _instance(twin, dict(base))
    # a method the class defines itself is its own business (record keeps it, as dataclass does)
    if _shared(cls.__repr__):
        assert repr(same) == repr(ref_same)
    if not _shared(cls.__eq__):
        return
    assert (same == other) is (ref_same == ref_other)
    assert (same == object()) is False and (same != object()) is True
    frozen = cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert (cls.__hash__ is None) is (twin.__hash__ is None)
    if frozen:
        assert hash(same) == hash(ref_same)
    for name in names:
        changed = dict(base, **{name: ("changed", name)})
        assert (same == _instance(cls, changed)) is (ref_same == _instance(twin, changed)), name
        if frozen:
            assert (hash(same) == hash(_instance(cls, changed))) is (
                hash(ref_same) == hash(_instance(twin, changed))
            ), name


def test_a_record_keeps_what_its_class_defines_and_follows_the_field_flags() -> None:
    @record(frozen=True, kw_only=True)
    class Own:
        a: int
        hidden: int = dataclasses.field(default=0, repr=False, compare=False)

        def __repr__(self) -> str:
            return "own"

    @record(frozen=True)
    class Flags:
        a: int
        note: str = dataclasses.field(default="", repr=False, compare=False)

    @record
    class Plain:
        a: list[int]

    assert repr(Own(a=1)) == "own"
    assert Own(a=1, hidden=1) == Own(a=1, hidden=2) and hash(Own(a=1, hidden=1)) == hash(Own(a=1, hidden=2))
    assert (
        repr(Flags(1, "x"))
        == "test_a_record_keeps_what_its_class_defines_and_follows_the_field_flags.<locals>.Flags(a=1)"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        Flags(1).a = 2  # type: ignore[misc]
    assert Plain([1]) == Plain([1]) and Plain([1]) != Plain([2]) and Plain.__hash__ is None
    loop = Plain([])
    loop.a.append(loop)  # type: ignore[arg-type]
    assert (
        repr(loop) == "test_a_record_keeps_what_its_class_defines_and_follows_the_field_flags.<locals>.Plain(a=[...])"
    )


def test_eq_and_hash_are_written_on_first_use_and_keep_their_results() -> None:
    @record(frozen=True, slots=True)
    class Point:
        x: int
        y: int = dataclasses.field(default=0, compare=False)

    @record(frozen=True)
    class Named(Point):
        name: str = ""

    assert Point.__dict__["__eq__"] is _lazy_eq and Point.__dict__["__hash__"] is _lazy_hash
    first = (Point(1, 2) == Point(1, 3), hash(Point(1, 2)))
    assert Point.__dict__["__eq__"] is not _lazy_eq and Point.__dict__["__hash__"] is not _lazy_hash
    assert (Point(1, 2) == Point(1, 3), hash(Point(1, 2))) == first == (True, hash((1,)))
    assert Point(1) != Point(2) and Point(1) != Named(1) and Named(1, name="a") != Named(1, name="b")
    assert Named.__dict__["__eq__"] is not _lazy_eq  # the subclass got its own, over its own fields
    assert hash(Named(1, name="a")) == hash((1, "a"))
