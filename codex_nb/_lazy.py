"""Lazy package attributes (PEP 562), so importing a package costs only what is used.

``codex_nb``, ``codex_nb.hooks``, ``codex_nb.testing``, ``codex_nb.tools``, ``codex_nb.events``,
``codex_nb.models`` and ``codex_nb.plans`` list their public names in ``__all__`` but load the
defining modules on first access; a resolved name is stored in the package namespace, so every
later access is a plain attribute read. Each package keeps a
``TYPE_CHECKING`` mirror of its table for editors and type checkers (tests/project/test_import_cost.py
holds the two equal).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping


def attach(
    package: str, names: Mapping[str, str], modules: Iterable[str] = ()
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names`` maps an attribute to the absolute name
    of the module that defines it; ``modules`` are subpackages that are attributes themselves."""
    namespace = sys.modules[package].__dict__
    submodules = frozenset(modules)

    def __getattr__(name: str) -> object:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")  # the import binds it in the namespace
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())) | set(names) | submodules)

    return __getattr__, __dir__
