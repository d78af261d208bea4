"""``record``: ``dataclasses.dataclass`` with ``__repr__``, ``__eq__`` and ``__hash__`` shared,
not generated per class.

Why it exists: ``dataclass`` writes each method it adds as source text and compiles it with
``exec`` when the class is created; nothing of that is cached in the ``.pyc``. A frozen class
gets six such methods, a plain one three. A first ``cx.Session()`` creates about 45 dataclasses,
and their creation was about a third of codex_nb's own share of that first use (measured with
``tests/benchmarks/bench_first_use.py``). ``record`` leaves the methods that depend on the
fields' order and defaults (``__init__``, and a frozen class's ``__setattr__``/``__delattr__``) to
``dataclass``, and gives the class the three that only read fields: built once per class from
``operator.attrgetter`` (C code) over the fields ``dataclass`` itself would use, so they return
what the generated ones return. ``tests/unit/test_records.py`` checks that for every ``record``
class against a real dataclass of the same fields.

Use it as ``@record(frozen=True, kw_only=True)`` or ``@record``; ``repr=``, ``eq=``, ``order=``
and ``unsafe_hash=`` are not offered: a class that needs them uses ``dataclass``.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T", bound=type)

RECORDS: list[type] = []
"""Every class ``record`` made, in creation order (for the test that compares them with dataclasses)."""


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)  # several names: a tuple


def _methods(cls: type, *, frozen: bool) -> None:
    own = vars(cls)
    fields = dataclasses.fields(cls)
    shown = tuple(f.name for f in fields if f.repr)
    compared = tuple(f.name for f in fields if f.compare)
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    if "__repr__" not in own:
        values = _getter(shown)
        labels = tuple(f"{name}=" for name in shown)

        @reprlib.recursive_repr()
        def __repr__(self: Any) -> str:
            parts = ", ".join(label + repr(value) for label, value in zip(labels, values(self), strict=True))
            return f"{self.__class__.__qualname__}({parts})"

        cls.__repr__ = __repr__  # type: ignore[assignment]
    if "__eq__" not in own:
        key = _getter(compared)

        def __eq__(self: Any, other: object) -> bool:
            if other.__class__ is self.__class__:
                return key(self) == key(other)
            return NotImplemented

        cls.__eq__ = __eq__  # type: ignore[assignment]
    # a class body that defines __eq__ gets __hash__ = None from Python: not an explicit hash
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if not explicit_hash:
        if frozen:
            hash_key = _getter(hashed)

            def __hash__(self: Any) -> int:
                return hash(hash_key(self))

            cls.__hash__ = __hash__  # type: ignore[assignment]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # eq without frozen: unhashable, as dataclass makes it


@overload
def record(cls: T, /) -> T: ...


@overload
def record(
    *, frozen: bool = False, kw_only: bool = False, slots: bool = False, init: bool = True, match_args: bool = True
) -> Callable[[T], T]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: T | None = None,
    /,
    *,
    frozen: bool = False,
    kw_only: bool = False,
    slots: bool = False,
    init: bool = True,
    match_args: bool = True,
) -> T | Callable[[T], T]:
    """``dataclass(cls, ...)`` with shared ``__repr__``, ``__eq__`` and ``__hash__`` (see the module)."""

    def wrap(cls: T) -> T:
        made: T = dataclasses.dataclass(  # type: ignore[assignment]
            cls,
            repr=False,
            eq=False,
            frozen=frozen,
            kw_only=kw_only,
            slots=slots,
            init=init,
            match_args=match_args,
        )
        _methods(made, frozen=frozen)
        RECORDS.append(made)
        return made

    return wrap if cls is None else wrap(cls)
