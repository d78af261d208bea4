"""Lazy package attributes (PEP 562), so importing a package costs only what is used.

A package writes each public name once, as an explicit re-export (``from .config import Config
as Config``, PEP 484's spelling, which type checkers read as public), and puts the names to load
on first use under ``if TYPE_CHECKING:``. ``attach`` gives the package a ``__getattr__`` that
reads that block of the package's own source the first time a lazy name (or ``__all__``) is asked
for, then imports the defining module; a resolved name is stored in the package namespace, so
every later access is a plain attribute read. ``from . import sub`` in the block makes a
submodule an attribute (``from . import sub as sub``: one in ``__all__`` too).

``__all__`` is derived, in source order: every explicit re-export (eager or lazy) and every
public function or class the module defines. So what runs, what a type checker sees and what
``from pkg import *`` binds cannot drift apart. The scientific Python packages do the same from
a ``.pyi`` stub (SPEC 1, ``lazy_loader.attach_stub``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def read(package: str, source: str) -> tuple[dict[str, str], set[str], list[str]]:
    """The lazy names of a module's source as ``{name: module}``, its lazy submodules, and its
    ``__all__`` (see the module docstring); ``package`` anchors its relative imports (the
    module's ``__package__``: itself for a package's ``__init__``)."""
    import ast  # here, not at the top: ``import codex_nb`` does not load the parser (pydantic does, later)

    def is_type_checking(test: ast.expr) -> bool:
        return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )

    def module_of(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))

    lazy: dict[str, str] = {}
    submodules: set[str] = set()
    public: list[str] = []
    for statement in ast.parse(source).body:
        typed = isinstance(statement, ast.If) and is_type_checking(statement.test)
        for node in statement.body if isinstance(statement, ast.If) and typed else [statement]:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                public.append(node.name)
            if not isinstance(node, ast.ImportFrom):
                continue
            module = module_of(node)
            for alias in node.names:
                name = alias.asname or alias.name
                if node.module is None and node.level:  # from . import sub
                    if typed:
                        submodules.add(name)
                    if typed and alias.asname == alias.name:
                        public.append(name)
                    continue
                if typed:
                    lazy[name] = module
                if alias.asname == alias.name and not name.startswith("_"):
                    public.append(name)
    return lazy, submodules, public


def attach(package: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose ``__init__`` lists its names as above."""
    namespace = sys.modules[package].__dict__
    table: list[tuple[dict[str, str], set[str], list[str]]] = []

    def tables() -> tuple[dict[str, str], set[str], list[str]]:
        if not table:
            with open(namespace["__file__"], encoding="utf-8") as file:
                table.append(read(namespace["__package__"], file.read()))
        return table[0]

    def __getattr__(name: str) -> object:
        lazy, submodules, public = tables()
        if name == "__all__":
            namespace["__all__"] = list(public)
            return namespace["__all__"]
        if name in submodules:
            return importlib.import_module(f"{namespace['__package__']}.{name}")  # the import binds it
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        lazy, submodules, public = tables()
        return sorted(set(namespace) | set(public) | set(lazy) | submodules)

    return __getattr__, __dir__
