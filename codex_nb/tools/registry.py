"""The long-lived, mutable tool registry with a generation counter.

Codex rebuilds its registry every step; we keep one per session, so every change
bumps ``generation`` and ``snapshot()`` hands the planner an immutable view. The view
is built lazily once per generation (not per step), so planning stays O(1) when
nothing changed. Collisions across sources raise (the strict policy); the same
source re-registering a name replaces it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import ToolCollisionError, ToolDefinitionError
from .base import Tool
from .exposure import ToolExposure
from .names import ToolName


@dataclass(frozen=True, slots=True)
class RegisteredTool:
    tool: Tool
    source: str
    exposure: ToolExposure


@dataclass(frozen=True, slots=True)
class RegistrySnapshot:
    """An immutable, insertion-ordered view of the registry at one generation."""

    generation: int
    entries: Mapping[ToolName, RegisteredTool]

    def get(self, name: ToolName) -> RegisteredTool | None:
        return self.entries.get(name)


class ToolRegistry:
    """Insertion-ordered ``ToolName -> RegisteredTool`` map owned by one session."""

    def __init__(self) -> None:
        self._entries: dict[ToolName, RegisteredTool] = {}
        self._generation = 0
        self._snapshot: RegistrySnapshot | None = None
        self._lock = threading.RLock()

    @property
    def generation(self) -> int:
        return self._generation

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return self._key(name) in self._entries if isinstance(name, (str, ToolName)) else False

    def names(self) -> list[str]:
        return [name.dotted for name in self._entries]

    def get(self, name: str | ToolName) -> RegisteredTool | None:
        return self._entries.get(self._key(name))

    @staticmethod
    def _key(name: str | ToolName) -> ToolName:
        if isinstance(name, ToolName):
            return name
        namespace, dot, bare = name.rpartition(".")
        return ToolName.of(bare, namespace) if dot else ToolName.of(name)

    def register(
        self, tool: Any, *, source: str = "user", exposure: ToolExposure | None = None, **options: Any
    ) -> Tool:
        """Add ``tool`` (a ``Tool`` or a Python function) under ``source``; generation +1."""
        built = as_tool(tool, **options)
        with self._lock:
            self._check_collision(built.tool_name, source)
            self._entries[built.tool_name] = RegisteredTool(built, source, exposure or built.exposure)
            self._bump()
        return built

    def unregister(self, name: str | ToolName) -> None:
        key = self._key(name)
        with self._lock:
            if key not in self._entries:
                raise KeyError(f"no tool named {key.dotted!r} is registered; registered: {self.names()}")
            del self._entries[key]
            self._bump()

    def replace_source(self, source: str, tools: Iterable[Any]) -> None:
        """Atomically replace every tool owned by ``source`` (e.g. an MCP refresh); generation +1 once."""
        new = [as_tool(t) for t in tools]
        with self._lock:
            seen: set[ToolName] = set()
            for tool in new:
                if tool.tool_name in seen:
                    raise ToolCollisionError(
                        f"replace_source({source!r}) lists {tool.tool_name.dotted!r} twice; pass each tool once"
                    )
                seen.add(tool.tool_name)
                self._check_collision(tool.tool_name, source)
            kept = {k: v for k, v in self._entries.items() if v.source != source}
            for tool in new:
                kept[tool.tool_name] = RegisteredTool(tool, source, tool.exposure)
            self._entries = kept
            self._bump()

    def _check_collision(self, name: ToolName, source: str) -> None:
        owner = self._entries.get(name)
        if owner is not None and owner.source != source:
            raise ToolCollisionError(
                f"tool {name.namespace}.{name.name} is already registered by source {owner.source!r}; "
                f"source {source!r} cannot register it too. Pick another name or namespace, or "
                f"unregister it first (registry.unregister({name.dotted!r}))."
            )

    def _bump(self) -> None:
        self._generation += 1
        self._snapshot = None

    def snapshot(self) -> RegistrySnapshot:
        """The immutable view for this generation (built once per generation)."""
        with self._lock:
            if self._snapshot is None:
                self._snapshot = RegistrySnapshot(self._generation, MappingProxyType(dict(self._entries)))
            return self._snapshot


def as_tool(obj: Any, **options: Any) -> Tool:
    """A ``Tool`` as is; a Python callable becomes a ``PythonFunctionTool``."""
    if isinstance(obj, Tool):
        if options:
            raise ToolDefinitionError(
                f"options {sorted(options)} only apply to Python functions; set them on the Tool instead"
            )
        return obj
    if callable(obj):
        from .python_tool import PythonFunctionTool

        return PythonFunctionTool(obj, **options)
    raise ToolDefinitionError(f"cannot register {obj!r}: pass a codex_nb Tool or a Python function")
