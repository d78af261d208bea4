"""Tool names: ``(namespace, name)`` and the flattened spelling each consumer (display, Code Mode,
hooks, wire) expects."""

from __future__ import annotations

import functools
from dataclasses import dataclass

DEFAULT_NAMESPACE = "functions"


@dataclass(frozen=True, slots=True, order=True)
class ToolName:
    """A normalised tool name; an empty or None namespace means ``functions``."""

    namespace: str
    name: str

    @classmethod
    def of(cls, name: str, namespace: str | None = None) -> ToolName:
        """The name ``name`` in ``namespace`` (None or "" is ``functions``, Codex's default
        namespace). Recent names are cached and shared, so calling it for every call is cheap."""
        if cls is ToolName:
            return _interned(namespace or DEFAULT_NAMESPACE, name)
        return cls(namespace or DEFAULT_NAMESPACE, name)

    @property
    def is_default(self) -> bool:
        """True in Codex's default namespace ``functions``, where every spelling is the bare name."""
        return self.namespace == DEFAULT_NAMESPACE

    @property
    def display(self) -> str:
        """Bare name in the default namespace, else ``ns + name`` with no separator."""
        return self.name if self.is_default else self.namespace + self.name

    @property
    def code_mode_identifier(self) -> str:
        """The ``tools.X`` identifier in Code Mode (05)."""
        if self.is_default:
            return self.name
        if self.namespace.endswith("_") or self.name.startswith("_"):
            return self.namespace + self.name
        return f"{self.namespace}__{self.name}"

    @property
    def dotted(self) -> str:
        """``ns.name`` for people (``clock.sleep``); bare in the default namespace."""
        return self.name if self.is_default else f"{self.namespace}.{self.name}"

    def __str__(self) -> str:
        return self.dotted


@functools.lru_cache(maxsize=4096)  # bounded: the model chooses the names it calls
def _interned(namespace: str, name: str) -> ToolName:
    """One ``ToolName`` per recent name: every call item asks for one, and building a frozen
    dataclass cost more than the lookup."""
    return ToolName(namespace, name)
