"""Every public method and property of the public API has a docstring of its own.

The API reference (docs/api/, mkdocstrings) is built from docstrings: a member without one is a
bare signature there, and ``help()`` in a notebook shows nothing. This walks what those pages
show: each class of a public module's ``__all__`` and, since a page may show inherited members
(``Session``'s does), each of its codex_nb base classes; every public function, classmethod,
staticmethod and property codex_nb defines on them needs a docstring. A documented base method
does not excuse an override: mkdocstrings does not inherit docstrings. Members of third-party
bases (ipywidgets, pydantic, ``Exception``) are theirs to document; what a dataclass or pydantic
generates is private (``__init__``...) or not a function (fields, ``model_config``), so it is
not walked.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import types
from collections.abc import Callable, Iterable, Iterator

import pydantic

from test_public_surface import PUBLIC_MODULES


# Members that may stay without a docstring for now: none. The last test fails on an entry that
# has a docstring by then, or is gone, so the list cannot go stale.
PENDING: frozenset[str] = frozenset()


def ours(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == "codex_nb" or module.startswith("codex_nb.")


def public_objects() -> Iterator[object]:
    """Each class and function of a public module's ``__all__``, once (a public submodule
    listed in ``__all__``, as ``codex_nb.hooks`` is, is walked as a module of its own)."""
    seen: set[int] = set()
    for name in sorted(PUBLIC_MODULES):
        module = importlib.import_module(name)
        for attr in module.__all__:
            value = getattr(module, attr)
            if isinstance(value, types.ModuleType) or id(value) in seen:
                continue
            seen.add(id(value))
            yield value


def member_function(value: object) -> Callable[..., object] | None:
    """The function behind a class attribute that is a method or a property, else None."""
    if isinstance(value, (classmethod, staticmethod)):
        return value.__func__
    if isinstance(value, property):
        return value.fget
    if isinstance(value, functools.cached_property):
        return value.func
    if inspect.isfunction(value):
        return value
    return None


def documented(value: object, fn: Callable[..., object]) -> bool:
    # a property may carry its own doc= beside an undocumented getter
    doc = value.__doc__ if isinstance(value, property) else fn.__doc__
    return bool((doc or "").strip())


def undocumented(objects: Iterable[object], is_ours: Callable[[object], bool] = ours) -> list[str]:
    """``module.Class.member`` (the class that defines it) of every public method or property
    without a docstring, and ``module.name`` of every undocumented class or function."""
    missing: set[str] = set()
    for obj in objects:
        if not is_ours(obj) or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if not (obj.__doc__ or "").strip():
            missing.add(f"{obj.__module__}.{obj.__qualname__}")
        if not inspect.isclass(obj):
            continue
        for cls in obj.__mro__:
            if not is_ours(cls):
                continue
            for name, value in vars(cls).items():
                fn = member_function(value)
                if name.startswith("_") or fn is None or not is_ours(fn):
                    continue
                if not documented(value, fn):
                    missing.add(f"{cls.__module__}.{cls.__qualname__}.{name}")
    return sorted(missing)


def test_every_public_method_and_property_has_a_docstring() -> None:
    missing = [name for name in undocumented(public_objects()) if name not in PENDING]
    assert missing == [], (
        f"{len(missing)} public member(s) without a docstring; the API reference shows them bare. "
        "Say what each returns or does (units, what it raises and when):\n" + "\n".join(missing)
    )


def test_the_walk_reaches_the_surface_the_docs_show() -> None:
    """Guards the walk itself: a change that made it see nothing would pass the test above."""
    import codex_nb as cx
    from codex_nb.runtime.session import Session as RuntimeSession

    objects = list(public_objects())
    assert cx.Session in objects and cx.PlanChecklist in objects and cx.tools.Tool in objects
    assert len([o for o in objects if inspect.isclass(o)]) > 100
    # an inherited codex_nb member is checked on the class that defines it
    assert "lifecycle_log" in vars(RuntimeSession) and RuntimeSession in cx.Session.__mro__


def test_the_check_catches_what_it_names() -> None:
    """On classes made here (``ours`` is this module): an undocumented method, property,
    classmethod and override are named; private names, documented members, dataclass and
    pydantic fields, and members of a third-party base are not."""

    class ThirdParty:
        __module__ = "elsewhere"

        def bare(self) -> None:
            pass

    class Base:
        def close(self) -> None:
            """Documented here."""

    @dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
    class Data(Base, ThirdParty):
        """A public class."""

        count: int = 0

        def close(self) -> None:  # an override needs its own line
            pass

        @property
        def size(self) -> int:
            return 0

        @property
        def weight(self) -> int:
            """Documented."""
            return 0

        @classmethod
        def of(cls) -> Data:
            return cls()

        @staticmethod
        def parse() -> None:
            """Documented."""

        def _private(self) -> None:
            pass

    class Settings(pydantic.BaseModel):
        """Pydantic fields and ``model_config`` are not members to document."""

        model_config = pydantic.ConfigDict(frozen=True)
        depth: int = 1

    def helper() -> None:
        pass

    here = Data.__module__
    found = undocumented([Data, Settings, helper, ThirdParty], is_ours=lambda o: getattr(o, "__module__", "") == here)
    prefix = f"{here}.{test_the_check_catches_what_it_names.__qualname__}.<locals>."
    assert found == sorted(prefix + name for name in ["Data.close", "Data.size", "Data.of", "helper"])


def test_pending_names_are_still_undocumented() -> None:
    """An entry of ``PENDING`` that has a docstring by now, or is gone, must leave the list."""
    stale = sorted(PENDING - set(undocumented(public_objects())))
    assert stale == [], f"documented (or gone) by now: remove from PENDING {stale}"
