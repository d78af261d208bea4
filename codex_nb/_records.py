"""``record``: ``dataclasses.dataclass`` with ``__repr__``, ``__eq__`` and ``__hash__`` shared,
not generated per class.

Why it exists: ``dataclass`` writes each method it adds as source text and compiles it with
``exec`` when the class is created; nothing of that is cached in the ``.pyc``. A frozen class
gets six such methods, a plain one three. A first ``cx.Session()`` creates about 45 dataclasses,
and their creation was about a third of codex_nb's own share of that first use (measured with
``tests/benchmarks/bench_first_use.py``). ``record`` leaves the methods that depend on the
fields' order and defaults (``__init__``, and a frozen class's ``__setattr__``/``__delattr__``) to
``dataclass``, and gives the class the three that only read fields. ``__repr__`` is shared, built
once per class from ``operator.attrgetter`` over the fields dataclass would show. ``__eq__`` and
``__hash__`` are written on first use: the first ``==`` or ``hash`` on a class compiles the same
text dataclass would have compiled at import, so a record compared in a hot loop costs what a
dataclass costs, and one never compared costs nothing. ``tests/unit/test_records.py`` checks that for every ``record``
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


def _compiled(cls: type, name: str, names: tuple[str, ...]) -> Callable[..., Any]:
    """``__eq__`` or ``__hash__`` over ``names`` written as dataclass writes them: plain attribute
    reads, which the interpreter specialises (measured: ``attrgetter`` made ``==`` 2.4x and
    ``hash`` 1.35x slower on a slotted record, and a tool registry compares and hashes them often)."""
    mine = ", ".join(f"self.{n}" for n in names) + ("," if names else "")
    theirs = ", ".join(f"other.{n}" for n in names) + ("," if names else "")
    if name == "__eq__":
        body = (
            "def __eq__(self, other):\n"
            "    if other.__class__ is self.__class__:\n"
            f"        return ({mine}) == ({theirs})\n"
            "    return NotImplemented\n"
        )
    else:
        body = f"def __hash__(self):\n    return hash(({mine}))\n"
    namespace: dict[str, Any] = {}
    exec(body, {}, namespace)  # noqa: S102  # the text is built here from the class's field names only
    function = namespace[name]
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    function.__record__ = True
    return function


def _write(obj: Any, name: str, lazy: Callable[..., Any], names: Callable[[dataclasses.Field[Any]], bool]) -> Any:
    # The first == (or hash) on a record class writes its real method (one exec, as dataclass
    # would have at import) on the class that holds the lazy one; this call and later ones use it.
    owner = next(c for c in type(obj).__mro__ if c.__dict__.get(name) is lazy)
    method = _compiled(owner, name, tuple(f.name for f in dataclasses.fields(owner) if names(f)))
    setattr(owner, name, method)
    return method


def _lazy_eq(self: Any, other: object) -> Any:
    return _write(self, "__eq__", _lazy_eq, lambda f: f.compare)(self, other)


def _lazy_hash(self: Any) -> int:
    method = _write(self, "__hash__", _lazy_hash, lambda f: f.compare if f.hash is None else f.hash)
    return method(self)


_lazy_eq.__record__ = True  # type: ignore[attr-defined]
_lazy_hash.__record__ = True  # type: ignore[attr-defined]


def _methods(cls: type, *, frozen: bool) -> None:
    own = vars(cls)
    if "__repr__" not in own:
        shown = tuple(f.name for f in dataclasses.fields(cls) if f.repr)
        values = _getter(shown)
        labels = tuple(f"{name}=" for name in shown)

        @reprlib.recursive_repr()
        def __repr__(self: Any) -> str:
            parts = ", ".join(label + repr(value) for label, value in zip(labels, values(self), strict=True))
            return f"{self.__class__.__qualname__}({parts})"

        __repr__.__record__ = True  # type: ignore[attr-defined]
        cls.__repr__ = __repr__  # type: ignore[assignment]
    if "__eq__" not in own:
        cls.__eq__ = _lazy_eq  # type: ignore[assignment]
    # a class body that defines __eq__ gets __hash__ = None from Python: not an explicit hash
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if not explicit_hash:
        # eq without frozen: unhashable, as dataclass makes it
        cls.__hash__ = _lazy_hash if frozen else None  # type: ignore[assignment]


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
